package keyshare

import (
	"fmt"
	"math/big"

	"github.com/fabvote/fabvote/crypto/internal/zn"
)

// TagV is the domain-separation tag of the Feldman base V.
const TagV = "fabvote/dkg/V"

// maxCandidates bounds the search for V: a candidate is refused only when
// it shares a factor with N or squares to 1, which a real modulus makes
// negligible.
const maxCandidates = 64

// DeriveV returns the verification base V = x² mod N², x the first
// candidate of the hash stream of TagV, the ceremony, N, n, K and γ with
// gcd(x, N) = 1 and x² ≠ 1. Nobody chooses it, and it is a square in
// Z*_{N²}, as the threshold scheme's V must be.
func DeriveV(params *Params, gamma *big.Int) (*big.Int, error) {
	s := zn.NewStream(params.n2, []byte(TagV), params.Ceremony, params.N.Bytes(),
		zn.U32(params.Trustees), zn.U32(params.K), gamma.Bytes())
	one := big.NewInt(1)
	for range maxCandidates {
		x := s.Next()
		if new(big.Int).GCD(nil, nil, x, params.N).Cmp(one) != 0 {
			continue
		}
		if v := x.Exp(x, big.NewInt(2), params.n2); v.Cmp(one) != 0 {
			return v, nil
		}
	}
	return nil, fmt.Errorf("%w: no base V after %d candidates: N is degenerate", ErrBadInput, maxCandidates)
}

// commit returns the Feldman commitments V^{Δ·a_l} mod N² to the
// coefficients (a_0 = D_i may be negative).
func commit(params *Params, v *big.Int, poly []*big.Int) []*big.Int {
	c := make([]*big.Int, len(poly))
	for l, a := range poly {
		c[l] = zn.ExpSigned(v, new(big.Int).Mul(params.delta, a), params.n2)
	}
	return c
}

// evalCommitment returns ∏_l C_l^{j^l} mod N², which is V^{Δ·f(j)} for
// commitments to f. The exponents j^l are public and short.
func evalCommitment(params *Params, c []*big.Int, j int) *big.Int {
	out, jl, jb := big.NewInt(1), big.NewInt(1), big.NewInt(int64(j))
	for _, cl := range c {
		out.Mul(out, new(big.Int).Exp(cl, jl, params.n2)).Mod(out, params.n2)
		jl.Mul(jl, jb)
	}
	return out
}

// DealerError names the dealer whose sub-share or commitment a trustee
// refused: in a ceremony, the receiver's complaint against it.
type DealerError struct {
	Dealer, Receiver int
	Reason           string
}

func (e *DealerError) Error() string {
	return fmt.Sprintf("keyshare: trustee %d refuses dealer %d: %s", e.Receiver, e.Dealer, e.Reason)
}

// Unwrap makes a DealerError match ErrBadInput.
func (e *DealerError) Unwrap() error { return ErrBadInput }

// indexCommitments checks that there is exactly one commitment per dealer,
// K elements of Z*_{N²} each, and returns them by dealer (index dealer−1).
// receiver is the trustee checking them (0 for anyone), for the error.
func indexCommitments(params *Params, receiver int, commits []Commitment) ([][]*big.Int, error) {
	if len(commits) != params.Trustees {
		return nil, fmt.Errorf("%w: %d commitments, need one from each of %d dealers", ErrBadInput, len(commits), params.Trustees)
	}
	out := make([][]*big.Int, params.Trustees)
	for _, c := range commits {
		if c.From < 1 || c.From > params.Trustees || out[c.From-1] != nil {
			return nil, fmt.Errorf("%w: commitment from dealer %d is unexpected or repeated", ErrBadInput, c.From)
		}
		if len(c.C) != params.K {
			return nil, &DealerError{Dealer: c.From, Receiver: receiver, Reason: fmt.Sprintf("%d commitments, want K = %d", len(c.C), params.K)}
		}
		for l, x := range c.C {
			if x == nil || x.Sign() <= 0 || x.Cmp(params.n2) >= 0 || new(big.Int).GCD(nil, nil, x, params.N).Cmp(big.NewInt(1)) != 0 {
				return nil, &DealerError{Dealer: c.From, Receiver: receiver, Reason: fmt.Sprintf("commitment %d is not in Z*_{N²}", l)}
			}
		}
		out[c.From-1] = c.C
	}
	return out, nil
}

// VerificationKeys returns V_j = ∏_i ∏_l C_{i,l}^{j^l} = V^{Δ·s_j} mod N²
// for j = 1..n: anyone derives the verification keys from the broadcast
// commitments, so no trustee declares its own.
func VerificationKeys(params *Params, commits []Commitment) ([]*big.Int, error) {
	byDealer, err := indexCommitments(params, 0, commits)
	if err != nil {
		return nil, err
	}
	keys := make([]*big.Int, params.Trustees)
	for j := range keys {
		keys[j] = big.NewInt(1)
		for _, c := range byDealer {
			keys[j].Mul(keys[j], evalCommitment(params, c, j+1)).Mod(keys[j], params.n2)
		}
	}
	return keys, nil
}
