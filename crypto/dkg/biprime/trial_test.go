package biprime

import (
	"errors"
	"math/big"
	"sync"
	"testing"

	"github.com/fabvote/fabvote/crypto/dkg/internal/dkgtest"
)

func TestTrialDivide(t *testing.T) {
	s := dkgtest.PrimeSet(1024)
	good := mul(s.Blum[0], s.Blum[1])
	small := dkgtest.PrimeSet(256).Blum[0]
	const largestBelow, smallestAbove = 1048573, 1048583 // primes around 2^20
	withBelow := mul(big.NewInt(largestBelow), small)
	withAbove := mul(big.NewInt(smallestAbove), small)
	for _, tc := range []struct {
		name string
		n    *big.Int
		bits int
		want error
	}{
		{"Blum biprime, 2048 bits", good, 2048, nil},
		{"prime factor just above 2^20", withAbove, withAbove.BitLen(), nil},
		{"2048-bit N asked as 2047", good, 2047, ErrBitLength},
		{"2048-bit N asked as 2049", good, 2049, ErrBitLength},
		{"zero", big.NewInt(0), 0, ErrBitLength},
		{"negative", big.NewInt(-15), 4, ErrBitLength},
		{"even", new(big.Int).Lsh(good, 1), 2049, ErrSmallFactor},
		{"factor 3", mul(big.NewInt(3), small), mul(big.NewInt(3), small).BitLen(), ErrSmallFactor},
		{"largest prime below 2^20", withBelow, withBelow.BitLen(), ErrSmallFactor},
		{"Carmichael 561 = 3·11·17", big.NewInt(561), 10, ErrSmallFactor},
		{"a small prime itself", big.NewInt(largestBelow), 20, ErrSmallFactor},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := TrialDivide(tc.n, tc.bits)
			if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}

// TestSmallPrimesProduct checks the lazily built product: the number of
// primes it holds (π(2^20) − 1 odd primes) through its exact factorisation
// would be slow, so it checks its size and a few divisibilities, from
// several goroutines at once (the first use builds it).
func TestSmallPrimesProduct(t *testing.T) {
	var wg sync.WaitGroup
	products := make([]*big.Int, 8)
	for i := range products {
		wg.Add(1)
		go func() { defer wg.Done(); products[i] = smallPrimesProduct() }()
	}
	wg.Wait()
	for _, p := range products[1:] {
		if p != products[0] {
			t.Fatal("the product was built more than once")
		}
	}
	prod := products[0]
	for _, tc := range []struct {
		d       int64
		divides bool
	}{{3, true}, {1048573, true}, {9, false}, {2, false}, {1048583, false}} {
		if r := new(big.Int).Mod(prod, big.NewInt(tc.d)); (r.Sign() == 0) != tc.divides {
			t.Errorf("%d divides the product: %v, want %v", tc.d, r.Sign() == 0, tc.divides)
		}
	}
	// Σ log2 p over the odd primes below 2^20 is ≈ 2^20 / ln 2 · (1 − small).
	if b := prod.BitLen(); b < 1_500_000 || b > 1_520_000 {
		t.Errorf("product has %d bits, want ≈ 1.51 Mbit", b)
	}
}

func BenchmarkTrialDivide2048(b *testing.B) {
	s := dkgtest.PrimeSet(1024)
	N := mul(s.Blum[0], s.Blum[1])
	smallPrimesProduct()
	for b.Loop() {
		if err := TrialDivide(N, 2048); err != nil {
			b.Fatal(err)
		}
	}
}
