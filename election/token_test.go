package election_test

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"testing"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/election/electiontest"
)

// Known answers, computed independently of this code (Python's hmac and
// hashlib over the length-prefixed fields of docs/PROTOCOL.md section 3.3).
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
	md := election.ManifestDigest([]byte(`{"version":2}`))
	if hex.EncodeToString(md[:]) != "973ca06e3b34d3d572c48797659f6f49b260cca83da2d28e7218f3762d611b19" {
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
	if td := election.TokenDigest(md, "kat-election-1", ps, pub); hex.EncodeToString(td[:]) != "1ed585c509549b39a8ce0a82aacebd86b27493ea7ed66e3dda133969d25aaaf5" {
		t.Errorf("TokenDigest = %x", td)
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
	zeroS := append(append([]byte(nil), tok[:64]...), make([]byte, 32)...)
	for _, tc := range []struct {
		name string
		in   []byte
	}{
		{"empty", nil},
		{"signature only (version 1 token)", tok[election.PseudonymLen:]},
		{"one byte short", tok[:len(tok)-1]},
		{"one byte long", append(append([]byte(nil), tok...), 0)},
		{"s = 0", zeroS},
	} {
		if _, _, err := election.ParseToken(tc.in); election.CodeOf(err) != election.CodeDecode {
			t.Errorf("%s: %v, want DECODE", tc.name, err)
		}
	}
	ps, sig, err := election.ParseToken(tok)
	if err != nil || !bytes.Equal(ps[:], tok[:32]) || !bytes.Equal(sig, tok[32:]) {
		t.Fatalf("ParseToken of a good token: %v", err)
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

func TestNewMinterRejects(t *testing.T) {
	p, err := election.Prepare(fx.Manifest("e1"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := election.NewMinter(nil, p, fx.Voters[0], electiontest.PseudonymKey); err == nil {
		t.Error("a key other than the manifest's tokenKey was accepted")
	}
	if _, err := election.NewMinter(nil, p, fx.EA, electiontest.PseudonymKey[:16]); err == nil {
		t.Error("a short pseudonym key was accepted")
	}
}

func FuzzParseToken(f *testing.F) {
	_, _, ballots := fixtures(f)
	f.Add(ballots[0].Token)
	f.Add(ballots[0].Token[election.PseudonymLen:])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		ps, sig, err := election.ParseToken(data)
		if err != nil {
			if election.CodeOf(err) != election.CodeDecode {
				t.Fatalf("error without DECODE code: %v", err)
			}
			return
		}
		// Accepted tokens are exactly pseudonym ‖ canonical signature.
		if !bytes.Equal(append(ps[:], sig...), data) {
			t.Fatal("ParseToken does not split the input exactly")
		}
	})
}
