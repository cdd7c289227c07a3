package election_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/election"
)

func TestCiphertextDigestIsTheLengthPrefixedHash(t *testing.T) {
	c := []byte{0x01, 0x02, 0x03}
	tag := election.CiphertextDomain
	in := append([]byte{0, 0, 0, byte(len(tag))}, tag...)
	in = append(in, 0, 0, 0, 3, 0x01, 0x02, 0x03)
	if got, want := election.CiphertextDigest(c), sha256.Sum256(in); got != want {
		t.Fatalf("CiphertextDigest = %x, want %x", got, want)
	}
	d := election.CiphertextDigest(c)
	if got, want := election.CiphertextKey("e1", c), "\x00ciphertext\x00e1\x00"+hex.EncodeToString(d[:])+"\x00"; got != want {
		t.Fatalf("CiphertextKey = %q, want %q", got, want)
	}
}

// TestBallotCiphertextsAreTheSpoiledOnes: a ballot and its spoiled form cut
// into the same ciphertexts, so they claim the same keys.
func TestBallotCiphertextsAreTheSpoiledOnes(t *testing.T) {
	f := spoiledBallot(t)
	cts, err := f.p.Ciphertexts(f.ballot)
	if err != nil {
		t.Fatal(err)
	}
	if len(cts) < 2 || len(cts) != len(f.spoiled.Ciphertexts) {
		t.Fatalf("%d ciphertexts, spoiled form %d, want as many, at least 2", len(cts), len(f.spoiled.Ciphertexts))
	}
	for i := range cts {
		if !bytes.Equal(cts[i], f.spoiled.Ciphertexts[i]) {
			t.Fatalf("ciphertext %d differs from the spoiled form's", i)
		}
	}
	for _, bad := range [][]byte{nil, f.ballot.Ciphertext[1:]} {
		b := *f.ballot
		b.Ciphertext = bad
		_, err := f.p.Ciphertexts(&b)
		wantCode(t, err, election.CodeCiphertext)
	}
}

func TestCiphertextClaimForms(t *testing.T) {
	f := spoiledBallot(t)
	for _, tc := range []struct {
		claim *election.CiphertextClaim
		want  string
	}{
		{f.ballot.CiphertextClaim(), `{"format":"fabvote/ciphertext-claim","version":1,"cast":"` + f.ballot.PseudonymHex() + `"}`},
		{f.spoiled.CiphertextClaim(), `{"format":"fabvote/ciphertext-claim","version":1,"spoiled":"` + f.spoiled.TrackerHex() + `"}`},
	} {
		js := tc.claim.Marshal()
		if string(js) != tc.want {
			t.Fatalf("claim %s, want %s", js, tc.want)
		}
		back, err := election.ParseCiphertextClaim(js)
		if err != nil || *back != *tc.claim {
			t.Fatalf("ParseCiphertextClaim(%s) = %+v, %v", js, back, err)
		}
	}
}

func TestParseCiphertextClaimRefuses(t *testing.T) {
	ps := spoiledBallot(t).ballot.PseudonymHex()
	good := `{"format":"fabvote/ciphertext-claim","version":1,"cast":"` + ps + `"}`
	for _, tc := range []struct {
		name, data, code, names string
	}{
		{"not JSON", `{"format"`, election.CodeDecode, "not one JSON object"},
		{"neither holder", strings.Replace(good, `,"cast":"`+ps+`"`, ``, 1), election.CodeDecode, "exactly one"},
		{"both holders", strings.Replace(good, `}`, `,"spoiled":"`+ps+`"}`, 1), election.CodeDecode, "exactly one"},
		{"extra key", strings.Replace(good, `"cast"`, `"x":1,"cast"`, 1), election.CodeDecode, `unknown key "x"`},
		{"missing key", strings.Replace(good, `"version":1,`, ``, 1), election.CodeDecode, `"version" is missing`},
		{"wrong format", strings.Replace(good, `ciphertext-claim`, `tracker-claim`, 1), election.CodeDecode, "format"},
		{"wrong version", strings.Replace(good, `"version":1`, `"version":2`, 1), election.CodeDecode, "version 2"},
		{"holder not a string", strings.Replace(good, `"`+ps+`"`, `7`, 1), election.CodeDecode, "ciphertext claim"},
		{"short holder", strings.Replace(good, ps, ps[2:], 1), election.CodeDecode, "hex digits"},
		{"non-hex holder", strings.Replace(good, ps, "zz"+ps[2:], 1), election.CodeDecode, "cast"},
		{"uppercase holder", strings.Replace(good, ps, strings.ToUpper(ps), 1), election.CodeDecode, "canonical"},
		{"keys out of order", `{"version":1,"format":"fabvote/ciphertext-claim","cast":"` + ps + `"}`, election.CodeDecode, "canonical"},
		{"spaces", strings.Replace(good, `,`, `, `, 1), election.CodeDecode, "canonical"},
		{"too large", good + strings.Repeat(" ", 300), election.CodeSize, "limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := election.ParseCiphertextClaim([]byte(tc.data))
			wantCode(t, err, tc.code)
			if !strings.Contains(err.Error(), tc.names) {
				t.Fatalf("error %q does not name %q", err, tc.names)
			}
		})
	}
}

// FuzzParseCiphertextClaim: the parser never panics, gives every refusal a
// code, and accepts only canonical input.
func FuzzParseCiphertextClaim(f *testing.F) {
	sf := spoiledBallot(f)
	f.Add(sf.ballot.CiphertextClaim().Marshal())
	f.Add(sf.spoiled.CiphertextClaim().Marshal())
	f.Add([]byte(`{"format":"fabvote/ciphertext-claim","version":1,"cast":"","spoiled":""}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := election.ParseCiphertextClaim(data)
		if err != nil {
			if election.CodeOf(err) == "" {
				t.Fatalf("error without a code: %v", err)
			}
			return
		}
		if !bytes.Equal(c.Marshal(), data) {
			t.Fatal("accepted a non-canonical claim")
		}
	})
}
