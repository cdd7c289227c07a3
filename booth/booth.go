// Package booth is the voter's side of a ballot as the booth's WebAssembly
// module (booth/wasm) runs it: it builds a ballot in two phases with the
// election package (Prepared.PrecomputeBallot, then
// BallotPrecomputation.Finish) and checks a ballot with the same
// Prepared.CheckBallot as the contract; and it makes an audited ballot's
// spoiled form (election.NewSpoiledBallot). Its inputs and outputs are the
// strings JavaScript hands over: manifest JSON, PEM, base64, hex, JSON.
// No ballot rule is written here.
package booth

import (
	"crypto/ecdsa"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/fabvote/fabvote/crypto/votecode"
	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/p256pem"
)

// ErrNoHandle: the handle names no live precomputation (never made,
// already finished, or discarded).
var ErrNoHandle = errors.New("booth: no such precomputation")

// Finished is a finished ballot: its encoding (standard base64), its
// tracker (election.Tracker in hex: what the voter sees before casting or
// auditing, and finds on the bulletin board), its ballot hash (the hex
// SHA-256 of the encoding, Ballot.Hash, which the receipt names), its
// pseudonym (the ballot's key on the ledger, in hex: with the ballot hash,
// what `fabvote receipt check` takes) and its opening (election.Opening's
// JSON, to reveal only if the voter audits the ballot).
type Finished struct {
	Ballot     string          `json:"ballot"`
	Tracker    string          `json:"tracker"`
	BallotHash string          `json:"ballotHash"`
	Pseudonym  string          `json:"pseudonym"`
	Opening    json.RawMessage `json:"opening"`
}

// Spoiled is an audited ballot: the spoiled ballot's canonical JSON
// (election.SpoiledBallot), which the box takes, and its tracker in hex,
// the finished ballot's.
type Spoiled struct {
	Spoiled string `json:"spoiled"`
	Tracker string `json:"tracker"`
}

// Booth holds the precomputations of one page, by handle.
type Booth struct {
	mu   sync.Mutex
	next int
	pcs  map[int]*election.BallotPrecomputation
}

// New returns a booth with no precomputation.
func New() *Booth { return &Booth{pcs: map[int]*election.BallotPrecomputation{}} }

// Precompute prepares the manifest and precomputes a ballot of style
// (an index into the manifest's styles) with crypto/rand. It returns the
// precomputation's handle for Finish.
func (bo *Booth) Precompute(manifestJSON string, style int) (int, error) {
	p, err := prepare(manifestJSON)
	if err != nil {
		return 0, err
	}
	bp, err := p.PrecomputeBallot(nil, style)
	if err != nil {
		return 0, err
	}
	bo.mu.Lock()
	defer bo.mu.Unlock()
	bo.next++
	bo.pcs[bo.next] = bp
	return bo.next, nil
}

// Finish finishes the ballot of precomputation handle for the voter's key
// (PEM: PKCS#8 "PRIVATE KEY", as WebCrypto exports it, or SEC 1 "EC
// PRIVATE KEY"), the authority's token (standard base64) and one
// selection per contest of the style (JSON: [{"options":[1]},
// {"blank":true}, …]). A finished ballot's handle is gone; a refused
// input leaves it usable.
func (bo *Booth) Finish(handle int, voterKeyPEM, tokenB64, selectionsJSON string) (*Finished, error) {
	voter, err := ParseVoterKey(voterKeyPEM)
	if err != nil {
		return nil, err
	}
	token, err := base64.StdEncoding.DecodeString(tokenB64)
	if err != nil {
		return nil, fmt.Errorf("booth: token: not standard base64: %w", err)
	}
	sels, err := ParseSelections(selectionsJSON)
	if err != nil {
		return nil, err
	}
	bo.mu.Lock()
	bp, ok := bo.pcs[handle]
	bo.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("%w: handle %d", ErrNoHandle, handle)
	}
	b, opening, err := bp.Finish(voter, token, sels)
	if err != nil {
		return nil, err
	}
	bo.Discard(handle)
	openingJSON, err := json.Marshal(opening)
	if err != nil {
		return nil, err
	}
	hash := b.Hash()
	return &Finished{Ballot: base64.StdEncoding.EncodeToString(b.Marshal()), Tracker: b.TrackerHex(),
		BallotHash: hex.EncodeToString(hash[:]), Pseudonym: b.PseudonymHex(), Opening: openingJSON}, nil
}

