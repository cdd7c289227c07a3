package election_test

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"strings"
	"testing"
	"time"

	"github.com/fabvote/fabvote/crypto/paillier"
	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/election/electiontest"
)

func TestManifestRoundTrip(t *testing.T) {
	m := fx.Manifest("round-trip.1")
	enc, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	got, err := election.ParseManifest(enc)
	if err != nil {
		t.Fatal(err)
	}
	enc2, _ := got.Marshal()
	if !bytes.Equal(enc, enc2) {
		t.Fatal("re-encoding differs")
	}
	if !got.Start.Equal(m.Start) || !got.End.Equal(m.End) || got.Candidates[3] != m.Candidates[3] {
		t.Fatal("fields changed in the round trip")
	}
	// A non-UTC time marshals to the same canonical bytes.
	m2 := fx.Manifest("round-trip.1")
	m2.Start = m2.Start.In(time.FixedZone("X", 3600))
	enc3, _ := m2.Marshal()
	if !bytes.Equal(enc, enc3) {
		t.Fatal("time zone leaks into the canonical encoding")
	}
	p, err := election.Prepare(got)
	if err != nil || p.Ciphertexts() != 1 || len(p.Layout.Contests) != 1 || len(p.Layout.Contests[0].Statements()[0].Messages) != 4 {
		t.Fatalf("Prepare: %v", err)
	}
	if e := got.Encoding(); e.Bits != 10 || e.Candidates != 4 {
		t.Fatalf("Encoding = %+v", e)
	}
}

