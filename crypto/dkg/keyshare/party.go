package keyshare

import (
	"fmt"
	"io"
	"math/big"

	"github.com/fabvote/fabvote/crypto/dkg/field"
	"github.com/fabvote/fabvote/crypto/dkg/shamir"
	"github.com/fabvote/fabvote/crypto/dkg/wellformed"
)

// Party is one trustee's side of the key-share step. It holds only the
// trustee's own secrets and shares; its methods take only messages
// addressed to it (or broadcast). The rounds are NewParty, Open, Deal and
// Receive, in this order.
type Party struct {
	params *Params
	id     int
	random io.Reader
	m      *big.Int // m_i, the additive share of φ(N)/4
	beta   *big.Int // β_i
	r      *big.Int // R_i ≡ 0 (mod 4)

	poly []*big.Int        // f_i, after Deal; poly[0] = D_i
	exps *wellformed.Share // m_i, u_i, E'_i, after Deal
	v    *big.Int          // the Feldman base, after Deal
}

// NewParty starts trustee id (1..n) with its additive share m of
// m = φ(N)/4 (m_1 ≡ 1, m_j ≡ 0 (mod 4), as the sieve's shaping leaves
// them): it draws β_i and R_i and returns the first-round messages, one per
// trustee, itself included.
func NewParty(params *Params, id int, m *big.Int, random io.Reader) (*Party, []Dealt, error) {
	if id < 1 || id > params.Trustees {
		return nil, nil, fmt.Errorf("%w: trustee %d outside 1..%d", ErrBadInput, id, params.Trustees)
	}
	if m == nil {
		return nil, nil, fmt.Errorf("%w: trustee %d's share of m is missing", ErrBadInput, id)
	}
	if _, err := wellformed.FourthRootShare(m, id); err != nil { // checks m mod 4
		return nil, nil, fmt.Errorf("%w: %v", ErrBadInput, err)
	}
	p := &Party{params: params, id: id, random: random, m: new(big.Int).Set(m)}
	var err error
	if p.beta, err = field.Uniform(random, params.betaBound); err != nil {
		return nil, nil, err
	}
	if p.r, err = field.Uniform(random, new(big.Int).Rsh(params.rBound, 2)); err != nil {
		return nil, nil, err
	}
	p.r.Lsh(p.r, 2)
	out, err := p.dealFieldShares()
	if err != nil {
		return nil, nil, err
	}
	return p, out, nil
}

// dealFieldShares shares m_i, β_i, R_i with degree t and a zero with
// degree 2t over P2.
func (p *Party) dealFieldShares() ([]Dealt, error) {
	s := p.params.scheme
	var sharings [4][]shamir.Share
	for k, v := range []*big.Int{p.m, p.beta, p.r} {
		var err error
		if sharings[k], err = s.Deal(s.Field().Reduce(v), p.random); err != nil {
			return nil, err
		}
	}
	var err error
	if sharings[3], err = s.Zero(p.random); err != nil {
		return nil, err
	}
	out := make([]Dealt, p.params.Trustees)
	for k := range out {
		out[k] = Dealt{From: p.id, To: k + 1, M: sharings[0][k].Y, Beta: sharings[1][k].Y, R: sharings[2][k].Y, Zero: sharings[3][k].Y}
	}
	return out, nil
}

// Open takes the first-round messages addressed to this trustee, one from
// every trustee, and returns its public share of γ = m·β + N·R: the BGW
// product [m]·[β] (degree 2t), plus N·[R], re-randomised by [0].
func (p *Party) Open(in []Dealt) (Opening, error) {
	if err := checkDealt(p.params, p.id, in); err != nil {
		return Opening{}, err
	}
	s := p.params.scheme
	f := s.Field()
	m, beta, r, zero := new(big.Int), new(big.Int), new(big.Int), new(big.Int)
	for _, d := range in {
		m, beta, r, zero = f.Add(m, d.M), f.Add(beta, d.Beta), f.Add(r, d.R), f.Add(zero, d.Zero)
	}
	prod, err := s.MulShares(shamir.Share{X: p.id, Y: m}, shamir.Share{X: p.id, Y: beta})
	if err != nil {
		return Opening{}, err
	}
	g := f.Add(prod.Y, f.Add(f.Mul(f.Reduce(p.params.N), r), zero))
	return Opening{From: p.id, Gamma: g}, nil
}

// checkDealt requires exactly one message from every trustee, addressed to
// id, with field elements.
func checkDealt(params *Params, id int, in []Dealt) error {
	if len(in) != params.Trustees {
		return fmt.Errorf("%w: %d first-round messages, need one from each of %d trustees", ErrBadInput, len(in), params.Trustees)
	}
	f := params.scheme.Field()
	seen := make(map[int]bool, len(in))
	for _, d := range in {
		switch {
		case d.From < 1 || d.From > params.Trustees || seen[d.From]:
			return fmt.Errorf("%w: first-round message from trustee %d is unexpected or repeated", ErrBadInput, d.From)
		case d.To != id:
			return fmt.Errorf("%w: first-round message from trustee %d is addressed to trustee %d, not %d", ErrBadInput, d.From, d.To, id)
		}
		for _, v := range []*big.Int{d.M, d.Beta, d.R, d.Zero} {
			if !f.Contains(v) {
				return fmt.Errorf("%w: first-round message from trustee %d holds a value outside the field", ErrBadInput, d.From)
			}
		}
		seen[d.From] = true
	}
	return nil
}

// OpenGamma interpolates γ from every trustee's Opening (degree 2t, checked
// for consistency when n > 2t+1), requires it below the bound an honest γ
// meets and coprime to N (a common factor would factor N).
func OpenGamma(params *Params, in []Opening) (*big.Int, error) {
	if len(in) != params.Trustees {
		return nil, fmt.Errorf("%w: %d openings of γ, need one from each of %d trustees", ErrBadInput, len(in), params.Trustees)
	}
	shares := make([]shamir.Share, len(in))
	for k, o := range in {
		shares[k] = shamir.Share{X: o.From, Y: o.Gamma}
	}
	gamma, err := params.scheme.Reconstruct(shares, 2*params.scheme.T())
	if err != nil {
		return nil, fmt.Errorf("%w: opening γ: %v", ErrBadInput, err)
	}
	if _, err := invert(params, gamma); err != nil {
		return nil, err
	}
	return gamma, nil
}
