package keyshare

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/fabvote/fabvote/crypto/dkg/field"
	"github.com/fabvote/fabvote/crypto/dkg/wellformed"
	"github.com/fabvote/fabvote/crypto/internal/zn"
	"github.com/fabvote/fabvote/crypto/paillier/threshold"
)

// Deal takes the opened γ, derives the trustee's D_i, u_i and E'_i, and
// deals D_i with an integer polynomial of degree K−1: it returns the
// public Feldman commitment and the sub-shares f_i(j), one per trustee
// (itself included), each to be sent privately.
func (p *Party) Deal(gamma *big.Int) (Commitment, []SubShare, error) {
	if p.poly != nil {
		return Commitment{}, nil, errors.New("keyshare: Deal called twice")
	}
	inv, err := invert(p.params, gamma)
	if err != nil {
		return Commitment{}, nil, err
	}
	if p.exps, err = p.exponentShares(inv); err != nil {
		return Commitment{}, nil, err
	}
	v, err := DeriveV(p.params, gamma)
	if err != nil {
		return Commitment{}, nil, err
	}
	if p.poly, err = p.polynomial(p.decryptionSecret(gamma, inv)); err != nil {
		return Commitment{}, nil, err
	}
	p.v = v
	subs := make([]SubShare, p.params.Trustees)
	for k := range subs {
		subs[k] = SubShare{From: p.id, To: k + 1, Value: evalInt(p.poly, k+1)}
	}
	return Commitment{From: p.id, C: commit(p.params, v, p.poly)}, subs, nil
}

// polynomial draws f_i(X) = D_i + Σ_{l=1}^{K−1} a_l X^l with
// a_1 ∈ [A_0, A_0 + A) and a_l ∈ [0, A) for l ≥ 2: A_0 = n·2^{|D|max}
// keeps every f_i(j), j ≥ 1, positive, and A = 2^{|D|max+κ+|Δ|} hides D_i
// statistically in any K−1 values (D_i is a multiple of Δ).
func (p *Party) polynomial(d *big.Int) ([]*big.Int, error) {
	poly := make([]*big.Int, p.params.K)
	poly[0] = d
	for l := 1; l < len(poly); l++ {
		a, err := field.Uniform(p.random, p.params.coeffRange)
		if err != nil {
			return nil, err
		}
		if l == 1 {
			a.Add(a, p.params.coeffLow)
		}
		poly[l] = a
	}
	return poly, nil
}

// evalInt returns f(j) over the integers (Horner).
func evalInt(poly []*big.Int, j int) *big.Int {
	y, x := new(big.Int), big.NewInt(int64(j))
	for l := len(poly) - 1; l >= 0; l-- {
		y.Mul(y, x).Add(y, poly[l])
	}
	return y
}

// Receive checks the sub-shares addressed to this trustee, one from every
// dealer, against the dealers' commitments: V^{Δ·f_i(j)} = ∏_l C_{i,l}^{j^l}
// and f_i(j) in the honest range (positive when K ≥ 2). A refused sub-share is a
// *DealerError naming the dealer. It returns the trustee's share
// s_j = Σ_i f_i(j) as a version-2 threshold key share.
func (p *Party) Receive(commits []Commitment, in []SubShare) (*threshold.KeyShare, error) {
	if p.v == nil {
		return nil, errors.New("keyshare: Receive called before Deal")
	}
	byDealer, err := indexCommitments(p.params, p.id, commits)
	if err != nil {
		return nil, err
	}
	if len(in) != p.params.Trustees {
		return nil, fmt.Errorf("%w: %d sub-shares, need one from each of %d dealers", ErrBadInput, len(in), p.params.Trustees)
	}
	seen := make(map[int]bool, len(in))
	s := new(big.Int)
	for _, sub := range in {
		if sub.From < 1 || sub.From > p.params.Trustees || seen[sub.From] || sub.To != p.id {
			return nil, fmt.Errorf("%w: sub-share from dealer %d to trustee %d is unexpected, repeated or misaddressed", ErrBadInput, sub.From, sub.To)
		}
		seen[sub.From] = true
		if err := p.checkSubShare(byDealer[sub.From-1], sub.Value); err != nil {
			return nil, &DealerError{Dealer: sub.From, Receiver: p.id, Reason: err.Error()}
		}
		s.Add(s, sub.Value)
	}
	ks, err := threshold.NewKeyShare(p.id, p.params.K, p.params.Trustees, p.params.N, p.params.shareBits, s)
	if err != nil {
		return nil, fmt.Errorf("keyshare: trustee %d's share: %w", p.id, err)
	}
	return ks, nil
}

// checkSubShare checks one sub-share against its dealer's commitments.
func (p *Party) checkSubShare(c []*big.Int, value *big.Int) error {
	if value == nil || value.Cmp(p.params.subLow) < 0 || value.Cmp(p.params.subBound) >= 0 {
		return fmt.Errorf("sub-share is missing or outside %s", p.params.subRange())
	}
	got := zn.ExpSigned(p.v, new(big.Int).Mul(p.params.delta, value), p.params.n2)
	if got.Cmp(evalCommitment(p.params, c, p.id)) != 0 {
		return errors.New("sub-share does not match the dealer's commitments")
	}
	return nil
}

// Exponents returns the trustee's shares m_i, u_i and E'_i of the Πmod
// exponents (crypto/dkg/wellformed), available after Deal.
func (p *Party) Exponents() (*wellformed.Share, error) {
	if p.exps == nil {
		return nil, errors.New("keyshare: Exponents called before Deal")
	}
	return &wellformed.Share{M: new(big.Int).Set(p.exps.M), U: new(big.Int).Set(p.exps.U), E: new(big.Int).Set(p.exps.E)}, nil
}

// PublicParams returns the threshold parameters of the key: N, K, L = n,
// V derived from the transcript, V_j from the commitments, and ShareBits.
func PublicParams(params *Params, gamma *big.Int, commits []Commitment) (*threshold.PublicParams, error) {
	if _, err := invert(params, gamma); err != nil {
		return nil, err
	}
	v, err := DeriveV(params, gamma)
	if err != nil {
		return nil, err
	}
	keys, err := VerificationKeys(params, commits)
	if err != nil {
		return nil, err
	}
	return &threshold.PublicParams{
		PublicKey: publicKey(params.N),
		K:         params.K, L: params.Trustees,
		V: v, VerificationKeys: keys, ShareBits: params.shareBits,
	}, nil
}