func TestManifestValidateRejects(t *testing.T) {
	rsaLike, _ := x509.MarshalPKIXPublicKey(&mustKey(elliptic.P384()).PublicKey)
	small := fx.Manifest("x")
	cases := []struct {
		name string
		mod  func(m *election.Manifest)
		want string // substring naming the field
	}{
		{"version", func(m *election.Manifest) { m.Version = 1 }, "version"},
		{"version 2 (no pseudonym-key commitment)", func(m *election.Manifest) { m.Version = 2 }, "version"},
		{"no channel", func(m *election.Manifest) { m.Channel = "" }, "channel"},
		{"channel with upper case", func(m *election.Manifest) { m.Channel = "Fabvote" }, "channel"},
		{"channel too long", func(m *election.Manifest) { m.Channel = strings.Repeat("c", election.MaxChannelLen+1) }, "channel"},
		{"clock skew zero", func(m *election.Manifest) { m.MaxClockSkewSeconds = 0 }, "maxClockSkewSeconds"},
		{"clock skew too large", func(m *election.Manifest) { m.MaxClockSkewSeconds = election.MaxClockSkewSeconds + 1 }, "maxClockSkewSeconds"},
		{"election id", func(m *election.Manifest) { m.ElectionID = "a b" }, "electionID"},
		{"title empty", func(m *election.Manifest) { m.Title = "" }, "title"},
		{"title control char", func(m *election.Manifest) { m.Title = "a\nb" }, "title"},
		{"one candidate", func(m *election.Manifest) { m.Candidates = m.Candidates[:1] }, "candidates"},
		{"65 candidates", func(m *election.Manifest) {
			m.Candidates = nil
			for i := 0; i < 65; i++ {
				m.Candidates = append(m.Candidates, strings.Repeat("c", i+1))
			}
		}, "candidates"},
		{"empty candidate", func(m *election.Manifest) { m.Candidates[2] = "" }, "candidates[2]"},
		{"duplicate candidate", func(m *election.Manifest) { m.Candidates[2] = m.Candidates[0] }, "candidates[2]"},
		{"max voters 0", func(m *election.Manifest) { m.MaxVoters = 0 }, "maxVoters"},
		{"2^b = max voters", func(m *election.Manifest) { m.MaxVoters = 1024 }, "encodingBits"},
		{"2^b < max voters", func(m *election.Manifest) { m.EncodingBits = 9 }, "encodingBits"},
		{"tally does not fit N", func(m *election.Manifest) {
			m.EncodingBits = 64
			m.MaxVoters = 1 << 40
			for len(m.Candidates) < 40 {
				m.Candidates = append(m.Candidates, "x"+strings.Repeat("y", len(m.Candidates)))
			}
		}, "fit"},
		{"paillier key missing", func(m *election.Manifest) { m.PaillierKey = nil }, "paillierKey"},
		{"paillier key truncated", func(m *election.Manifest) { m.PaillierKey = small.PaillierKey[:100] }, "paillierKey"},
		{"threshold garbage", func(m *election.Manifest) { m.Threshold = []byte("garbage") }, "threshold"},
		{"token key missing", func(m *election.Manifest) { m.TokenKey = nil }, "tokenKey"},
		{"token key P-384", func(m *election.Manifest) { m.TokenKey = rsaLike }, "tokenKey"},
		{"pseudonym-key commitment missing", func(m *election.Manifest) { m.PseudonymKeyCommitment = nil }, "pseudonymKeyCommitment"},
		{"pseudonym-key commitment short", func(m *election.Manifest) { m.PseudonymKeyCommitment = m.PseudonymKeyCommitment[:31] }, "pseudonymKeyCommitment"},
		{"pseudonym-key commitment long", func(m *election.Manifest) { m.PseudonymKeyCommitment = append(m.PseudonymKeyCommitment, 0) }, "pseudonymKeyCommitment"},
		{"authority empty", func(m *election.Manifest) { m.AuthorityMSP = "" }, "authorityMSP"},
		{"trustee twice", func(m *election.Manifest) { m.TrusteeMSPs = []string{"T", "T"} }, "trusteeMSPs[1]"},
		{"trustee bad chars", func(m *election.Manifest) { m.TrusteeMSPs = []string{"T\x00"} }, "trusteeMSPs[0]"},
		{"no start", func(m *election.Manifest) { m.Start = time.Time{} }, "start"},
		{"end before start", func(m *election.Manifest) { m.End = m.Start.Add(-time.Second) }, "end"},
		{"end equals start", func(m *election.Manifest) { m.End = m.Start }, "end"},
		{"challenge 64", func(m *election.Manifest) { m.ChallengeBits = 64 }, "challengeBits"},
		{"challenge 130", func(m *election.Manifest) { m.ChallengeBits = 130 }, "challengeBits"},
		{"challenge 512", func(m *election.Manifest) { m.ChallengeBits = 512 }, "challengeBits"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := fx.Manifest("x")
			tc.mod(m)
			err := m.Validate()
			wantCode(t, err, election.CodeManifest)
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not name %q", err, tc.want)
			}
			if _, err := m.Marshal(); err == nil {
				t.Fatal("Marshal accepted an invalid manifest")
			}
		})
	}
}

func mustKey(c elliptic.Curve) *ecdsa.PrivateKey {
	k, err := ecdsa.GenerateKey(c, rand.Reader)
	if err != nil {
		panic(err)
	}
	return k
}

func TestParseManifestRejects(t *testing.T) {
	good, err := fx.Manifest("p").Marshal()
	if err != nil {
		t.Fatal(err)
	}
	bad := fx.Manifest("p")
	bad.Candidates = bad.Candidates[:1]
	badJSON := jsonOf(t, bad)
	cases := []struct {
		name string
		in   []byte
		code string
	}{
		{"oversize", append(good, bytes.Repeat([]byte(" "), election.MaxManifestSize)...), election.CodeSize},
		{"empty", nil, election.CodeDecode},
		{"not json", []byte("manifest"), election.CodeDecode},
		{"unknown field", bytes.Replace(good, []byte(`{"version":3`), []byte(`{"extra":1,"version":3`), 1), election.CodeDecode},
		{"trailing value", append(append([]byte(nil), good...), []byte(`{}`)...), election.CodeDecode},
		{"trailing space", append(append([]byte(nil), good...), ' '), election.CodeDecode},
		{"leading space", append([]byte(" "), good...), election.CodeDecode},
		{"case-folded field name", bytes.Replace(good, []byte(`"title"`), []byte(`"Title"`), 1), election.CodeDecode},
		{"non-UTC time", bytes.Replace(good, []byte(`T08:00:00Z`), []byte(`T09:00:00+01:00`), 1), election.CodeDecode},
		{"invalid field value", badJSON, election.CodeManifest},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := election.ParseManifest(tc.in)
			wantCode(t, err, tc.code)
		})
	}
}

