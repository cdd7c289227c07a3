package election_test

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/rand"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/crypto/votecode"
	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/election/electiontest"
)

// checkOpening asserts that o re-encrypts, ciphertext by ciphertext, to
// b's ciphertexts, and that neither its String nor its JSON round trip
// loses or leaks what it must not.
func checkOpening(t *testing.T, p *election.Prepared, b *election.Ballot, o *election.Opening) {
	t.Helper()
	w := p.PublicKey.CiphertextLen()
	if o.Len()*w != len(b.Ciphertext) {
		t.Fatalf("opening of %d ciphertexts for a ballot of %d", o.Len(), len(b.Ciphertext)/w)
	}
	for i := 0; i < o.Len(); i++ {
		c, err := p.PublicKey.EncryptWithNonce(o.Plaintext(i), o.Nonce(i))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(p.PublicKey.EncodeCiphertext(c), b.Ciphertext[i*w:(i+1)*w]) {
			t.Fatalf("ciphertext %d: the opening does not re-encrypt to it", i)
		}
		if strings.Contains(o.String(), o.Nonce(i).Text(16)) {
			t.Fatalf("String prints nonce %d", i)
		}
	}
	js, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	var back election.Opening
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	if again, _ := json.Marshal(&back); !bytes.Equal(again, js) {
		t.Fatal("the opening's JSON does not round-trip")
	}
}

// finished makes a ballot of voter with token of style in two phases.
func finished(t *testing.T, p *election.Prepared, style int, voter *ecdsa.PrivateKey, token []byte, sels []votecode.Selection) (*election.Ballot, *election.Opening) {
	t.Helper()
	bp, err := p.PrecomputeBallot(rand.Reader, style)
	if err != nil {
		t.Fatal(err)
	}
	b, o, err := bp.Finish(voter, token, sels)
	if err != nil {
		t.Fatal(err)
	}
	return b, o
}

func TestPrecomputeBallotFinish(t *testing.T) {
	_, p, _ := fixtures(t)
	voter := fx.Voters[0]
	b, o := finished(t, p, 0, voter, fx.Token(p.Manifest, voter), []votecode.Selection{sel(2)})
	if err := p.CheckBallot(b, nil); err != nil {
		t.Fatalf("CheckBallot: %v", err)
	}
	checkOpening(t, p, b, o)
	// The opening's plaintext is what the ciphertext decrypts to.
	c, err := p.PublicKey.DecodeCiphertext(b.Ciphertext)
	if err != nil {
		t.Fatal(err)
	}
	if pt, err := fx.Paillier.Decrypt(c); err != nil || pt.Cmp(o.Plaintext(0)) != 0 {
		t.Fatalf("the ciphertext decrypts to %v (%v), the opening says %v", pt, err, o.Plaintext(0))
	}
}

func TestPrecomputeBallotFinishContests(t *testing.T) {
	for _, enc := range []string{"packed", "per-option"} {
		m := contestManifest(enc)
		p := prepare(t, m)
		for i, v := range contestVotes {
			t.Run(enc+"/"+v.style, func(t *testing.T) {
				voter := fx.Voters[v.voter]
				tok := fx.TokenStyle(m, electiontest.VoterID(voter), v.style, voter)
				b, o := finished(t, p, m.StyleIndex(v.style), voter, tok, v.sels)
				if err := p.CheckBallot(b, nil); err != nil {
					t.Fatalf("ballot %d: CheckBallot: %v", i, err)
				}
				checkOpening(t, p, b, o)
			})
		}
	}
}

