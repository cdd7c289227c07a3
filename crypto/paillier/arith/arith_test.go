package arith

import (
	"math/big"
	"testing"
)

// These run against whichever backend is compiled in (go test -tags gmp for GMP)
// and compare with math/big computed independently.

func TestExpMatchesMathBig(t *testing.T) {
	m := new(big.Int).Add(randInt(t, 4095), new(big.Int).Lsh(big.NewInt(1), 4095))
	even := new(big.Int).Lsh(m, 1)
	for _, tc := range []struct {
		name    string
		x, e, m *big.Int
	}{
		{"random 4096-bit modulus", randInt(t, 4000), randInt(t, 2048), m},
		{"x = 0", big.NewInt(0), big.NewInt(5), m},
		{"e = 0", randInt(t, 100), big.NewInt(0), m},
		{"x ≥ m", new(big.Int).Add(m, big.NewInt(3)), big.NewInt(7), m},
		{"even modulus", randInt(t, 3000), randInt(t, 300), even},
		{"m = 1", big.NewInt(5), big.NewInt(5), big.NewInt(1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := new(big.Int).Exp(tc.x, tc.e, tc.m)
			if got := Exp(tc.x, tc.e, tc.m); got.Cmp(want) != 0 {
				t.Fatalf("%s backend: Exp differs from math/big", Backend)
			}
		})
	}
}

func TestMulAllMatchesMathBig(t *testing.T) {
	m := new(big.Int).Add(randInt(t, 4095), new(big.Int).Lsh(big.NewInt(1), 4095))
	for _, n := range []int{0, 1, 5, 5000} {
		xs := make([]*big.Int, n)
		want := big.NewInt(3)
		for i := range xs {
			xs[i] = new(big.Int).Mod(randInt(t, 4096), m)
			if i == 2 {
				xs[i] = big.NewInt(1)
			}
			want.Mul(want, xs[i]).Mod(want, m)
		}
		if got := MulAll(big.NewInt(3), xs, m); got.Cmp(want) != 0 {
			t.Fatalf("%s backend, n=%d: MulAll differs from math/big", Backend, n)
		}
	}
}

func TestPanicsOnBadInput(t *testing.T) {
	m := big.NewInt(101)
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"negative exponent", func() { Exp(big.NewInt(2), big.NewInt(-1), m) }},
		{"zero modulus", func() { Exp(big.NewInt(2), big.NewInt(1), big.NewInt(0)) }},
		{"length mismatch", func() { MultiExp([]*big.Int{big.NewInt(2)}, nil, m) }},
		{"base ≥ m", func() { MultiExp([]*big.Int{big.NewInt(101)}, []*big.Int{big.NewInt(1)}, m) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			tc.f()
		})
	}
}
