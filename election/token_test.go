package election_test

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/election/electiontest"
)

// Known answers, computed independently of this code (Python's hmac and
// hashlib over the length-prefixed fields of docs/PROTOCOL.md sections 3.1
// and 3.3): the pseudonym, the pseudonym-key commitment, the manifest digest
// and the token digest.
func TestPseudonymAndDigestVectors(t *testing.T) {
	key := make([]byte, 32)
	for i := range key {
		key[i] = byte(i)
	}
	for _, v := range []struct{ voterID, want string }{
		{"voter-0001", "eabfb90bb98566a94465c3398166a48c4385fecfc35bc72be8cff3c31e5bd069"},
		{"voter-0002", "d0612e32cba157957afe8873c93af609d705c8e1c172b4d9661a9f6a457b3c09"},
	} {
		got, err := election.Pseudonym(key, "kat-election-1", v.voterID)
		if err != nil || hex.EncodeToString(got[:]) != v.want {
			t.Errorf("Pseudonym(%s) = %x, %v; want %s", v.voterID, got, err, v.want)
		}
	}
	if c, err := election.PseudonymKeyCommitment(key); err != nil || hex.EncodeToString(c[:]) != "97a9d9b1eb68ae4f9e03b6a8e7fb73ae0800b2c5350cde7603940d34a026e25d" {
		t.Errorf("PseudonymKeyCommitment = %x, %v", c, err)
	}
	// Version 5 of the manifest digest (how the key was made) and version 3
	// of the token digest (the ballot style, one byte): recomputed with
	// hashlib from the formulas of sig.go and manifest.go (the script
	// reproduces the previous known answers under the old tags first).
	md := election.ManifestDigest([]byte(`{"version":5}`))
	if hex.EncodeToString(md[:]) != "3a0b02fb0f4a37dab6b54125967ebe3bd0b1d9f6bbcb41ef8b44d11eeeb9222c" {
		t.Errorf("ManifestDigest = %x", md)
	}
	var ps [election.PseudonymLen]byte
	for i := range ps {
		ps[i] = 0xab
	}
	pub := make([]byte, 65)
	pub[0] = 4
	for i := 1; i < 65; i++ {
		pub[i] = byte(i)
	}
	for _, v := range []struct {
		style byte
		want  string
	}{
		{0, "1a7bba2988edb328ab1bd191671ae9882b9a06c3952ed6f94bce479f547d81c1"},
		{1, "53e4397d3aec8d04e8d22d58eb55eb961d8bf8592c7766ab0991f3fc5359b505"},
		{5, "316d01f9001147d1a4641f2184da2ae489ba98c1ac34bb6c0b2fd8a13e5aaabe"},
	} {
		if td := election.TokenDigest(md, "kat-election-1", ps, v.style, pub); hex.EncodeToString(td[:]) != v.want {
			t.Errorf("TokenDigest(style %d) = %x, want %s", v.style, td, v.want)
		}
	}
}

func TestPseudonymRejects(t *testing.T) {
	key := electiontest.PseudonymKey
	cases := []struct {
		name              string
		key               []byte
		election, voterID string
	}{
		{"key too short", key[:31], "e1", "v"},
		{"key too long", append(append([]byte(nil), key...), 0), "e1", "v"},
		{"bad election id", key, "bad id!", "v"},
		{"empty voter id", key, "e1", ""},
		{"voter id too long", key, "e1", string(bytes.Repeat([]byte("v"), election.MaxVoterIDLen+1))},
	}
	for _, tc := range cases {
		if _, err := election.Pseudonym(tc.key, tc.election, tc.voterID); err == nil {
			t.Errorf("%s: accepted", tc.name)
		}
	}
	// The fields are length-prefixed: moving a byte between them changes it.
	a, _ := election.Pseudonym(key, "e12", "x")
	b, _ := election.Pseudonym(key, "e1", "2x")
	if a == b {
		t.Fatal("pseudonym input is not injective over (election id, voter id)")
	}
	// Another key gives another pseudonym.
	other, _ := election.NewPseudonymKey(nil)
	c, _ := election.Pseudonym(other, "e12", "x")
	if a == c {
		t.Fatal("the pseudonym does not depend on the key")
	}
}

