package keygentest

import (
	"crypto/rand"
	"encoding/json"
	"flag"
	"math/big"
	"os"
	"testing"

	"github.com/fabvote/fabvote/crypto/dkg/internal/dkgtest"
	"github.com/fabvote/fabvote/crypto/dkg/keygen"
)

var update = flag.Bool("update", false, "rewrite testdata/distributed-key.json from a fresh in-process ceremony")

// TestFile: the committed key is a ceremony result that verifies, with a
// share for every trustee that checks against it (with -update: a fresh
// ceremony is written first).
func TestFile(t *testing.T) {
	if *update {
		writeFile(t)
	}
	pub, shares, err := Key()
	if err != nil {
		t.Fatal(err)
	}
	if err := pub.Verify(); err != nil {
		t.Fatal(err)
	}
	if pub.Params.PublicKey.N.BitLen() != 2048 || pub.Params.L != 3 || pub.Params.K != 2 || len(shares) != 3 {
		t.Fatalf("N of %d bits, %d-of-%d, %d shares: want 2048 bits, 2-of-3, 3 shares", pub.Params.PublicKey.N.BitLen(), pub.Params.K, pub.Params.L, len(shares))
	}
	for _, ks := range shares {
		if err := ks.Check(pub.Params); err != nil {
			t.Errorf("trustee %d: %v", ks.Index, err)
		}
	}
}

func writeFile(t *testing.T) {
	set := dkgtest.PrimeSet(1024)
	p, q := set.Blum[0], set.Blum[1]
	ceremony := make([]byte, keygen.CeremonyIDLen)
	if _, err := rand.Read(ceremony); err != nil {
		t.Fatal(err)
	}
	n := new(big.Int).Mul(p, q)
	pub, shares, err := keygen.FinishInProcess(n, 2, dkgtest.Split(rand.Reader, p, 3), dkgtest.Split(rand.Reader, q, 3), ceremony, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Encode(pub, shares)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("testdata/distributed-key.json", append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	fileJSON = append(b, '\n')
}