func jsonOf(t *testing.T, m *election.Manifest) []byte {
	t.Helper()
	// Marshal refuses invalid manifests; encode through a valid one and patch.
	good := fx.Manifest(m.ElectionID)
	b, err := good.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Replace(b, []byte(`"candidates":["Alice","Bob","Carol","Dave"]`), []byte(`"candidates":["Alice"]`), 1)
}

func TestThresholdManifest(t *testing.T) {
	m, pp, _ := fx.ThresholdManifest("thr", 2, 3)
	p, err := election.Prepare(m)
	if err != nil {
		t.Fatal(err)
	}
	if p.Threshold == nil || p.Threshold.K != 2 || p.Threshold.L != 3 || p.Threshold.PublicKey.N.Cmp(pp.PublicKey.N) != 0 {
		t.Fatal("threshold parameters not parsed")
	}
	// Threshold parameters for another modulus are rejected.
	sk, err := paillier.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	m.PaillierKey, _ = sk.Public().MarshalBinary()
	err = m.Validate()
	wantCode(t, err, election.CodeManifest)
	if !strings.Contains(err.Error(), "threshold") {
		t.Fatalf("error %q does not name the threshold field", err)
	}
}

// The manifest digest changes with every field but the window, which
// `election open` may still set after tokens were issued.
func TestManifestDigestBindsAllButTheWindow(t *testing.T) {
	digest := func(m *election.Manifest) [32]byte {
		p, err := election.Prepare(m)
		if err != nil {
			t.Fatal(err)
		}
		return p.ManifestDigest
	}
	base := digest(fx.Manifest("d1"))
	same := fx.Manifest("d1")
	same.Start, same.End = same.Start.Add(time.Hour), same.End.Add(2*time.Hour)
	if digest(same) != base {
		t.Fatal("moving the window changed the digest")
	}
	for name, mod := range map[string]func(m *election.Manifest){
		"election id":  func(m *election.Manifest) { m.ElectionID = "d2" },
		"channel":      func(m *election.Manifest) { m.Channel = "other" },
		"title":        func(m *election.Manifest) { m.Title = "other" },
		"candidates":   func(m *election.Manifest) { m.Candidates[0], m.Candidates[1] = m.Candidates[1], m.Candidates[0] },
		"maxVoters":    func(m *election.Manifest) { m.MaxVoters = 999 },
		"encodingBits": func(m *election.Manifest) { m.EncodingBits = 11 },
		"authority":    func(m *election.Manifest) { m.AuthorityMSP = "OtherMSP" },
		"trustees":     func(m *election.Manifest) { m.TrusteeMSPs = nil },
		"clock skew":   func(m *election.Manifest) { m.MaxClockSkewSeconds = 60 },
		"challenge":    func(m *election.Manifest) { m.ChallengeBits = 136 },
		"pseudonym-key commitment": func(m *election.Manifest) {
			m.PseudonymKeyCommitment = electiontest.CommitTo(bytes.Repeat([]byte{7}, election.PseudonymKeyLen))
		},
	} {
		m := fx.Manifest("d1")
		mod(m)
		if digest(m) == base {
			t.Errorf("changing %s did not change the digest", name)
		}
	}
}