func TestParseTokenRejects(t *testing.T) {
	_, _, ballots := fixtures(t)
	tok := ballots[0].Token
	const sigAt = election.PseudonymLen + 1
	if len(tok) != election.TokenLen || election.TokenLen != 97 {
		t.Fatalf("token of %d bytes, TokenLen %d, want 97", len(tok), election.TokenLen)
	}
	zeroS := append(append([]byte(nil), tok[:sigAt+32]...), make([]byte, 32)...)
	zeroR := append(append(append([]byte(nil), tok[:sigAt]...), make([]byte, 32)...), tok[sigAt+32:]...)
	noStyle := append(append([]byte(nil), tok[:election.PseudonymLen]...), tok[sigAt:]...)
	for _, tc := range []struct {
		name string
		in   []byte
	}{
		{"empty", nil},
		{"signature only (version 1 token)", tok[sigAt:]},
		{"pseudonym and signature, no style (version 2 token)", noStyle},
		{"one byte short", tok[:len(tok)-1]},
		{"one byte long", append(append([]byte(nil), tok...), 0)},
		{"s = 0", zeroS},
		{"r = 0", zeroR},
	} {
		if _, err := election.ParseToken(tc.in); election.CodeOf(err) != election.CodeDecode {
			t.Errorf("%s: %v, want DECODE", tc.name, err)
		}
	}
	got, err := election.ParseToken(tok)
	if err != nil || !bytes.Equal(got.Pseudonym[:], tok[:32]) || got.Style != 0 || !bytes.Equal(got.Sig, tok[sigAt:]) {
		t.Fatalf("ParseToken of a good token: %+v, %v", got, err)
	}
	// ParseToken splits; whether the election has the style is
	// VerifyToken's to say.
	styled := bytes.Clone(tok)
	styled[election.PseudonymLen] = 200
	if got, err := election.ParseToken(styled); err != nil || got.Style != 200 {
		t.Fatalf("ParseToken of a token of style 200: %+v, %v", got, err)
	}
}

// A token names its voter's ballot style, which its signature covers:
// VerifyToken refuses a style the election does not have, and a token
// whose style byte is changed to another of the election's, with TOKEN.
func TestTokenStyle(t *testing.T) {
	pub, _ := fx.Voters[0].PublicKey.Bytes()
	pseud, err := election.Pseudonym(electiontest.PseudonymKey, "styles", "voter 1")
	if err != nil {
		t.Fatal(err)
	}
	p := prepare(t, fx.ContestManifest("styles"))
	one := prepare(t, fx.Manifest("styles"))
	issue := func(p *election.Prepared, style int) []byte {
		t.Helper()
		tok, err := p.IssueToken(rand.Reader, fx.EA, pseud, style, pub)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	relabel := func(tok []byte, style byte) []byte {
		out := bytes.Clone(tok)
		out[election.PseudonymLen] = style
		return out
	}
	tok0, tok1 := issue(p, 0), issue(p, 1)
	for style, tok := range [][]byte{tok0, tok1} {
		if err := p.VerifyToken(pub, tok); err != nil {
			t.Fatalf("a token of style %d: %v", style, err)
		}
		if got, _ := election.ParseToken(tok); int(got.Style) != style {
			t.Fatalf("a token issued for style %d names style %d", style, got.Style)
		}
	}
	for _, tc := range []struct {
		name string
		p    *election.Prepared
		tok  []byte
		want string
	}{
		{"style 0 re-labelled style 1", p, relabel(tok0, 1), "does not verify"},
		{"style 1 re-labelled style 0", p, relabel(tok1, 0), "does not verify"},
		{"style 2 of 2", p, relabel(tok0, 2), "names style 2"},
		{"style 255", p, relabel(tok0, 255), "names style 255"},
		{"style 1 of an election of one style", one, relabel(issue(one, 0), 1), "names style 1"},
	} {
		err := tc.p.VerifyToken(pub, tc.tok)
		if election.CodeOf(err) != election.CodeToken || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want TOKEN containing %q", tc.name, err, tc.want)
		}
	}
	for _, style := range []int{-1, 2, 256} {
		if _, err := p.IssueToken(rand.Reader, fx.EA, pseud, style, pub); err == nil {
			t.Errorf("IssueToken accepted style %d of 2", style)
		}
	}
}

