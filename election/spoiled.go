package election

import (
	"encoding/hex"
	"encoding/json"
	"math/big"

	"github.com/fabvote/fabvote/crypto/votecode"
)

// SpoiledFormat is the format of a spoiled ballot's JSON.
const SpoiledFormat = "fabvote/spoiled-ballot"

// MaxSpoiledSize bounds a spoiled ballot's JSON.
const MaxSpoiledSize = 64 * 1024

// SpoiledBallot is a ballot audited instead of cast (a Benaloh challenge):
// its election, contests and ciphertexts, with the opening that reveals
// what they encrypt. It carries nothing of the voter's (no voter key,
// token, proof or signature), so that nothing links the revealed choice,
// often the voter's real one, to the voter. JSON, keys in this order:
//
//	{"format":"fabvote/spoiled-ballot","version":1,"electionID":"<id>",
//	 "contests":[0,2],"ciphertexts":["<hex>",…],
//	 "opening":{"ciphertexts":[{"plaintext":"<hex>","nonce":"<hex>"},…]}}
//
// each ciphertext its fixed-length bytes in lowercase hex, the opening as
// Opening's JSON.
type SpoiledBallot struct {
	ElectionID  string
	Contests    []byte   // as Ballot.Contests
	Ciphertexts [][]byte // one per ciphertext of the ballot, in order: Ballot.Ciphertext cut into CiphertextLen pieces
	Opening     *Opening // one plaintext and nonce per ciphertext
}

type spoiledJSON struct {
	Format      string   `json:"format"`
	Version     int      `json:"version"`
	ElectionID  string   `json:"electionID"`
	Contests    []int    `json:"contests"`
	Ciphertexts []string `json:"ciphertexts"`
	Opening     *Opening `json:"opening"`
}

var spoiledKeys = []string{"format", "version", "electionID", "contests", "ciphertexts", "opening"}

// NewSpoiledBallot is ballot b with its opening o (from Finish): what the
// booth publishes when the voter audits b. Errors: DECODE when o does not
// have one plaintext per ciphertext of b.
func NewSpoiledBallot(b *Ballot, o *Opening) (*SpoiledBallot, error) {
	n := o.Len()
	if n == 0 || len(b.Ciphertext)%n != 0 {
		return nil, errorf(CodeDecode, "the opening has %d ciphertexts; the ballot's %d ciphertext bytes do not split into as many", n, len(b.Ciphertext))
	}
	w := len(b.Ciphertext) / n
	s := &SpoiledBallot{ElectionID: b.ElectionID, Contests: append([]byte(nil), b.Contests...), Opening: &Opening{}}
	for i := 0; i < n; i++ {
		s.Ciphertexts = append(s.Ciphertexts, append([]byte(nil), b.Ciphertext[i*w:(i+1)*w]...))
		s.Opening.add(o.plaintexts[i], o.nonces[i])
	}
	return s, nil
}

// Tracker is the tracker of the audited ballot: Tracker over its election
// id, contests and ciphertexts, which the ledger keys it by.
func (s *SpoiledBallot) Tracker() [32]byte {
	var cts []byte
	for _, c := range s.Ciphertexts {
		cts = append(cts, c...)
	}
	return Tracker(s.ElectionID, s.Contests, cts)
}

// TrackerHex is the lowercase hex of Tracker: the last attribute of its
// tracker key.
func (s *SpoiledBallot) TrackerHex() string {
	t := s.Tracker()
	return hex.EncodeToString(t[:])
}

// Marshal is the canonical JSON.
func (s *SpoiledBallot) Marshal() []byte {
	out := spoiledJSON{Format: SpoiledFormat, Version: 1, ElectionID: s.ElectionID,
		Contests: make([]int, len(s.Contests)), Ciphertexts: make([]string, len(s.Ciphertexts)), Opening: s.Opening}
	for i, c := range s.Contests {
		out.Contests[i] = int(c)
	}
	for i, c := range s.Ciphertexts {
		out.Ciphertexts[i] = hex.EncodeToString(c)
	}
	b, err := json.Marshal(out)
	if err != nil {
		panic(err) // strings, ints and an Opening always marshal
	}
	return b
}

// ParseSpoiledBallot decodes a spoiled ballot in exactly its canonical
// form. It checks the form alone; CheckSpoiled checks it against the
// election. Errors: SIZE, DECODE naming the key or value that is wrong.
func ParseSpoiledBallot(data []byte) (*SpoiledBallot, error) {
	if len(data) > MaxSpoiledSize {
		return nil, errorf(CodeSize, "spoiled ballot has %d bytes, the limit is %d", len(data), MaxSpoiledSize)
	}
	var in spoiledJSON
	if err := decodeStrict(data, "spoiled ballot", spoiledKeys, &in); err != nil {
		return nil, err
	}
	if err := checkFormat("spoiled ballot", in.Format, SpoiledFormat, in.Version); err != nil {
		return nil, err
	}
	s, err := in.spoiled()
	if err != nil {
		return nil, err
	}
	if err := checkCanonical(data, s.Marshal(), "spoiled ballot"); err != nil {
		return nil, err
	}
	return s, nil
}