func TestBallotFinishRefusesReuse(t *testing.T) {
	_, p, _ := fixtures(t)
	bp, err := p.PrecomputeBallot(rand.Reader, 0)
	if err != nil {
		t.Fatal(err)
	}
	voter := fx.Voters[1]
	tok := fx.Token(p.Manifest, voter)
	if _, _, err := bp.Finish(voter, tok, []votecode.Selection{sel(0)}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := bp.Finish(voter, tok, []votecode.Selection{sel(1)}); !errors.Is(err, election.ErrPrecomputationUsed) {
		t.Fatalf("second Finish: got %v, want ErrPrecomputationUsed", err)
	}
}

func TestPrecomputeBallotRejectsStyle(t *testing.T) {
	_, p, _ := fixtures(t)
	for _, style := range []int{-1, len(p.Manifest.Styles) + 1} {
		_, err := p.PrecomputeBallot(rand.Reader, style)
		wantCode(t, err, election.CodeToken)
	}
}

// Each bad input to Finish is refused with its own error, and leaves the
// precomputation usable: nothing of it was revealed.
func TestBallotFinishRejectsBadInput(t *testing.T) {
	m := contestManifest("per-option")
	p := prepare(t, m)
	voter := fx.Voters[0]
	north := fx.TokenStyle(m, electiontest.VoterID(voter), "north", voter)
	south := fx.TokenStyle(m, electiontest.VoterID(voter), "south", voter)
	good := contestVotes[0].sels
	bp, err := p.PrecomputeBallot(rand.Reader, m.StyleIndex("north"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		voter *ecdsa.PrivateKey
		token []byte
		sels  []votecode.Selection
		code  string // election code, or "" for a selection refused by the layout
		is    error
	}{
		{"token of another style", voter, south, good[:2], election.CodeToken, nil},
		{"token of another voter", fx.Voters[1], north, good, election.CodeToken, nil},
		{"no token", voter, nil, good, election.CodeDecode, nil},
		{"too few selections", voter, north, good[:2], "", nil},
		{"too many options", voter, north, []votecode.Selection{sel(1), sel(0, 1, 2), sel(0)}, "", votecode.ErrTooMany},
		{"option out of range", voter, north, []votecode.Selection{sel(9), sel(0), sel(0)}, "", votecode.ErrOptionRange},
		{"blank with options", voter, north, []votecode.Selection{sel(1), {Options: []int{0}, Blank: true}, sel(0)}, "", votecode.ErrInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := bp.Finish(tc.voter, tc.token, tc.sels)
			if err == nil {
				t.Fatal("accepted")
			}
			if got := election.CodeOf(err); got != tc.code {
				t.Fatalf("code %q (%v), want %q", got, err, tc.code)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Fatalf("%v, want %v", err, tc.is)
			}
		})
	}
	b, o, err := bp.Finish(voter, north, good)
	if err != nil {
		t.Fatalf("the precomputation after refused input: %v", err)
	}
	if err := p.CheckBallot(b, nil); err != nil {
		t.Fatal(err)
	}
	checkOpening(t, p, b, o)
}

func TestOpeningJSONRejects(t *testing.T) {
	for _, tc := range []struct{ name, js string }{
		{"ciphertexts not a list", `{"ciphertexts":3}`},
		{"plaintext not hex", `{"ciphertexts":[{"plaintext":"xyz","nonce":"1"}]}`},
		{"nonce with a leading zero", `{"ciphertexts":[{"plaintext":"1","nonce":"01"}]}`},
		{"nonce in uppercase", `{"ciphertexts":[{"plaintext":"1","nonce":"AB"}]}`},
		{"negative plaintext", `{"ciphertexts":[{"plaintext":"-1","nonce":"1"}]}`},
		{"empty nonce", `{"ciphertexts":[{"plaintext":"1","nonce":""}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var o election.Opening
			wantCode(t, json.Unmarshal([]byte(tc.js), &o), election.CodeDecode)
		})
	}
}

// patternReader gives the byte 0x01 forever and counts what it gave: every
// value drawn from it is the same small number (in Z*_N, below 2^t), so
// each draw takes the same number of bytes, with no rejection, and the
// count measures how many values were drawn.
type patternReader struct{ n int }

func (r *patternReader) Read(b []byte) (int, error) {
	for i := range b {
		b[i] = 1
	}
	r.n += len(b)
	return len(b), nil
}

// NewBallotSelections knows the selections, so it draws nothing for the
// real branch of a proof: exactly one branch's (e_k, z_k) fewer than a
// precomputation that does not know the choice.
func TestNewBallotSelectionsSkipsRealBranches(t *testing.T) {
	_, p, _ := fixtures(t)
	voter := fx.Voters[0]
	token := fx.Token(p.Manifest, voter)
	known, unknown := &patternReader{}, &patternReader{}
	if _, err := p.NewBallotSelections(known, voter, token, []votecode.Selection{sel(1)}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.PrecomputeBallot(unknown, 0); err != nil {
		t.Fatal(err)
	}
	branch := p.Manifest.ChallengeBits/8 + p.PublicKey.ModulusLen() // e_k and z_k
	if unknown.n-known.n != branch {
		t.Fatalf("NewBallotSelections drew %d bytes, a precomputation without the choice %d: want one branch (%d bytes) fewer", known.n, unknown.n, branch)
	}
}