// Minter.AssignStyles gives voters their styles, which end up in their
// tokens; it refuses a style the election does not have; and in an
// election of several styles a voter without one gets no token (and uses
// no slot), while in an election of one every voter gets it.
func TestMinterAssignStyles(t *testing.T) {
	pub, _ := fx.Voters[0].PublicKey.Bytes()
	p := prepare(t, fx.ContestManifest("styles"))
	mt, err := election.NewMinter(rand.Reader, p, fx.EA, electiontest.PseudonymKey)
	if err != nil {
		t.Fatal(err)
	}
	if err := mt.AssignStyles(map[string]string{"v-north": "north", "v-east": "east"}); err == nil || !strings.Contains(err.Error(), `"east"`) {
		t.Fatalf("AssignStyles of an unknown style: %v", err)
	}
	if err := mt.AssignStyles(map[string]string{"v-north": "north", "v-south": "south"}); err != nil {
		t.Fatal(err)
	}
	for voter, want := range map[string]byte{"v-north": 0, "v-south": 1} {
		tok, err := mt.Mint(voter, pub)
		if err != nil {
			t.Fatalf("%s: %v", voter, err)
		}
		if got, _ := election.ParseToken(tok); got.Style != want {
			t.Errorf("%s: token of style %d, want %d", voter, got.Style, want)
		}
		if err := p.VerifyToken(pub, tok); err != nil {
			t.Errorf("%s: %v", voter, err)
		}
	}
	if _, err := mt.Mint("v-nowhere", pub); err == nil || !strings.Contains(err.Error(), "no ballot style") {
		t.Fatalf("a voter without a style in an election of 2: %v", err)
	}
	if mt.Issued() != 2 {
		t.Fatalf("Issued = %d after the refused voter, want 2", mt.Issued())
	}

	// An election of one style: a voter without an assignment gets it; an
	// assignment may name it, and nothing else.
	one := prepare(t, fx.Manifest("styles"))
	mt1, err := election.NewMinter(rand.Reader, one, fx.EA, electiontest.PseudonymKey)
	if err != nil {
		t.Fatal(err)
	}
	if err := mt1.AssignStyles(map[string]string{"v": "north"}); err == nil {
		t.Fatal("AssignStyles accepted a style of another election")
	}
	if err := mt1.AssignStyles(map[string]string{"v": election.OneStyleID}); err != nil {
		t.Fatal(err)
	}
	for _, voter := range []string{"v", "w"} {
		tok, err := mt1.Mint(voter, pub)
		if err != nil {
			t.Fatalf("%s: %v", voter, err)
		}
		if got, _ := election.ParseToken(tok); got.Style != 0 {
			t.Fatalf("%s: token of style %d in an election of one", voter, got.Style)
		}
	}
}

// Two tokens of one roll entry for two keys carry one pseudonym, so the two
// ballots land on one ledger key; two roll entries give two pseudonyms.
func TestMinterOnePseudonymPerVoter(t *testing.T) {
	m := fx.Manifest("e1")
	a := fx.Ballot(m, fx.Voters[0], 0)
	a2 := election.Ballot{Token: fx.TokenFor(m, electiontest.VoterID(fx.Voters[0]), fx.Voters[1])}
	if a.PseudonymHex() != a2.PseudonymHex() {
		t.Fatal("two tokens of one voter id have different pseudonyms")
	}
	if b := fx.Ballot(m, fx.Voters[1], 0); b.PseudonymHex() == a.PseudonymHex() {
		t.Fatal("two voter ids share a pseudonym")
	}
	if election.PseudonymHex(a.Token) != a.PseudonymHex() || election.PseudonymHex(a.Token[1:]) != "" {
		t.Fatal("PseudonymHex disagrees with Ballot.PseudonymHex or accepts a short token")
	}
}

