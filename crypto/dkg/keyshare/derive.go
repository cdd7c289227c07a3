package keyshare

import (
	"fmt"
	"math/big"

	"github.com/fabvote/fabvote/crypto/dkg/wellformed"
)

// inverse holds the public values derived from the opened γ:
// ζ = (Δ·γ)⁻¹ mod N and a, b with a·γ + b·N = 1 over the integers.
type inverse struct {
	zeta, a, b *big.Int
}

// invert checks γ (0 < γ < the honest bound, gcd(γ, N) = 1) and derives
// ζ, a and b from it.
func invert(params *Params, gamma *big.Int) (*inverse, error) {
	if gamma == nil || gamma.Sign() <= 0 || gamma.Cmp(params.gammaBound) >= 0 {
		return nil, fmt.Errorf("%w: γ is missing or outside (0, 2^%d)", ErrBadInput, params.gammaBound.BitLen())
	}
	a, b := new(big.Int), new(big.Int)
	if g := new(big.Int).GCD(a, b, gamma, params.N); g.Cmp(big.NewInt(1)) != 0 {
		return nil, fmt.Errorf("%w: gcd(γ, N) ≠ 1: the opening would factor N", ErrBadInput)
	}
	dg := new(big.Int).Mul(params.delta, gamma)
	zeta := dg.ModInverse(dg.Mod(dg, params.N), params.N)
	if zeta == nil {
		return nil, fmt.Errorf("%w: Δ·γ is not invertible mod N (N has a factor ≤ n)", ErrBadInput)
	}
	return &inverse{zeta: zeta, a: a, b: b}, nil
}

// decryptionSecret is this trustee's additive share of D = Δ·ζ·x, where
// x = m·β = γ − N·R over the integers: D_1 = Δζ(γ − N·R_1) and
// D_j = −Δζ·N·R_j. D ≡ Δζγ ≡ 1 (mod N) and D ≡ 0 (mod Δ·m).
func (p *Party) decryptionSecret(gamma *big.Int, inv *inverse) *big.Int {
	d := new(big.Int).Mul(p.params.N, p.r)
	d.Neg(d)
	if p.id == 1 {
		d.Add(d, gamma)
	}
	return d.Mul(d, new(big.Int).Mul(p.params.delta, inv.zeta))
}

// exponentShares returns the trustee's shares of the Πmod exponents:
// u_i of u = (3m+1)/4 ≡ 4⁻¹ (mod m), and E'_i of E' = a·R + b + j·m with
// j = (1 − b) mod 4. From a·γ + b·N = 1 and γ ≡ N·R (mod m),
// N·(a·R + b) ≡ 1 (mod m); with R ≡ 0 and m ≡ 1 (mod 4), E' ≡ 1 ≡ N⁻¹
// (mod 4), so E' ≡ N⁻¹ (mod φ(N)).
func (p *Party) exponentShares(inv *inverse) (*wellformed.Share, error) {
	u, err := wellformed.FourthRootShare(p.m, p.id)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadInput, err)
	}
	j := new(big.Int).Sub(big.NewInt(1), inv.b)
	j.Mod(j, big.NewInt(4))
	e := new(big.Int).Mul(inv.a, p.r)
	e.Add(e, new(big.Int).Mul(j, p.m))
	if p.id == 1 {
		e.Add(e, inv.b)
	}
	return &wellformed.Share{M: new(big.Int).Set(p.m), U: u, E: e}, nil
}
