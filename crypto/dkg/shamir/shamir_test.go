package shamir

import (
	"bytes"
	"errors"
	"math/big"
	mrand "math/rand/v2"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/crypto/dkg/field"
)

func testRand(seed byte) *mrand.ChaCha8 { return mrand.NewChaCha8([32]byte{seed}) }

// testFields are 2^61−1, a small field that keeps the tests fast, and P1(3),
// the one the sieve uses.
func testFields(t *testing.T) []*field.Field {
	t.Helper()
	small, err := field.New(new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 61), big.NewInt(1)))
	if err != nil {
		t.Fatal(err)
	}
	p1, err := field.P1(3)
	if err != nil {
		t.Fatal(err)
	}
	return []*field.Field{small, p1}
}

var configs = []struct{ n, t int }{{3, 1}, {4, 1}, {5, 2}}

func scheme(t *testing.T, f *field.Field, n, deg int) *Scheme {
	t.Helper()
	s, err := New(f, n, deg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// subsets lists every subset of size k of shares, in order.
func subsets(shares []Share, k int) [][]Share {
	if k == 0 {
		return [][]Share{nil}
	}
	if len(shares) < k {
		return nil
	}
	var out [][]Share
	for _, rest := range subsets(shares[1:], k-1) {
		out = append(out, append([]Share{shares[0]}, rest...))
	}
	return append(out, subsets(shares[1:], k)...)
}

func TestReconstructFromEverySubset(t *testing.T) {
	for _, f := range testFields(t) {
		for _, c := range configs {
			s := scheme(t, f, c.n, c.t)
			r := testRand(byte(c.n))
			secret, _ := f.Rand(r)
			shares, err := s.Deal(secret, r)
			if err != nil {
				t.Fatal(err)
			}
			for k := c.t + 1; k <= c.n; k++ {
				for _, sub := range subsets(shares, k) {
					got, err := s.Reconstruct(sub, c.t)
					if err != nil || got.Cmp(secret) != 0 {
						t.Fatalf("n=%d t=%d, %d shares %v: got %v, %v", c.n, c.t, k, points(sub), got, err)
					}
				}
			}
		}
	}
}

func TestWrongShare(t *testing.T) {
	f := testFields(t)[1]
	for _, c := range configs {
		s := scheme(t, f, c.n, c.t)
		r := testRand(11)
		secret, _ := f.Rand(r)
		shares, _ := s.Deal(secret, r)
		bad := append([]Share(nil), shares...)
		bad[0] = Share{X: 1, Y: f.Add(bad[0].Y, big.NewInt(1))}

		// Exactly t+1 shares: undetectable, and the value is wrong.
		got, err := s.Reconstruct(bad[:c.t+1], c.t)
		if err != nil || got.Cmp(secret) == 0 {
			t.Errorf("n=%d: t+1 shares with a wrong one gave %v, %v; want a wrong value", c.n, got, err)
		}
		// Over-determined: detected.
		if ok, err := s.Consistent(bad, c.t); ok || err != nil {
			t.Errorf("n=%d: Consistent with a wrong share = %v, %v", c.n, ok, err)
		}
		if _, err := s.Reconstruct(bad, c.t); !errors.Is(err, ErrInconsistent) {
			t.Errorf("n=%d: Reconstruct with a wrong share: %v", c.n, err)
		}
		if ok, err := s.Consistent(shares, c.t); !ok || err != nil {
			t.Errorf("n=%d: Consistent on honest shares = %v, %v", c.n, ok, err)
		}
	}
}

// bgw runs BGW multiplication for all trustees in memory: local products,
// resharing with degree t, recombination.
func bgw(t *testing.T, s *Scheme, a, b []Share, r *mrand.ChaCha8) []Share {
	t.Helper()
	received := make([][]Share, s.N()) // received[j]: sub-shares for trustee j+1
	for k := range s.N() {
		h, err := s.MulShares(a[k], b[k])
		if err != nil {
			t.Fatal(err)
		}
		subs, err := s.Deal(h.Y, r)
		if err != nil {
			t.Fatal(err)
		}
		for j, sub := range subs {
			received[j] = append(received[j], Share{X: h.X, Y: sub.Y})
		}
	}
	out := make([]Share, s.N())
	for j := range s.N() {
		y, err := s.Recombine(received[j])
		if err != nil {
			t.Fatal(err)
		}
		out[j] = Share{X: j + 1, Y: y}
	}
	return out
}

func TestBGWProduct(t *testing.T) {
	for _, f := range testFields(t) {
		for _, c := range configs {
			s := scheme(t, f, c.n, c.t)
			r := testRand(21)
			x, _ := f.Rand(r)
			y, _ := f.Rand(r)
			xs, _ := s.Deal(x, r)
			ys, _ := s.Deal(y, r)
			want := f.Mul(x, y)

			prod := bgw(t, s, xs, ys, r)
			if got, err := s.Reconstruct(prod, c.t); err != nil || got.Cmp(want) != 0 {
				t.Errorf("n=%d: reduced product %v, %v; want %v", c.n, got, err, want)
			}
			// Opened at once: products plus a zero sharing of degree 2t.
			zero, err := s.Zero(r)
			if err != nil {
				t.Fatal(err)
			}
			masked := make([]Share, c.n)
			for k := range c.n {
				h, _ := s.MulShares(xs[k], ys[k])
				masked[k] = Share{X: h.X, Y: f.Add(h.Y, zero[k].Y)}
			}
			if got, err := s.Reconstruct(masked, 2*c.t); err != nil || got.Cmp(want) != 0 {
				t.Errorf("n=%d: masked product %v, %v; want %v", c.n, got, err, want)
			}
		}
	}
}

func TestZeroSharing(t *testing.T) {
	f := testFields(t)[0]
	for _, c := range configs {
		s := scheme(t, f, c.n, c.t)
		zero, err := s.Zero(testRand(5))
		if err != nil {
			t.Fatal(err)
		}
		if got, err := s.Reconstruct(zero, 2*c.t); err != nil || got.Sign() != 0 {
			t.Errorf("n=%d: zero sharing opens to %v, %v", c.n, got, err)
		}
		// Its polynomial has degree 2t: t+1 shares do not determine it.
		if ok, _ := s.Consistent(zero, c.t); ok {
			t.Errorf("n=%d: zero sharing lies on a polynomial of degree t", c.n)
		}
	}
}

func TestBadInput(t *testing.T) {
	f := testFields(t)[0]
	s := scheme(t, f, 3, 1)
	good, _ := s.Deal(big.NewInt(5), testRand(1))
	tiny, _ := field.New(big.NewInt(3))
	wide := scheme(t, f, 3, 2) // 2t ≥ n: Shamir only
	for _, tc := range []struct {
		name, want string
		call       func() error
	}{
		{"no field", "field is missing", func() error { _, err := New(nil, 3, 1); return err }},
		{"no trustees", "0 trustees", func() error { _, err := New(f, 0, 0); return err }},
		{"negative degree", "degree -1", func() error { _, err := New(f, 3, -1); return err }},
		{"degree n", "degree 3", func() error { _, err := New(f, 3, 3); return err }},
		{"field too small", "do not fit", func() error { _, err := New(tiny, 3, 1); return err }},
		{"secret outside field", "not a field element", func() error { _, err := s.Deal(f.P(), testRand(1)); return err }},
		{"deal degree n", "degree 3", func() error { _, err := s.DealDegree(big.NewInt(1), 3, testRand(1)); return err }},
		{"short randomness", "reading randomness", func() error { _, err := s.Deal(big.NewInt(1), bytes.NewReader(nil)); return err }},
		{"zero with 2t ≥ n", "needs 2t < n", func() error { _, err := wide.Zero(testRand(1)); return err }},
		{"too few shares", "2 shares", func() error { _, err := s.Reconstruct(good[:2], 2); return err }},
		{"reconstruct degree n", "degree 3", func() error { _, err := s.Reconstruct(good, 3); return err }},
		{"point zero", "point 0 outside", func() error { _, err := s.Interpolate([]Share{{0, big.NewInt(1)}}); return err }},
		{"point above n", "point 4 outside", func() error { _, err := s.Reconstruct([]Share{good[0], {4, big.NewInt(1)}}, 1); return err }},
		{"point twice", "point 1 appears twice", func() error { _, err := s.Reconstruct([]Share{good[0], good[0]}, 1); return err }},
		{"value outside field", "value at point 2", func() error { _, err := s.Reconstruct([]Share{good[0], {2, f.P()}}, 1); return err }},
		{"nil value", "value at point 2", func() error { _, err := s.Reconstruct([]Share{good[0], {2, nil}}, 1); return err }},
		{"product of two trustees", "points 1 and 2", func() error { _, err := s.MulShares(good[0], good[1]); return err }},
		{"product outside field", "value at point 1", func() error { _, err := s.MulShares(good[0], Share{1, big.NewInt(-1)}); return err }},
		{"product with 2t ≥ n", "needs 2t < n", func() error { _, err := wide.MulShares(good[0], good[0]); return err }},
		{"recombine too few", "from 2 trustees", func() error { _, err := s.Recombine(good[:2]); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func points(shares []Share) []int {
	var xs []int
	for _, s := range shares {
		xs = append(xs, s.X)
	}
	return xs
}