// The minter issues at most maxVoters tokens: maxVoters-1 and maxVoters
// succeed, maxVoters+1 is refused and the count stays at maxVoters.
func TestMinterEnforcesMaxVoters(t *testing.T) {
	m := fx.Manifest("e1")
	m.MaxVoters = 3
	m.EncodingBits = 2
	p, err := election.Prepare(m)
	if err != nil {
		t.Fatal(err)
	}
	mt, err := election.NewMinter(rand.Reader, p, fx.EA, electiontest.PseudonymKey)
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := fx.Voters[0].PublicKey.Bytes()
	for i := uint64(1); i <= m.MaxVoters; i++ {
		tok, err := mt.Mint("voter-"+string(rune('a'+i)), pub)
		if err != nil {
			t.Fatalf("token %d of maxVoters %d refused: %v", i, m.MaxVoters, err)
		}
		if err := p.VerifyToken(pub, tok); err != nil {
			t.Fatalf("token %d does not verify: %v", i, err)
		}
	}
	if _, err := mt.Mint("voter-z", pub); !errors.Is(err, election.ErrRollFull) {
		t.Fatalf("token maxVoters+1: %v, want ErrRollFull", err)
	}
	if mt.Issued() != m.MaxVoters {
		t.Fatalf("Issued = %d after a refused token, want %d", mt.Issued(), m.MaxVoters)
	}
	// A failed mint (bad key) does not use up a slot either.
	mt2, _ := election.NewMinter(rand.Reader, p, fx.EA, electiontest.PseudonymKey)
	if _, err := mt2.Mint("v", pub[:64]); err == nil || mt2.Issued() != 0 {
		t.Fatalf("bad voter key: %v, issued %d", err, mt2.Issued())
	}
}

// A token whose durable record fails is cancelled and gives its slot back,
// so failed commits never make the Minter refuse early; a slot is held from
// the mint to the cancel, so tokens in flight count against maxVoters.
func TestMinterCancel(t *testing.T) {
	m := fx.Manifest("e1")
	m.MaxVoters = 3
	m.EncodingBits = 2
	p, err := election.Prepare(m)
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := fx.Voters[0].PublicKey.Bytes()
	for _, tc := range []struct {
		name    string
		commits string // one per token minted: o the caller's commit succeeds, x it fails and the token is cancelled
		issued  uint64
	}{
		{"every commit fails", "xxxxxxx", 0},
		{"failures among successes", "oxxoxx", 2},
		{"maxVoters successes after failures", "xxxxooo", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mt, err := election.NewMinter(rand.Reader, p, fx.EA, electiontest.PseudonymKey)
			if err != nil {
				t.Fatal(err)
			}
			// commit stands in for the registrar's bbolt transaction.
			commit := func(i int) error {
				if tc.commits[i] == 'x' {
					return errors.New("disk I/O error")
				}
				return nil
			}
			for i := range tc.commits {
				_, cancel, err := mt.MintCancelable(fmt.Sprintf("voter-%d", i), pub)
				if err != nil {
					t.Fatalf("token %d: %v", i, err)
				}
				if commit(i) != nil {
					cancel()
					cancel() // a second cancel gives back nothing more
				}
			}
			if mt.Issued() != tc.issued {
				t.Fatalf("Issued = %d, want %d", mt.Issued(), tc.issued)
			}
			for i := tc.issued; i < m.MaxVoters; i++ {
				if _, err := mt.Mint(fmt.Sprintf("late-%d", i), pub); err != nil {
					t.Fatalf("slot %d of maxVoters %d after the failures: %v", i+1, m.MaxVoters, err)
				}
			}
			if _, err := mt.Mint("one-too-many", pub); !errors.Is(err, election.ErrRollFull) {
				t.Fatalf("token maxVoters+1: %v, want ErrRollFull", err)
			}
		})
	}
	t.Run("tokens in flight hold their slots", func(t *testing.T) {
		mt, _ := election.NewMinter(rand.Reader, p, fx.EA, electiontest.PseudonymKey)
		var cancels []func()
		for i := range m.MaxVoters {
			_, cancel, err := mt.MintCancelable(fmt.Sprintf("pending-%d", i), pub)
			if err != nil {
				t.Fatal(err)
			}
			cancels = append(cancels, cancel)
		}
		if _, _, err := mt.MintCancelable("waiting", pub); !errors.Is(err, election.ErrRollFull) {
			t.Fatalf("a token while maxVoters are uncommitted: %v, want ErrRollFull", err)
		}
		cancels[1]()
		if _, _, err := mt.MintCancelable("waiting", pub); err != nil {
			t.Fatalf("a token after one in flight was cancelled: %v", err)
		}
	})
}

