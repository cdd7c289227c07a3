package arith

import (
	"fmt"
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

func TestCoprime(t *testing.T) {
	p, q := big.NewInt(1000003), big.NewInt(998244353)
	n := new(big.Int).Mul(p, q)
	big4096 := new(big.Int).Add(randInt(t, 4095), new(big.Int).Lsh(big.NewInt(1), 4095))
	for _, tc := range []struct {
		name string
		x, n *big.Int
		want bool
	}{
		{"zero", big.NewInt(0), n, false},
		{"one", big.NewInt(1), n, true},
		{"multiple of p", new(big.Int).Mul(p, big.NewInt(77)), n, false},
		{"multiple of q above n", new(big.Int).Mul(q, new(big.Int).Add(n, big.NewInt(5))), n, false},
		{"unit", big.NewInt(2), n, true},
		{"n itself", n, n, false},
		{"x above n, unit", new(big.Int).Add(n, big.NewInt(1)), n, true},
		{"4096-bit odd modulus and 2", big.NewInt(2), new(big.Int).SetBit(big4096, 0, 1), true},
	} {
		want := new(big.Int).GCD(nil, nil, tc.x, tc.n).Cmp(big.NewInt(1)) == 0
		if want != tc.want {
			t.Fatalf("%s: table is wrong", tc.name)
		}
		if got := Coprime(tc.x, tc.n); got != tc.want {
			t.Errorf("%s backend, %s: Coprime = %v, want %v", Backend, tc.name, got, tc.want)
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
		{"ExpSecret negative exponent", func() { ExpSecret(big.NewInt(2), big.NewInt(-1), m) }},
		{"ExpSecret zero modulus", func() { ExpSecret(big.NewInt(2), big.NewInt(1), big.NewInt(0)) }},
		{"length mismatch", func() { MultiExp([]*big.Int{big.NewInt(2)}, nil, m) }},
		{"base ≥ m", func() { MultiExp([]*big.Int{big.NewInt(101)}, []*big.Int{big.NewInt(1)}, m) }},
		{"Coprime negative", func() { Coprime(big.NewInt(-1), m) }},
		{"Coprime zero modulus", func() { Coprime(big.NewInt(1), big.NewInt(0)) }},
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

// TestBackendEdgeCases compares the compiled-in backend with math/big (or,
// for MultiExp, with a product of math/big exponentiations) on the inputs
// where two implementations most often part ways: zero and one as bases,
// exponents 0 and 1, values of one word, odd and even moduli and m = 1.
// MultiExp is run with 20 bases too, because the gmp backend hands 16 or
// more bases to C and fewer to the Go code.
func TestBackendEdgeCases(t *testing.T) {
	odd := new(big.Int).Add(randInt(t, 2047), new(big.Int).Lsh(big.NewInt(1), 2047))
	odd.SetBit(odd, 0, 1)
	even := new(big.Int).SetBit(new(big.Int).Set(odd), 0, 0)
	moduli := []struct {
		name string
		m    *big.Int
	}{{"odd 2048-bit", odd}, {"even 2048-bit", even}, {"odd one word", big.NewInt(1_000_003)}, {"even one word", big.NewInt(1 << 40)}, {"m = 1", big.NewInt(1)}, {"m = 2", big.NewInt(2)}}
	for _, mod := range moduli {
		m := mod.m
		below := func(bits int) *big.Int { return new(big.Int).Mod(randInt(t, bits), m) }
		t.Run("Exp/"+mod.name, func(t *testing.T) {
			for _, tc := range []struct {
				name string
				x, e *big.Int
			}{
				{"0^0", big.NewInt(0), big.NewInt(0)},
				{"0^1", big.NewInt(0), big.NewInt(1)},
				{"1^e", big.NewInt(1), randInt(t, 2048)},
				{"x^0", below(2048), big.NewInt(0)},
				{"x^1", below(2048), big.NewInt(1)},
				{"(m-1)^2", new(big.Int).Sub(m, big.NewInt(1)), big.NewInt(2)},
				{"x ≥ m", new(big.Int).Add(m, randInt(t, 100)), randInt(t, 64)},
				{"random", below(2048), randInt(t, 2048)},
			} {
				want := new(big.Int).Exp(tc.x, tc.e, m)
				if got := Exp(tc.x, tc.e, m); got.Cmp(want) != 0 {
					t.Errorf("%s backend: %s = %v, math/big says %v", Backend, tc.name, got, want)
				}
				if got := ExpSecret(tc.x, tc.e, m); got.Cmp(want) != 0 {
					t.Errorf("ExpSecret: %s = %v, math/big says %v", tc.name, got, want)
				}
			}
		})
		for _, n := range []int{3, 20} {
			t.Run(fmt.Sprintf("MultiExp/%s/n=%d", mod.name, n), func(t *testing.T) {
				for _, special := range []string{"random", "zero bases", "one bases", "zero exponents", "one exponents", "all exponents 0"} {
					bases, exps := make([]*big.Int, n), make([]*big.Int, n)
					for i := range bases {
						bases[i], exps[i] = below(2048), randInt(t, 128)
						switch {
						case special == "zero bases" && i%3 == 0:
							bases[i] = big.NewInt(0)
						case special == "one bases" && i%2 == 0:
							bases[i] = new(big.Int).Mod(big.NewInt(1), m)
						case special == "zero exponents" && i%2 == 1:
							exps[i] = big.NewInt(0)
						case special == "one exponents" && i%2 == 0:
							exps[i] = big.NewInt(1)
						case special == "all exponents 0":
							exps[i] = big.NewInt(0)
						}
					}
					if got, want := MultiExp(bases, exps, m), naive(bases, exps, m); got.Cmp(want) != 0 {
						t.Errorf("%s backend, %s: MultiExp = %v, math/big says %v", Backend, special, got, want)
					}
				}
			})
		}
		t.Run("MulAll/"+mod.name, func(t *testing.T) {
			for _, tc := range []struct {
				name string
				acc  *big.Int
				xs   []*big.Int
			}{
				{"no values", big.NewInt(5), nil},
				{"acc = 0", big.NewInt(0), []*big.Int{below(2048), below(2048)}},
				{"a zero value", big.NewInt(1), []*big.Int{below(2048), big.NewInt(0), below(2048)}},
				{"ones", big.NewInt(1), []*big.Int{big.NewInt(1), big.NewInt(1)}},
				{"acc ≥ m", new(big.Int).Add(m, big.NewInt(7)), []*big.Int{below(2048)}},
				{"random", below(2048), []*big.Int{below(2048), below(2048), below(2048)}},
			} {
				want := new(big.Int).Mod(tc.acc, m)
				for _, x := range tc.xs {
					want.Mul(want, x).Mod(want, m)
				}
				if got := MulAll(tc.acc, tc.xs, m); got.Cmp(want) != 0 {
					t.Errorf("%s backend: MulAll %s = %v, math/big says %v", Backend, tc.name, got, want)
				}
			}
		})
	}
}
