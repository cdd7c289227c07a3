package sieve

import (
	"fmt"
	"io"
	"math/big"
)

// ModulusParty is one trustee's side of the computation of N = p·q from its
// additive shares p_i and q_i.
type ModulusParty struct {
	params *Params
	id     int
}

// NewModulusParty shares trustee id's p_i and q_i with degree t and a zero
// with degree 2t, and returns the messages, one per trustee.
func NewModulusParty(params *Params, id int, p, q *big.Int, random io.Reader) (*ModulusParty, []ModulusDealt, error) {
	if id < 1 || id > params.N {
		return nil, nil, fmt.Errorf("sieve: trustee %d outside 1..%d", id, params.N)
	}
	s := params.scheme
	for _, v := range []*big.Int{p, q} {
		if !s.Field().Contains(v) {
			return nil, nil, fmt.Errorf("sieve: trustee %d's prime share is missing or outside the field", id)
		}
	}
	ps, err := s.Deal(p, random)
	if err != nil {
		return nil, nil, err
	}
	qs, err := s.Deal(q, random)
	if err != nil {
		return nil, nil, err
	}
	zeros, err := s.Zero(random)
	if err != nil {
		return nil, nil, err
	}
	out := make([]ModulusDealt, params.N)
	for k := range out {
		out[k] = ModulusDealt{From: id, To: k + 1, P: ps[k].Y, Q: qs[k].Y, Zero: zeros[k].Y}
	}
	return &ModulusParty{params: params, id: id}, out, nil
}

// Product takes the shares addressed to this trustee, one message from
// every trustee, and returns its public share [p]·[q] + [0] of N.
func (m *ModulusParty) Product(in []ModulusDealt) (ModulusOpening, error) {
	err := checkInbox(m.params, m.id, in, 3, func(d ModulusDealt) (int, int, []*big.Int) {
		return d.From, d.To, []*big.Int{d.P, d.Q, d.Zero}
	})
	if err != nil {
		return ModulusOpening{}, err
	}
	f := m.params.scheme.Field()
	p, q, z := new(big.Int), new(big.Int), new(big.Int)
	for _, d := range in {
		p, q, z = f.Add(p, d.P), f.Add(q, d.Q), f.Add(z, d.Zero)
	}
	return ModulusOpening{From: m.id, Y: f.Add(f.Mul(p, q), z)}, nil
}

// OpenModulus interpolates N from every trustee's ModulusOpening (degree
// 2t, checked for consistency when n > 2t+1) and checks that it has
// exactly Params.Bits bits, as p·q of two primes in [1.5·2^{h−1}, 2^h)
// does.
func OpenModulus(params *Params, in []ModulusOpening) (*big.Int, error) {
	openings := make([]Opening, len(in))
	for k, o := range in {
		openings[k] = Opening(o)
	}
	n, err := openValue(params, openings, "N")
	if err != nil {
		return nil, err
	}
	if n.BitLen() != params.Bits {
		return nil, fmt.Errorf("sieve: N has %d bits, want %d", n.BitLen(), params.Bits)
	}
	return n, nil
}
