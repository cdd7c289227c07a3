package threshold

import (
	"crypto/rand"
	"errors"
	"math/big"
	"strings"
	"testing"
)

func TestGenerateSafePrime(t *testing.T) {
	for _, bits := range []int{20, 21, 64, 127, 256, 512} {
		for range 3 {
			p, err := GenerateSafePrime(rand.Reader, bits)
			if err != nil {
				t.Fatal(err)
			}
			if p.BitLen() != bits || p.Bit(bits-2) != 1 {
				t.Fatalf("%d bits: got %d bits, second bit %d", bits, p.BitLen(), p.Bit(bits-2))
			}
			if !IsSafePrime(p) {
				t.Fatalf("%d bits: %v is not a safe prime", bits, p)
			}
		}
	}
}

func TestGenerateSafePrimeErrors(t *testing.T) {
	if _, err := GenerateSafePrime(rand.Reader, minSafeBits-1); err == nil || !strings.Contains(err.Error(), "bits") {
		t.Fatalf("too small: got %v", err)
	}
	if _, err := GenerateSafePrime(strings.NewReader("short"), 256); err == nil || !strings.Contains(err.Error(), "randomness") {
		t.Fatalf("failing reader: got %v", err)
	}
	if _, _, err := generateSafePrimePair(failingReader{}, 256); !errors.Is(err, errNoRandom) {
		t.Fatalf("pair with failing reader: got %v", err)
	}
}

var errNoRandom = errors.New("no randomness")

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errNoRandom }

func TestGenerateSafePrimePair(t *testing.T) {
	p, q, err := generateSafePrimePair(rand.Reader, 128)
	if err != nil {
		t.Fatal(err)
	}
	if p.Cmp(q) == 0 || !IsSafePrime(p) || !IsSafePrime(q) || p.BitLen() != 128 || q.BitLen() != 128 {
		t.Fatalf("bad pair %v, %v", p, q)
	}
}

func TestIsSafePrime(t *testing.T) {
	for _, tc := range []struct {
		p    int64
		want bool
	}{
		{5, true}, {7, true}, {11, true}, {23, true}, {47, true}, {59, true}, {83, true}, {107, true},
		{2, false}, {3, false}, {13, false}, {29, false}, {15, false}, {1, false}, {0, false}, {-7, false},
		{2879, true}, {2887, false},
	} {
		if got := IsSafePrime(big.NewInt(tc.p)); got != tc.want {
			t.Errorf("IsSafePrime(%d) = %v, want %v", tc.p, got, tc.want)
		}
	}
	if IsSafePrime(nil) {
		t.Error("IsSafePrime(nil) = true")
	}
}

func TestModInverseSmall(t *testing.T) {
	for _, l := range smallOddPrimes()[1:200] { // skip 3
		for _, a := range []uint64{1, 2, 6 % uint64(l), uint64(l) - 1} {
			if a == 0 {
				continue
			}
			if inv := modInverseSmall(a, uint64(l)); a*inv%uint64(l) != 1 {
				t.Fatalf("%d⁻¹ mod %d = %d is wrong", a, l, inv)
			}
		}
	}
}

// TestMarkComposites: a candidate is crossed out exactly when a sieve prime
// divides q' or 2q'+1.
func TestMarkComposites(t *testing.T) {
	primes := smallOddPrimes()
	if primes[0] != 3 || primes[len(primes)-1] >= sieveBound {
		t.Fatalf("small primes run from %d to %d", primes[0], primes[len(primes)-1])
	}
	for _, start := range []*big.Int{big.NewInt(1<<20 + 5), randBelow(t, new(big.Int).Lsh(one, 200))} {
		q0 := new(big.Int).Add(start, big.NewInt(sieveBound))
		q0.Add(q0, big.NewInt((5-new(big.Int).Mod(q0, big.NewInt(6)).Int64()+6)%6))
		dead := make([]uint64, 64) // 4096 candidates
		markComposites(q0, dead)
		live := 0
		for j := int64(0); j < 64*64; j++ {
			qp := new(big.Int).Add(q0, big.NewInt(6*j))
			p := new(big.Int).Lsh(qp, 1)
			p.Add(p, one)
			want := false
			for _, l := range primes[1:] {
				bl := big.NewInt(int64(l))
				if new(big.Int).Mod(qp, bl).Sign() == 0 || new(big.Int).Mod(p, bl).Sign() == 0 {
					want = true
					break
				}
			}
			if got := dead[j/64]&(1<<(j%64)) != 0; got != want {
				t.Fatalf("q0 = %v, j = %d: crossed out = %v, want %v", q0, j, got, want)
			}
			if !want {
				live++
			}
		}
		if live == 0 || live == 64*64 {
			t.Fatalf("%d of 4096 candidates survive: the sieve did nothing useful", live)
		}
	}
}