// NewMinter, through which every issuing path builds its issuer, refuses
// an authority key other than the manifest's and a pseudonym key other than
// the one the manifest commits to: another election's key, a key made again
// after the original was lost, or a key of the wrong length.
func TestNewMinterRejects(t *testing.T) {
	p, err := election.Prepare(fx.Manifest("e1"))
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := election.NewPseudonymKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	flipped := append([]byte(nil), electiontest.PseudonymKey...)
	flipped[31] ^= 1
	for _, tc := range []struct {
		name     string
		ea       crypto.Signer
		key      []byte
		mismatch bool // want ErrPseudonymKeyMismatch
	}{
		{"another authority key", fx.Voters[0], electiontest.PseudonymKey, false},
		{"short pseudonym key", fx.EA, electiontest.PseudonymKey[:16], false},
		{"another election's pseudonym key", fx.EA, fresh, true},
		{"pseudonym key one bit off", fx.EA, flipped, true},
	} {
		_, err := election.NewMinter(nil, p, tc.ea, tc.key)
		if err == nil {
			t.Errorf("%s: accepted", tc.name)
			continue
		}
		if got := errors.Is(err, election.ErrPseudonymKeyMismatch); got != tc.mismatch {
			t.Errorf("%s: %v (ErrPseudonymKeyMismatch: %v, want %v)", tc.name, err, got, tc.mismatch)
		}
	}
	if _, err := election.NewMinter(nil, p, fx.EA, electiontest.PseudonymKey); err != nil {
		t.Fatalf("the manifest's own keys: %v", err)
	}
	// A manifest made for fresh accepts fresh, and refuses the other key.
	m := fx.Manifest("e1")
	m.PseudonymKeyCommitment = electiontest.CommitTo(fresh)
	p2, err := election.Prepare(m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := election.NewMinter(nil, p2, fx.EA, fresh); err != nil {
		t.Fatalf("the committed key: %v", err)
	}
	if _, err := election.NewMinter(nil, p2, fx.EA, electiontest.PseudonymKey); !errors.Is(err, election.ErrPseudonymKeyMismatch) {
		t.Fatalf("the fixture's key under a manifest for another: %v", err)
	}
}

func FuzzParseToken(f *testing.F) {
	_, _, ballots := fixtures(f)
	f.Add(ballots[0].Token)
	f.Add(ballots[0].Token[election.PseudonymLen:])
	f.Add(append(bytes.Clone(ballots[0].Token[:election.PseudonymLen]), ballots[0].Token[election.PseudonymLen+1:]...))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		tok, err := election.ParseToken(data)
		if err != nil {
			if election.CodeOf(err) != election.CodeDecode {
				t.Fatalf("error without DECODE code: %v", err)
			}
			return
		}
		// Accepted tokens are exactly pseudonym ‖ style ‖ canonical signature.
		if !bytes.Equal(append(append(tok.Pseudonym[:], tok.Style), tok.Sig...), data) {
			t.Fatal("ParseToken does not split the input exactly")
		}
	})
}
