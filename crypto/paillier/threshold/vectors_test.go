package threshold

import (
	"crypto/rand"
	"encoding/json"
	"os"
	"testing"
)

// TestGenerateVectors checks the committed safe primes; with -update it first
// generates new ones and rewrites the fuzz seed corpus:
//
//	go test ./crypto/paillier/threshold -run TestGenerateVectors -update
func TestGenerateVectors(t *testing.T) {
	if *update {
		v := testVectors{Comment: "safe primes p = 2p'+1, q = 2q'+1 for tests only; regenerate with go test -run TestGenerateVectors -update"}
		for _, pp := range []*primePair{{Bits: 256}, {Bits: 1024}} {
			p, q, err := generateSafePrimePair(rand.Reader, pp.Bits)
			if err != nil {
				t.Fatal(err)
			}
			pp.P, pp.Q = p.Text(16), q.Text(16)
			if pp.Bits == 256 {
				v.Small = *pp
			} else {
				v.Large = *pp
			}
		}
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(vectorsFile, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		writeFuzzCorpus(t)
	}
	v := loadVectors(t)
	for _, tc := range []struct {
		name string
		pair primePair
	}{{"small", v.Small}, {"large", v.Large}} {
		t.Run(tc.name, func(t *testing.T) {
			p, q := tc.pair.ints(t)
			if p.Cmp(q) == 0 {
				t.Fatal("p = q")
			}
			for name, x := range map[string]interface{ BitLen() int }{"p": p, "q": q} {
				if x.BitLen() != tc.pair.Bits {
					t.Errorf("%s has %d bits, want %d", name, x.BitLen(), tc.pair.Bits)
				}
			}
			if !IsSafePrime(p) || !IsSafePrime(q) {
				t.Fatal("not safe primes")
			}
		})
	}
}
