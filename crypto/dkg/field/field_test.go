package field

import (
	"bytes"
	"errors"
	"math/big"
	mrand "math/rand/v2"
	"strings"
	"testing"
)

// testRand is a reproducible randomness source.
func testRand(seed byte) *mrand.ChaCha8 {
	return mrand.NewChaCha8([32]byte{seed})
}

func TestFixedPrimes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		param int
		get   func(int) (*Field, error)
		bound func(int) (*big.Int, error)
		slow  bool // re-derivation takes more than a few seconds
	}{
		{"P1", 3, P1, P1Bound, false},
		{"P1", 4, P1, P1Bound, true},
		{"P1", 5, P1, P1Bound, true},
		{"P2", 512, P2, P2Bound, false},
		{"P2", 2048, P2, P2Bound, true},
	} {
		t.Run(tc.name+"/"+itoa(tc.param), func(t *testing.T) {
			if tc.slow && testing.Short() {
				t.Skip("re-derivation is slow")
			}
			f, err := tc.get(tc.param)
			if err != nil {
				t.Fatal(err)
			}
			bound, _ := tc.bound(tc.param)
			p := f.P()
			if p.Cmp(bound) <= 0 || f.Bits() != bound.BitLen()+1 {
				t.Fatalf("P of %d bits does not exceed its bound of %d bits by one bit", f.Bits(), bound.BitLen())
			}
			if !p.ProbablyPrime(32) {
				t.Fatal("P is not prime")
			}
			if want := Derive(tc.name, tc.param, bound.BitLen()); p.Cmp(want) != 0 {
				t.Fatalf("P differs from the rule's prime by %v", new(big.Int).Sub(p, want))
			}
		})
	}
}

// TestP1Bound recomputes both of P1's constraints from the design, apart
// from P1Bound's own code.
func TestP1Bound(t *testing.T) {
	for n := MinParties; n <= MaxParties; n++ {
		bound, err := P1Bound(n)
		if err != nil {
			t.Fatal(err)
		}
		mp := big.NewInt(16)
		for l := int64(3); l <= 647; l += 2 {
			if big.NewInt(l).ProbablyPrime(1) {
				mp.Mul(mp, big.NewInt(l))
			}
		}
		nn := big.NewInt(int64(n))
		masked := new(big.Int).Exp(mp, nn, nil)
		masked.Mul(masked, nn).Lsh(masked, 129)
		product := new(big.Int).Lsh(new(big.Int).Mul(nn, nn), 2050)
		if bound.Cmp(masked) < 0 || bound.Cmp(product) < 0 {
			t.Errorf("n=%d: bound of %d bits is below a constraint", n, bound.BitLen())
		}
		if bound.Cmp(masked) != 0 && bound.Cmp(product) != 0 {
			t.Errorf("n=%d: bound is neither constraint", n)
		}
	}
}

func TestP2Bound(t *testing.T) {
	for _, tc := range []struct{ bits, want int }{{512, 1345}, {2048, 4417}, {3072, 6465}, {4096, 8513}} {
		b, err := P2Bound(tc.bits)
		if err != nil || b.BitLen() != tc.want {
			t.Errorf("P2Bound(%d) = %d bits, %v; want %d bits", tc.bits, b.BitLen(), err, tc.want)
		}
	}
}

func TestSieveModulus(t *testing.T) {
	ps := OddPrimes(MaxSievePrime)
	if len(ps) != 117 || ps[0] != 3 || ps[len(ps)-1] != 647 {
		t.Fatalf("odd primes to 647: %d of them, %v … %v", len(ps), ps[0], ps[len(ps)-1])
	}
	if got := SieveModulus(MaxSievePrime).BitLen(); got != 899 {
		t.Errorf("M' has %d bits, want 899", got)
	}
	for _, tc := range []struct {
		max  int
		want []int
	}{{2, nil}, {3, []int{3}}, {30, []int{3, 5, 7, 11, 13, 17, 19, 23, 29}}} {
		if got := OddPrimes(tc.max); !equalInts(got, tc.want) {
			t.Errorf("OddPrimes(%d) = %v, want %v", tc.max, got, tc.want)
		}
	}
	if got := SieveModulus(7); got.Int64() != 16*3*5*7 {
		t.Errorf("SieveModulus(7) = %v", got)
	}
}

func TestNextPrimeAgreesWithSearch(t *testing.T) {
	for _, start := range []*big.Int{
		big.NewInt(0), big.NewInt(2), big.NewInt(13), big.NewInt(65519), big.NewInt(65535),
		big.NewInt(65536), big.NewInt(1 << 20), new(big.Int).Lsh(big.NewInt(1), 64),
		new(big.Int).Lsh(big.NewInt(1), 300),
	} {
		for i := 0; i < 20; i++ {
			want := new(big.Int).Add(start, big.NewInt(1))
			for !want.ProbablyPrime(20) {
				want.Add(want, big.NewInt(1))
			}
			if got := NextPrime(start); got.Cmp(want) != 0 {
				t.Fatalf("NextPrime(%v) = %v, want %v", start, got, want)
			}
			start = want
		}
	}
}

