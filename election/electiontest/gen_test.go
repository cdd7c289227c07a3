package electiontest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "regenerate fixture.json (the safe primes are taken from the existing file)")

// TestGenerateFixture rewrites fixture.json with fresh P-256 keys when run
// with -update; the safe primes are kept (generating 1024-bit safe primes
// takes minutes; threshold.Deal can make new ones if ever needed).
func TestGenerateFixture(t *testing.T) {
	if !*update {
		t.Skip("run with -update to regenerate")
	}
	var ff fixtureFile
	if err := json.Unmarshal(fixtureJSON, &ff); err != nil {
		t.Fatal(err)
	}
	ff.Comment = "TEST KEYS ONLY, secrets are public. p, q: 1024-bit safe primes; ea, voters: P-256 private scalars. Regenerate: go test ./election/electiontest -run TestGenerateFixture -update"
	key := func() string {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		b, err := k.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		return hex.EncodeToString(b)
	}
	ff.EA = key()
	ff.Voters = nil
	for i := 0; i < 8; i++ {
		ff.Voters = append(ff.Voters, key())
	}
	out, err := json.MarshalIndent(&ff, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("fixture.json.tmp", append(out, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename("fixture.json.tmp", "fixture.json"); err != nil {
		t.Fatal(err)
	}
}

func TestFixtureLoads(t *testing.T) {
	f := Load()
	if f.Paillier.N.BitLen() != 2048 {
		t.Fatalf("N has %d bits, want 2048", f.Paillier.N.BitLen())
	}
	if len(f.Voters) < 4 {
		t.Fatalf("%d voters in the fixture, want at least 4", len(f.Voters))
	}
	m := f.Manifest("fixture-test")
	if err := m.Validate(); err != nil {
		t.Fatalf("fixture manifest invalid: %v", err)
	}
}
