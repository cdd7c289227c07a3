package threshold

import (
	"fmt"
	"math/big"
)

// Combine verifies every partial decryption of c and, from the first K of
// them, recovers the plaintext
//
//	c' = ∏ c_i^{2 μ_i},  μ_i = Δ·∏_{j∈S, j≠i} j/(j-i),   m = L(c')·(4Δ²)⁻¹ mod N
//
// with L(x) = (x-1)/N. It is strict: a missing, malformed, duplicated or
// unverifiable partial makes it fail with a *PartialError naming the trustee,
// even when K good ones remain, because a published result must not carry a
// bad partial. Fewer than K partials is ErrTooFewPartials. To drop bad
// partials instead, filter with VerifyPartial first.
func (pp *PublicParams) Combine(c *big.Int, parts []*PartialDecryption) (*big.Int, error) {
	if err := pp.validate(0); err != nil {
		return nil, err
	}
	pk := pp.PublicKey
	if err := inZStarN2(pk, c); err != nil {
		return nil, fieldError(ErrInvalidCiphertext, "c", "%v", err)
	}
	if len(parts) < pp.K {
		return nil, fmt.Errorf("%w: got %d, need %d", ErrTooFewPartials, len(parts), pp.K)
	}
	// Cheap checks on all of them first, so a duplicate or an out-of-range
	// value is reported before any exponentiation.
	seen := make(map[int]int, len(parts))
	for pos, pd := range parts {
		if err := pp.checkPartialRanges(pd); err != nil {
			return nil, partialErr(pd, pos, err)
		}
		if first, dup := seen[pd.Index]; dup {
			return nil, partialErr(pd, pos, fmt.Errorf("%w: trustee %d also at #%d", ErrDuplicateIndex, pd.Index, first))
		}
		seen[pd.Index] = pos
	}
	c4 := new(big.Int).Exp(c, four, pk.NSquared)
	for pos, pd := range parts {
		if err := pp.verifyPartial(c, c4, pd); err != nil {
			return nil, partialErr(pd, pos, err)
		}
	}
	return pp.combine(parts[:pp.K])
}

func partialErr(pd *PartialDecryption, pos int, err error) error {
	idx := 0
	if pd != nil {
		idx = pd.Index
	}
	return &PartialError{Index: idx, Position: pos, Err: err}
}

// combine interpolates in the exponent; parts are verified and distinct.
func (pp *PublicParams) combine(parts []*PartialDecryption) (*big.Int, error) {
	n, n2 := pp.PublicKey.N, pp.PublicKey.NSquared
	delta := pp.Delta()
	pos, neg := big.NewInt(1), big.NewInt(1)
	for _, pd := range parts {
		mu, err := lagrangeTimesDelta(delta, pd.Index, parts)
		if err != nil {
			return nil, err
		}
		mu.Lsh(mu, 1) // 2μ_i
		acc := pos
		if mu.Sign() < 0 {
			acc = neg
			mu.Neg(mu)
		}
		acc.Mul(acc, new(big.Int).Exp(pd.Ci, mu, n2))
		acc.Mod(acc, n2)
	}
	if neg.ModInverse(neg, n2) == nil {
		return nil, fieldError(ErrInvalidPartial, "Ci", "product not invertible modulo N²")
	}
	cp := pos.Mul(pos, neg)
	cp.Mod(cp, n2)
	// c' = (1+N)^{4Δ² m} = 1 + 4Δ² m N (mod N²).
	cp.Sub(cp, one)
	lv, rem := new(big.Int).QuoRem(cp, n, new(big.Int))
	if rem.Sign() != 0 {
		return nil, fieldError(ErrInvalidParams, "V, VerificationKeys", "combination is not 1 mod N: the dealt key is inconsistent")
	}
	inv := new(big.Int).Mul(delta, delta)
	inv.Lsh(inv, 2)
	if inv.ModInverse(inv, n) == nil {
		return nil, fieldError(ErrInvalidParams, "PublicKey.N", "4Δ² not invertible")
	}
	lv.Mul(lv, inv)
	return lv.Mod(lv, n), nil
}

// lagrangeTimesDelta returns μ_i = Δ·∏_{j≠i} j/(j-i) over the indices of
// parts, an integer because Δ = L! is divisible by ∏ |j-i|.
func lagrangeTimesDelta(delta *big.Int, i int, parts []*PartialDecryption) (*big.Int, error) {
	num := new(big.Int).Set(delta)
	den := big.NewInt(1)
	for _, pd := range parts {
		j := pd.Index
		if j == i {
			continue
		}
		num.Mul(num, big.NewInt(int64(j)))
		den.Mul(den, big.NewInt(int64(j-i)))
	}
	mu, rem := new(big.Int).QuoRem(num, den, new(big.Int))
	if rem.Sign() != 0 {
		return nil, fmt.Errorf("%w: Lagrange coefficient of trustee %d is not an integer", ErrInvalidParams, i)
	}
	return mu, nil
}