// Spoil is the spoiled ballot of a finished ballot (standard base64) and
// its opening (Finished.Opening's JSON): what the booth sends to the box
// when the voter audits the ballot, which must then never be cast.
// Errors: DECODE for a ballot or opening that does not decode or an
// opening of another number of ciphertexts.
func Spoil(ballotB64, openingJSON string) (*Spoiled, error) {
	b, err := parseBallotB64(ballotB64)
	if err != nil {
		return nil, err
	}
	var o election.Opening
	if err := json.Unmarshal([]byte(openingJSON), &o); err != nil {
		return nil, election.Errorf(election.CodeDecode, "opening: %v", err)
	}
	s, err := election.NewSpoiledBallot(b, &o)
	if err != nil {
		return nil, err
	}
	return &Spoiled{Spoiled: string(s.Marshal()), Tracker: s.TrackerHex()}, nil
}

// TokenStyle is the index of the ballot style the authority's token
// (standard base64) names, so that the page knows which ballot to
// precompute. The manifest checks the index (Precompute). Errors: DECODE.
func TokenStyle(tokenB64 string) (int, error) {
	token, err := base64.StdEncoding.DecodeString(tokenB64)
	if err != nil {
		return 0, election.Errorf(election.CodeDecode, "token: not standard base64: %v", err)
	}
	t, err := election.ParseToken(token)
	if err != nil {
		return 0, err
	}
	return int(t.Style), nil
}

// Discard forgets a precomputation (the voter left, or the page made a
// fresh one). An unknown handle is no error.
func (bo *Booth) Discard(handle int) {
	bo.mu.Lock()
	defer bo.mu.Unlock()
	delete(bo.pcs, handle)
}

// Verify parses a ballot (standard base64) and checks it under the
// manifest with Prepared.CheckBallot: shape, token, signature, proofs.
// Errors carry the election package's codes (election.CodeOf).
func Verify(manifestJSON, ballotB64 string) error {
	p, err := prepare(manifestJSON)
	if err != nil {
		return err
	}
	b, err := parseBallotB64(ballotB64)
	if err != nil {
		return err
	}
	return p.CheckBallot(b, nil)
}

// parseBallotB64 decodes a ballot from standard base64. Errors: DECODE,
// SIZE.
func parseBallotB64(ballotB64 string) (*election.Ballot, error) {
	raw, err := base64.StdEncoding.DecodeString(ballotB64)
	if err != nil {
		return nil, election.Errorf(election.CodeDecode, "ballot: not standard base64: %v", err)
	}
	return election.ParseBallot(raw)
}

// prepare parses and prepares a manifest.
func prepare(manifestJSON string) (*election.Prepared, error) {
	m, err := election.ParseManifest([]byte(manifestJSON))
	if err != nil {
		return nil, err
	}
	return election.Prepare(m)
}

// ParseVoterKey parses the voter's P-256 private key from PEM: PKCS#8
// ("PRIVATE KEY") or SEC 1 ("EC PRIVATE KEY").
func ParseVoterKey(keyPEM string) (*ecdsa.PrivateKey, error) {
	k, err := p256pem.ParsePrivateKey([]byte(keyPEM))
	if err != nil {
		return nil, fmt.Errorf("booth: voter key: %w", err)
	}
	return k, nil
}

// selectionJSON is one contest's selection as the page sends it.
type selectionJSON struct {
	Options []int `json:"options"`
	Blank   bool  `json:"blank"`
}

// ParseSelections parses one selection per contest, in the style's order:
// a JSON list of {"options": [option indexes], "blank": bool}. Unknown
// fields are refused. Whether a selection is allowed is the election
// package's to say (Finish).
func ParseSelections(selectionsJSON string) ([]votecode.Selection, error) {
	dec := json.NewDecoder(strings.NewReader(selectionsJSON))
	dec.DisallowUnknownFields()
	var in []selectionJSON
	if err := dec.Decode(&in); err != nil {
		return nil, fmt.Errorf("booth: selections: %w", err)
	}
	if dec.More() {
		return nil, errors.New("booth: selections: trailing data after the list")
	}
	sels := make([]votecode.Selection, len(in))
	for i, s := range in {
		sels[i] = votecode.Selection{Options: s.Options, Blank: s.Blank}
	}
	return sels, nil
}