func TestBadInput(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		call       func() error
	}{
		{"P1 two trustees", "2 trustees", func() error { _, err := P1(2); return err }},
		{"P1 six trustees", "6 trustees", func() error { _, err := P1(6); return err }},
		{"P2 too small", "255 bits", func() error { _, err := P2(255); return err }},
		{"P2 too large", "4097 bits", func() error { _, err := P2(4097); return err }},
		{"New nil", "missing", func() error { _, err := New(nil); return err }},
		{"New two", "not an odd prime", func() error { _, err := New(big.NewInt(2)); return err }},
		{"New even", "not an odd prime", func() error { _, err := New(big.NewInt(100)); return err }},
		{"New odd composite", "not prime", func() error { _, err := New(big.NewInt(91)); return err }},
		{"Uniform zero bound", "not positive", func() error { _, err := Uniform(testRand(1), big.NewInt(0)); return err }},
		{"Uniform nil bound", "not positive", func() error { _, err := Uniform(testRand(1), nil); return err }},
		{"Uniform short reader", "reading randomness", func() error {
			_, err := Uniform(bytes.NewReader([]byte{1}), big.NewInt(1<<20))
			return err
		}},
		{"Exp negative", "negative exponent", func() error { _, err := small(t).Exp(big.NewInt(3), big.NewInt(-1)); return err }},
		{"Inv zero", "no inverse", func() error { _, err := small(t).Inv(big.NewInt(101)); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	if _, err := small(t).Inv(big.NewInt(0)); !errors.Is(err, ErrNotInvertible) {
		t.Errorf("Inv(0): %v", err)
	}
}

func small(t *testing.T) *Field {
	f, err := New(big.NewInt(101))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// law is an identity the field must satisfy: left must equal right.
type law struct {
	name        string
	left, right *big.Int
}

func TestAlgebraLaws(t *testing.T) {
	big1, err := P1(3)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []*Field{small(t), big1} {
		r := testRand(7)
		one := big.NewInt(1)
		for i := 0; i < 50; i++ {
			a, b, c := mustRand(t, f, r), mustRand(t, f, r), mustRand(t, f, r)
			checks := []law{
				{"a+b = b+a", f.Add(a, b), f.Add(b, a)},
				{"ab = ba", f.Mul(a, b), f.Mul(b, a)},
				{"(a+b)+c = a+(b+c)", f.Add(f.Add(a, b), c), f.Add(a, f.Add(b, c))},
				{"(ab)c = a(bc)", f.Mul(f.Mul(a, b), c), f.Mul(a, f.Mul(b, c))},
				{"a(b+c) = ab+ac", f.Mul(a, f.Add(b, c)), f.Add(f.Mul(a, b), f.Mul(a, c))},
				{"a−b = a+(−b)", f.Sub(a, b), f.Add(a, f.Neg(b))},
				{"a+(−a) = 0", f.Add(a, f.Neg(a)), new(big.Int)},
				{"reduce(a−P) = a", f.Reduce(new(big.Int).Sub(a, f.P())), a},
				{"a² = a·a", mustExp(t, f, a, big.NewInt(2)), f.Mul(a, a)},
				{"a^0 = 1", mustExp(t, f, a, new(big.Int)), one},
			}
			if a.Sign() != 0 {
				inv, err := f.Inv(a)
				if err != nil {
					t.Fatal(err)
				}
				pm1 := new(big.Int).Sub(f.P(), one)
				checks = append(checks,
					law{"a·a⁻¹ = 1", f.Mul(a, inv), one},
					law{"a^(P−1) = 1", mustExp(t, f, a, pm1), one})
			}
			for _, c := range checks {
				if c.left.Cmp(c.right) != 0 || !f.Contains(c.left) {
					t.Fatalf("%d-bit field: %s fails for a=%v b=%v", f.Bits(), c.name, a, b)
				}
			}
		}
	}
}

func TestUniform(t *testing.T) {
	seen := map[int64]int{}
	r := testRand(3)
	for i := 0; i < 3000; i++ {
		x, err := Uniform(r, big.NewInt(6))
		if err != nil {
			t.Fatal(err)
		}
		seen[x.Int64()]++
	}
	for v := int64(0); v < 6; v++ {
		if seen[v] < 400 || seen[v] > 600 {
			t.Errorf("value %d drawn %d times in 3000, want about 500", v, seen[v])
		}
	}
	if len(seen) != 6 {
		t.Errorf("values drawn: %v", seen)
	}
	a, _ := Uniform(testRand(9), SieveModulus(647))
	b, _ := Uniform(testRand(9), SieveModulus(647))
	if a.Cmp(b) != 0 {
		t.Error("the same reader state gave two values")
	}
}

func mustRand(t *testing.T, f *Field, r *mrand.ChaCha8) *big.Int {
	x, err := f.Rand(r)
	if err != nil || !f.Contains(x) {
		t.Fatalf("Rand: %v, %v", x, err)
	}
	return x
}

func mustExp(t *testing.T, f *Field, a, e *big.Int) *big.Int {
	x, err := f.Exp(a, e)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func itoa(i int) string { return big.NewInt(int64(i)).String() }