// spoiled checks the fields' values and builds the ballot.
func (in *spoiledJSON) spoiled() (*SpoiledBallot, error) {
	if err := checkElectionID(in.ElectionID); err != nil {
		return nil, err
	}
	if len(in.Contests) == 0 || len(in.Contests) > MaxContests {
		return nil, errorf(CodeDecode, "spoiled ballot: %d contests, want 1..%d", len(in.Contests), MaxContests)
	}
	s := &SpoiledBallot{ElectionID: in.ElectionID, Opening: in.Opening}
	for i, c := range in.Contests {
		if c < 0 || c >= MaxContests {
			return nil, errorf(CodeDecode, "spoiled ballot: contests[%d] is %d, want 0..%d", i, c, MaxContests-1)
		}
		s.Contests = append(s.Contests, byte(c))
	}
	for i, h := range in.Ciphertexts {
		c, err := hex.DecodeString(h)
		switch {
		case err != nil || len(c) == 0:
			return nil, errorf(CodeDecode, "spoiled ballot: ciphertexts[%d] is not hex", i)
		case i > 0 && len(c) != len(s.Ciphertexts[0]):
			return nil, errorf(CodeDecode, "spoiled ballot: ciphertexts[%d] has %d bytes, ciphertexts[0] %d", i, len(c), len(s.Ciphertexts[0]))
		}
		s.Ciphertexts = append(s.Ciphertexts, c)
	}
	if len(s.Ciphertexts) == 0 || s.Opening == nil || s.Opening.Len() != len(s.Ciphertexts) {
		return nil, errorf(CodeDecode, "spoiled ballot: %d ciphertexts and %d opened, want as many, at least one", len(s.Ciphertexts), s.Opening.Len())
	}
	return s, nil
}

// CheckSpoiled checks a spoiled ballot against the election, cheapest
// first, and returns the selections it reveals, one per contest:
// the election id (NO_ELECTION); the contests being exactly one style's,
// in the manifest's order (a cast ballot's rule and codes,
// checkContestList); each ciphertext in Z*_{N²} and of its length
// (CIPHERTEXT); each nonce r with 0 < r < N and gcd(r, N) = 1, and each
// contest's plaintexts a valid selection of it (OPENING); and each
// ciphertext equal to (1+N)^m r^N mod N² (OPENING).
func (p *Prepared) CheckSpoiled(s *SpoiledBallot) ([]votecode.Selection, error) {
	if s.ElectionID != p.Manifest.ElectionID {
		return nil, errorf(CodeNoElection, "spoiled ballot is for election %q, not %q", s.ElectionID, p.Manifest.ElectionID)
	}
	f, err := p.spoiledStyle(s.Contests)
	if err != nil {
		return nil, err
	}
	cs, err := p.spoiledCiphertexts(f, s.Ciphertexts)
	if err != nil {
		return nil, err
	}
	if s.Opening.Len() != len(cs) {
		return nil, errorf(CodeOpening, "the opening opens %d ciphertexts, the ballot has %d", s.Opening.Len(), len(cs))
	}
	sels, err := p.openedSelections(f, s.Opening)
	if err != nil {
		return nil, err
	}
	for i, c := range cs {
		enc, err := p.PublicKey.EncryptWithNonce(s.Opening.plaintexts[i], s.Opening.nonces[i])
		if err != nil || enc.Cmp(c) != 0 {
			return nil, errorf(CodeOpening, "%s: its opening does not encrypt to it", p.slotName(f, i))
		}
	}
	return sels, nil
}

// spoiledStyle is the style whose contests list is, or, when none's is,
// the error a cast ballot of the closest style (the one with most of the
// listed contests) would get.
func (p *Prepared) spoiledStyle(list []byte) (*styleForm, error) {
	best, most := 0, -1
	for i := range p.styles {
		f := &p.styles[i]
		if string(f.contests) == string(list) {
			return f, nil
		}
		n := 0
		for _, ci := range list {
			if contains(f.contests, ci) {
				n++
			}
		}
		if n > most {
			best, most = i, n
		}
	}
	if err := p.checkContestList(list, &p.styles[best]); err != nil {
		return nil, err
	}
	return nil, errorf(CodeNotInStyle, "the spoiled ballot's contests are no style's")
}

func contains(list []byte, b byte) bool {
	for _, x := range list {
		if x == b {
			return true
		}
	}
	return false
}

// spoiledCiphertexts decodes the ciphertexts of a spoiled ballot of style
// f. Errors: CIPHERTEXT.
func (p *Prepared) spoiledCiphertexts(f *styleForm, cts [][]byte) ([]*big.Int, error) {
	if len(cts) != len(f.slots) {
		return nil, errorf(CodeCiphertext, "the spoiled ballot has %d ciphertexts, its style %d", len(cts), len(f.slots))
	}
	cs := make([]*big.Int, len(cts))
	for i, b := range cts {
		c, err := p.PublicKey.DecodeCiphertext(b)
		if err != nil {
			return nil, wrapf(CodeCiphertext, err, "%s", p.slotName(f, i))
		}
		cs[i] = c
	}
	return cs, nil
}

// openedSelections checks the opening's nonces and decodes its plaintexts,
// contest by contest, into the selections they encode. Errors: OPENING.
func (p *Prepared) openedSelections(f *styleForm, o *Opening) ([]votecode.Selection, error) {
	n := p.PublicKey.N
	for i, r := range o.nonces {
		if r.Sign() <= 0 || r.Cmp(n) >= 0 || new(big.Int).GCD(nil, nil, r, n).Cmp(big.NewInt(1)) != 0 {
			return nil, errorf(CodeOpening, "%s: its nonce is not in Z*_N (0 < r < N, coprime to N)", p.slotName(f, i))
		}
	}
	sels := make([]votecode.Selection, len(f.contests))
	slot := 0
	for i, ci := range f.contests {
		c := &p.Layout.Contests[ci]
		k := c.Ciphertexts()
		sel, err := c.DecodeSelection(o.plaintexts[slot : slot+k])
		if err != nil {
			return nil, wrapf(CodeOpening, err, "contest %q: the opening is no valid choice", p.Manifest.Contests[ci].ID)
		}
		sels[i], slot = sel, slot+k
	}
	return sels, nil
}
