package sieve

import (
	"math/big"
	"strings"
	"testing"
)

// round1 runs NewParty for every trustee and returns the parties, the
// round-1 messages addressed to each and the shapes.
func round1(t *testing.T, pr *Params) ([]*Party, [][]Dealt, []Shape) {
	t.Helper()
	r := testRand(31)
	parties := make([]*Party, pr.N)
	inbox := make([][]Dealt, pr.N)
	var shapes []Shape
	for i := range parties {
		p, out, shape, err := NewParty(pr, i+1, r)
		if err != nil {
			t.Fatal(err)
		}
		parties[i] = p
		for _, d := range out {
			inbox[d.To-1] = append(inbox[d.To-1], d)
		}
		if shape != nil {
			shapes = append(shapes, *shape)
		}
	}
	return parties, inbox, shapes
}

// openingsOf deals v with degree 2t as every trustee's opening.
func openingsOf(t *testing.T, pr *Params, v *big.Int) []Opening {
	t.Helper()
	shares, err := pr.scheme.DealDegree(v, 2*pr.scheme.T(), testRand(2))
	if err != nil {
		t.Fatal(err)
	}
	out := make([]Opening, len(shares))
	for k, s := range shares {
		out[k] = Opening{From: s.X, Y: s.Y}
	}
	return out
}

func TestBadInput(t *testing.T) {
	pr := params(t, 3, 512)
	pr4 := params(t, 4, 512)
	parties, inbox, shapes := round1(t, pr)
	p1, p2 := parties[0], parties[1]
	outside := pr.scheme.Field().P()
	edit := func(f func([]Dealt)) []Dealt {
		in := append([]Dealt(nil), inbox[0]...)
		f(in)
		return in
	}
	inconsistent := openingsOf(t, pr4, big.NewInt(5))
	inconsistent[3].Y = new(big.Int).Add(inconsistent[3].Y, big.NewInt(1))
	for _, tc := range []struct {
		name, want string
		call       func() error
	}{
		{"two trustees", "2 trustees", func() error { _, err := NewParams(2, 512); return err }},
		{"six trustees", "6 trustees", func() error { _, err := NewParams(6, 512); return err }},
		{"modulus too small", "510 bits", func() error { _, err := NewParams(3, 510); return err }},
		{"modulus too large", "2050 bits", func() error { _, err := NewParams(3, 2050); return err }},
		{"odd modulus size", "1001 bits", func() error { _, err := NewParams(3, 1001); return err }},
		{"trustee 0", "trustee 0 outside", func() error { _, _, _, err := NewParty(pr, 0, testRand(1)); return err }},
		{"trustee n+1", "trustee 4 outside", func() error { _, _, _, err := NewParty(pr, 4, testRand(1)); return err }},
		{"deal missing", "2 messages", func() error { _, err := p1.ReceiveDeals(inbox[0][:2]); return err }},
		{"deal repeated", "trustee 1 is unexpected or repeated", func() error {
			_, err := p1.ReceiveDeals(edit(func(in []Dealt) { in[1] = in[0] }))
			return err
		}},
		{"deal for another", "addressed to trustee 2", func() error { _, err := p1.ReceiveDeals(inbox[1]); return err }},
		{"deal outside field", "outside the field", func() error {
			_, err := p1.ReceiveDeals(edit(func(in []Dealt) { in[2].Rho = outside }))
			return err
		}},
		{"deal value missing", "outside the field", func() error {
			_, err := p1.ReceiveDeals(edit(func(in []Dealt) { in[2].Zero = nil }))
			return err
		}},
		{"resharing of wrong width", "has 2 values, want 1", func() error {
			if _, err := p2.ReceiveDeals(inbox[1]); err != nil {
				return err
			}
			subs := []*big.Int{big.NewInt(1), big.NewInt(2)}
			_, err := p2.ReceiveResharings([]Resharing{{1, 2, subs}, {2, 2, subs}, {3, 2, subs}})
			return err
		}},
		{"resharing before the deals", "no degree reduction is due", func() error {
			_, err := parties[2].ReceiveResharings(nil)
			return err
		}},
		{"opening inconsistent", "do not lie on one polynomial", func() error { _, err := OpenY(pr4, inconsistent); return err }},
		{"opening above bound", "exceeds the masked product's bound", func() error { _, err := OpenY(pr, openingsOf(t, pr, pr.yBound)); return err }},
		{"y missing", "y is missing", func() error { _, err := p2.Lift(nil, shapes); return err }},
		{"shapes missing", "trustee 1 has 1 shapes", func() error { _, err := p1.Lift(big.NewInt(1), shapes[:1]); return err }},
		{"shape repeated", "trustee 2 is unexpected or repeated", func() error {
			_, err := p1.Lift(big.NewInt(1), []Shape{shapes[0], shapes[0]})
			return err
		}},
		{"shape from trustee 1", "trustee 1 is unexpected", func() error {
			_, err := p1.Lift(big.NewInt(1), []Shape{{1, big.NewInt(0)}, shapes[1]})
			return err
		}},
		{"shape out of range", "not in [0, 16)", func() error {
			_, err := p1.Lift(big.NewInt(1), []Shape{{2, big.NewInt(16)}, shapes[1]})
			return err
		}},
		{"modulus trustee 0", "trustee 0 outside", func() error {
			_, _, err := NewModulusParty(pr, 0, big.NewInt(1), big.NewInt(1), testRand(1))
			return err
		}},
		{"prime share outside field", "trustee 1's prime share", func() error {
			_, _, err := NewModulusParty(pr, 1, outside, big.NewInt(1), testRand(1))
			return err
		}},
		{"modulus of wrong size", "N has 3 bits, want 512", func() error {
			var in []ModulusOpening
			for _, o := range openingsOf(t, pr, big.NewInt(5)) {
				in = append(in, ModulusOpening(o))
			}
			_, err := OpenModulus(pr, in)
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
