package sieve

import (
	"errors"
	"fmt"
	"io"
	"math/big"

	"github.com/fabvote/fabvote/crypto/dkg/field"
	"github.com/fabvote/fabvote/crypto/dkg/shamir"
)

// Party is one trustee's side of the sieve of one prime. It holds only the
// trustee's own secrets and shares; its methods take only messages
// addressed to it (or broadcast).
type Party struct {
	params *Params
	id     int
	random io.Reader
	rho    *big.Int // ρ_i
	r      *big.Int // r_i of the lift
	nodes  []*big.Int
	rhoSum *big.Int // share of ρ = Σ ρ_k
	zero   *big.Int // share of Σ zero sharings
}

// NewParty starts trustee id (1..n) on one prime: it draws a_i, ρ_i, r_i
// and a zero sharing from random and returns the round-1 messages, one per
// trustee, and its Shape (nil for trustee 1).
func NewParty(params *Params, id int, random io.Reader) (*Party, []Dealt, *Shape, error) {
	if id < 1 || id > params.N {
		return nil, nil, nil, fmt.Errorf("sieve: trustee %d outside 1..%d", id, params.N)
	}
	s := params.scheme
	a, err := sieveFactor(params.modulus, id, random)
	if err != nil {
		return nil, nil, nil, err
	}
	p := &Party{params: params, id: id, random: random}
	if p.rho, err = field.Uniform(random, params.maskBound); err != nil {
		return nil, nil, nil, err
	}
	if p.r, err = field.Uniform(random, params.liftBound); err != nil {
		return nil, nil, nil, err
	}
	as, err := s.Deal(a, random)
	if err != nil {
		return nil, nil, nil, err
	}
	rhos, err := s.Deal(p.rho, random)
	if err != nil {
		return nil, nil, nil, err
	}
	zeros, err := s.Zero(random)
	if err != nil {
		return nil, nil, nil, err
	}
	out := make([]Dealt, params.N)
	for k := range out {
		out[k] = Dealt{From: id, To: k + 1, A: as[k].Y, Rho: rhos[k].Y, Zero: zeros[k].Y}
	}
	var shape *Shape
	if id > 1 {
		shape = &Shape{From: id, E: new(big.Int).Mod(p.b(nil), big.NewInt(16))}
	}
	return p, out, shape, nil
}

// sieveFactor draws a uniform a ∈ Z*_{M'} with a ≡ 3 (mod 16) for trustee 1
// and a ≡ 1 (mod 16) for the others: x uniform in Z*_M, M = M'/16, and
// a = x + M·k with k ≡ (c − x)·M⁻¹ (mod 16).
func sieveFactor(mp *big.Int, id int, random io.Reader) (*big.Int, error) {
	sixteen := big.NewInt(16)
	m := new(big.Int).Div(mp, sixteen)
	var x *big.Int
	for {
		var err error
		if x, err = field.Uniform(random, m); err != nil {
			return nil, err
		}
		if new(big.Int).GCD(nil, nil, x, m).Cmp(big.NewInt(1)) == 0 {
			break
		}
	}
	c := big.NewInt(1)
	if id == 1 {
		c = big.NewInt(3)
	}
	k := new(big.Int).Sub(c, x)
	k.Mul(k, new(big.Int).ModInverse(m, sixteen)).Mod(k, sixteen)
	return k.Mul(k, m).Add(k, x), nil
}

// ReceiveDeals takes the round-1 messages addressed to this trustee, one
// from every trustee, and returns its next step.
func (p *Party) ReceiveDeals(in []Dealt) (Next, error) {
	f := p.params.scheme.Field()
	p.nodes = make([]*big.Int, p.params.N)
	p.rhoSum, p.zero = new(big.Int), new(big.Int)
	err := checkInbox(p.params, p.id, in, 3, func(d Dealt) (int, int, []*big.Int) {
		return d.From, d.To, []*big.Int{d.A, d.Rho, d.Zero}
	})
	if err != nil {
		return Next{}, err
	}
	for _, d := range in {
		p.nodes[d.From-1] = d.A
		p.rhoSum = f.Add(p.rhoSum, d.Rho)
		p.zero = f.Add(p.zero, d.Zero)
	}
	return p.next()
}

// ReceiveResharings takes the sub-shares of a degree-reduction round, one
// message from every trustee, and returns the next step.
func (p *Party) ReceiveResharings(in []Resharing) (Next, error) {
	if len(p.nodes) <= 2 {
		return Next{}, errors.New("sieve: no degree reduction is due (before the deals or after the opening)")
	}
	pairs := len(p.nodes) / 2
	err := checkInbox(p.params, p.id, in, pairs, func(r Resharing) (int, int, []*big.Int) {
		return r.From, r.To, r.Subs
	})
	if err != nil {
		return Next{}, err
	}
	next := make([]*big.Int, 0, (len(p.nodes)+1)/2)
	for j := range pairs {
		received := make([]shamir.Share, len(in))
		for k, r := range in {
			received[k] = shamir.Share{X: r.From, Y: r.Subs[j]}
		}
		y, err := p.params.scheme.Recombine(received)
		if err != nil {
			return Next{}, err
		}
		next = append(next, y)
	}
	if len(p.nodes)%2 == 1 {
		next = append(next, p.nodes[len(p.nodes)-1])
	}
	p.nodes = next
	return p.next()
}
