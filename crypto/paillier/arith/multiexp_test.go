package arith

import (
	"crypto/rand"
	"fmt"
	"math/big"
	"testing"
)

func naive(bases, exps []*big.Int, m *big.Int) *big.Int {
	acc := new(big.Int).Mod(big.NewInt(1), m)
	for i := range bases {
		acc.Mul(acc, new(big.Int).Exp(bases[i], exps[i], m)).Mod(acc, m)
	}
	return acc
}

func randInt(t testing.TB, bits int) *big.Int {
	x, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), uint(bits)))
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func TestExpMatchesNaive(t *testing.T) {
	m := new(big.Int).Add(randInt(t, 1024), new(big.Int).Lsh(big.NewInt(1), 1024))
	for _, tc := range []struct {
		n, bits int
		special string
	}{
		{1, 64, ""}, {2, 1, ""}, {4, 64, ""}, {5, 194, ""}, {64, 64, ""}, {300, 64, ""}, {130, 194, ""},
		{8, 64, "zero exponents"}, {8, 64, "zero and one bases"}, {3, 64, "mixed lengths"},
	} {
		t.Run(fmt.Sprintf("n=%d/bits=%d/%s", tc.n, tc.bits, tc.special), func(t *testing.T) {
			bases, exps := make([]*big.Int, tc.n), make([]*big.Int, tc.n)
			for i := range bases {
				bases[i] = new(big.Int).Mod(randInt(t, 1100), m)
				exps[i] = randInt(t, tc.bits)
			}
			switch tc.special {
			case "zero exponents":
				for i := range exps {
					if i%2 == 0 {
						exps[i].SetInt64(0)
					}
				}
			case "zero and one bases":
				bases[0].SetInt64(0)
				bases[1].SetInt64(1)
			case "mixed lengths":
				exps[0] = randInt(t, 3)
				exps[2] = randInt(t, 300)
			}
			if got, want := MultiExp(bases, exps, m), naive(bases, exps, m); got.Cmp(want) != 0 {
				t.Fatal("multi-exponentiation differs from the product of single exponentiations")
			}
		})
	}
	if got := MultiExp([]*big.Int{big.NewInt(7)}, []*big.Int{big.NewInt(0)}, m); got.Cmp(big.NewInt(1)) != 0 {
		t.Fatalf("x^0 = %v, want 1", got)
	}
}

func TestAlgorithmsAgree(t *testing.T) {
	m := new(big.Int).Add(randInt(t, 512), new(big.Int).Lsh(big.NewInt(1), 512))
	bases, exps := make([]*big.Int, 20), make([]*big.Int, 20)
	for i := range bases {
		bases[i] = new(big.Int).Mod(randInt(t, 600), m)
		exps[i] = randInt(t, 100)
	}
	want := naive(bases, exps, m)
	for w := 1; w <= 6; w++ {
		if straus(bases, exps, m, 100, w).Cmp(want) != 0 {
			t.Fatalf("straus w=%d wrong", w)
		}
	}
	for c := 1; c <= 10; c++ {
		if pippenger(bases, exps, m, 100, c).Cmp(want) != 0 {
			t.Fatalf("pippenger c=%d wrong", c)
		}
	}
}
