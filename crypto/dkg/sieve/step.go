package sieve

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/fabvote/fabvote/crypto/dkg/shamir"
)

// next multiplies the current product-tree nodes in pairs: while more than
// two remain it reshares the local products for a degree reduction; with
// two left it publishes the last product, masked by ρ and the zero
// sharing, as its opening of y.
func (p *Party) next() (Next, error) {
	s := p.params.scheme
	f := s.Field()
	if len(p.nodes) == 2 {
		y := f.Add(f.Add(f.Mul(p.nodes[0], p.nodes[1]), p.rhoSum), p.zero)
		return Next{Opening: &Opening{From: p.id, Y: y}}, nil
	}
	out := make([]Resharing, p.params.N)
	for k := range out {
		out[k] = Resharing{From: p.id, To: k + 1}
	}
	for j := 0; j+1 < len(p.nodes); j += 2 {
		subs, err := s.Deal(f.Mul(p.nodes[j], p.nodes[j+1]), p.random)
		if err != nil {
			return Next{}, err
		}
		for k := range out {
			out[k].Subs = append(out[k].Subs, subs[k].Y)
		}
	}
	return Next{Resharings: out}, nil
}

// OpenY interpolates y = A + ρ from every trustee's opening (degree 2t,
// checked for consistency when n > 2t+1) and checks that it is below the
// bound an honest y respects.
func OpenY(params *Params, in []Opening) (*big.Int, error) {
	y, err := openValue(params, in, "y")
	if err != nil {
		return nil, err
	}
	if y.Cmp(params.yBound) >= 0 {
		return nil, fmt.Errorf("sieve: opened y of %d bits exceeds the masked product's bound of %d bits", y.BitLen(), params.yBound.BitLen())
	}
	return y, nil
}

// openValue interpolates the value whose degree-2t shares the openings
// carry, one from every trustee, checked for consistency when n > 2t+1;
// what names it in errors.
func openValue(params *Params, in []Opening, what string) (*big.Int, error) {
	err := checkInbox(params, 0, in, 1, func(o Opening) (int, int, []*big.Int) {
		return o.From, 0, []*big.Int{o.Y}
	})
	if err != nil {
		return nil, err
	}
	shares := make([]shamir.Share, len(in))
	for k, o := range in {
		shares[k] = shamir.Share{X: o.From, Y: o.Y}
	}
	v, err := params.scheme.Reconstruct(shares, 2*params.scheme.T())
	if err != nil {
		return nil, fmt.Errorf("sieve: opening %s: %w", what, err)
	}
	return v, nil
}

// b is this trustee's additive share of A mod M': (y − ρ_1) mod M' for
// trustee 1, (−ρ_j) mod M' for the others (who do not need y).
func (p *Party) b(y *big.Int) *big.Int {
	b := new(big.Int).Neg(p.rho)
	if p.id == 1 {
		b.Add(b, y)
	}
	return b.Mod(b, p.params.modulus)
}

// Lift returns the trustee's additive share p_i of the candidate prime from
// the opened y and, for trustee 1, the Shape of every other trustee.
func (p *Party) Lift(y *big.Int, shapes []Shape) (*big.Int, error) {
	if y == nil || y.Sign() < 0 || y.Cmp(p.params.yBound) >= 0 {
		return nil, errors.New("sieve: y is missing or outside its bound")
	}
	lifted := new(big.Int).Mul(p.params.modulus, p.r)
	lifted.Add(lifted, p.b(y))
	if p.id > 1 {
		return lifted.Sub(lifted, new(big.Int).Mod(lifted, big.NewInt(16))), nil
	}
	if len(shapes) != p.params.N-1 {
		return nil, fmt.Errorf("sieve: trustee 1 has %d shapes, needs one from each of trustees 2..%d", len(shapes), p.params.N)
	}
	seen := map[int]bool{}
	for _, sh := range shapes {
		switch {
		case sh.From < 2 || sh.From > p.params.N || seen[sh.From]:
			return nil, fmt.Errorf("sieve: shape from trustee %d is unexpected or repeated", sh.From)
		case sh.E == nil || sh.E.Sign() < 0 || sh.E.Cmp(big.NewInt(16)) >= 0:
			return nil, fmt.Errorf("sieve: shape from trustee %d is not in [0, 16)", sh.From)
		}
		seen[sh.From] = true
		lifted.Add(lifted, sh.E)
	}
	return lifted.Add(lifted, p.params.offset), nil
}

// checkInbox checks the messages of one round as trustee id receives them
// (id 0: public messages, any recipient): one from each trustee 1..n,
// addressed to id, each with width field elements.
func checkInbox[M any](params *Params, id int, in []M, width int, head func(M) (from, to int, values []*big.Int)) error {
	if len(in) != params.N {
		return fmt.Errorf("sieve: %d messages, need one from each of %d trustees", len(in), params.N)
	}
	f := params.scheme.Field()
	seen := make(map[int]bool, len(in))
	for _, m := range in {
		from, to, values := head(m)
		switch {
		case from < 1 || from > params.N || seen[from]:
			return fmt.Errorf("sieve: message from trustee %d is unexpected or repeated", from)
		case id != 0 && to != id:
			return fmt.Errorf("sieve: message from trustee %d is addressed to trustee %d, not %d", from, to, id)
		case len(values) != width:
			return fmt.Errorf("sieve: message from trustee %d has %d values, want %d", from, len(values), width)
		}
		for _, v := range values {
			if !f.Contains(v) {
				return fmt.Errorf("sieve: message from trustee %d holds a value outside the field", from)
			}
		}
		seen[from] = true
	}
	return nil
}
