package dkgtest

import (
	"crypto/rand"
	"encoding/json"
	"flag"
	"math/big"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "regenerate testdata/primes.json")

var sizes = []int{256, 512, 1024}

// TestPrimes checks the committed primes; with -update it first writes new
// ones:
//
//	go test ./crypto/dkg/internal/dkgtest -run TestPrimes -update
func TestPrimes(t *testing.T) {
	if *update {
		writePrimes(t)
	}
	for _, bits := range sizes {
		s := PrimeSet(bits)
		for i, p := range s.Blum {
			checkPrime(t, p, bits, 3)
			for _, q := range s.Blum[:i] {
				if p.Cmp(q) == 0 {
					t.Fatalf("%d bits: Blum primes repeat", bits)
				}
			}
		}
		checkPrime(t, s.OneMod4, bits, 5)
	}
}

func checkPrime(t *testing.T, p *big.Int, bits int, residue int64) {
	t.Helper()
	if p.BitLen() != bits || p.Bit(bits-2) != 1 || !p.ProbablyPrime(32) || new(big.Int).Mod(p, big.NewInt(16)).Int64() != residue {
		t.Fatalf("%x is not a %d-bit prime ≡ %d (mod 16)", p, bits, residue)
	}
}

func writePrimes(t *testing.T) {
	f := File{Comment: "test primes only (dkgtest.PrimeSet); regenerate with go test ./crypto/dkg/internal/dkgtest -run TestPrimes -update"}
	for _, bits := range sizes {
		var s Primes
		for i := range s.Blum {
			s.Blum[i] = gen(t, bits, 3)
		}
		s.OneMod4 = gen(t, bits, 5)
		f.Sets = append(f.Sets, s)
		f.Sets[len(f.Sets)-1].Bits = bits
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("testdata/primes.json", append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	primesJSON = append(b, '\n')
}

func gen(t *testing.T, bits int, residue int64) string {
	p, err := GeneratePrime(rand.Reader, bits, residue)
	if err != nil {
		t.Fatal(err)
	}
	return p.Text(16)
}

func TestSplit(t *testing.T) {
	x := PrimeSet(256).Blum[0]
	for _, n := range []int{1, 3, 5} {
		shares := Split(rand.Reader, x, n)
		sum := new(big.Int)
		for j, s := range shares {
			sum.Add(sum, s)
			if s.Sign() < 0 {
				t.Fatalf("n=%d: share %d negative", n, j+1)
			}
			if r := new(big.Int).Mod(s, big.NewInt(16)).Int64(); j > 0 && r != 0 {
				t.Fatalf("n=%d: share %d ≡ %d (mod 16), want 0", n, j+1, r)
			}
		}
		if sum.Cmp(x) != 0 {
			t.Fatalf("n=%d: shares do not sum to x", n)
		}
		signed := SplitSigned(rand.Reader, x, n, 300)
		sum.SetInt64(0)
		for _, s := range signed {
			sum.Add(sum, s)
		}
		if sum.Cmp(x) != 0 {
			t.Fatalf("n=%d: signed shares do not sum to x", n)
		}
	}
}
