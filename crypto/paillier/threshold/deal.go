package threshold

import (
	"crypto/rand"
	"fmt"
	"io"
	"math/big"

	"github.com/fabvote/fabvote/crypto/paillier"
)

// Deal generates a fresh modulus N of bits bits from two safe primes and deals
// it as K-of-L shares. The dealer keeps nothing: the factors, d, m and the
// polynomial are wiped (best effort; Go may have copied them) before Deal
// returns, so the full secret exists only while Deal runs. bits must be even
// and at least paillier.MinModulusBits.
func Deal(random io.Reader, bits, k, l int) (*PublicParams, []*KeyShare, error) {
	if bits%2 != 0 || bits < paillier.MinModulusBits {
		return nil, nil, fieldError(ErrInvalidParams, "bits", "%d: need an even size of at least %d", bits, paillier.MinModulusBits)
	}
	if err := checkThreshold(k, l); err != nil {
		return nil, nil, err
	}
	p, q, err := generateSafePrimePair(random, bits/2)
	if err != nil {
		return nil, nil, err
	}
	defer wipe(p, q)
	return dealFromPrimes(random, p, q, k, l, paillier.MinModulusBits)
}

// DealFromPrimes deals K-of-L shares of the key with modulus N = p·q, where
// p and q are distinct safe primes of equal bit length. It exists for tests
// and fixed vectors; the caller is responsible for forgetting p and q.
func DealFromPrimes(random io.Reader, p, q *big.Int, k, l int) (*PublicParams, []*KeyShare, error) {
	return dealFromPrimes(random, p, q, k, l, paillier.MinModulusBits)
}

// dealFromPrimes deals K-of-L shares of d, where d ≡ 0 (mod m) and
// d ≡ 1 (mod N) for N = p·q and m = p'·q', as Shamir shares s_i = f(i) of
// a random polynomial f over Z_{Nm} with f(0) = d, and publishes the
// verification keys v_i = v^(Δ·s_i) for a random generator v of the squares
// and Δ = L!. N must have at least minBits bits.
func dealFromPrimes(random io.Reader, p, q *big.Int, k, l, minBits int) (*PublicParams, []*KeyShare, error) {
	if random == nil {
		random = rand.Reader
	}
	if err := checkThreshold(k, l); err != nil {
		return nil, nil, err
	}
	if err := checkSafePrimePair(p, q); err != nil {
		return nil, nil, err
	}
	n := new(big.Int).Mul(p, q)
	if n.BitLen() < minBits {
		return nil, nil, fieldError(ErrInvalidParams, "N", "%d bits, need at least %d", n.BitLen(), minBits)
	}
	pk := &paillier.PublicKey{N: n, NSquared: new(big.Int).Mul(n, n)}
	p1 := new(big.Int).Rsh(p, 1) // p'
	q1 := new(big.Int).Rsh(q, 1) // q'
	m := new(big.Int).Mul(p1, q1)
	defer wipe(p1, q1, m)
	delta := factorial(l)
	if err := checkPairwiseCoprime(n, m, delta); err != nil {
		return nil, nil, err
	}
	nm := new(big.Int).Mul(n, m)

	// d ≡ 0 (mod m), d ≡ 1 (mod N): d = m·(m⁻¹ mod N).
	d := new(big.Int).ModInverse(m, n)
	d.Mul(d, m)
	defer wipe(d)

	coeffs, err := randomPolynomial(random, d, k, nm)
	if err != nil {
		return nil, nil, err
	}
	defer wipe(coeffs[1:]...)

	grp := newSquaresGroup(p, q)
	defer grp.wipe()
	v, err := grp.randomGenerator(random)
	if err != nil {
		return nil, nil, err
	}

	pp := &PublicParams{PublicKey: pk, K: k, L: l, V: v, VerificationKeys: make([]*big.Int, l)}
	shares := make([]*KeyShare, l)
	for i := 1; i <= l; i++ {
		s := evalPoly(coeffs, int64(i), nm)
		pp.VerificationKeys[i-1] = grp.exp(v, new(big.Int).Mul(delta, s))
		shares[i-1] = &KeyShare{Index: i, K: k, L: l, N: new(big.Int).Set(n), secret: s}
	}
	return pp, shares, nil
}

// checkSafePrimePair requires p and q to be distinct safe primes of equal
// bit length.
func checkSafePrimePair(p, q *big.Int) error {
	if p == nil || q == nil {
		return fieldError(ErrInvalidParams, "p, q", "missing")
	}
	if p.BitLen() != q.BitLen() {
		return fieldError(ErrInvalidParams, "p, q", "lengths differ (%d and %d bits)", p.BitLen(), q.BitLen())
	}
	if p.Cmp(q) == 0 {
		return fieldError(ErrInvalidParams, "p, q", "equal")
	}
	if !IsSafePrime(p) {
		return fieldError(ErrInvalidParams, "p", "not a safe prime")
	}
	if !IsSafePrime(q) {
		return fieldError(ErrInvalidParams, "q", "not a safe prime")
	}
	return nil
}

// checkPairwiseCoprime requires N, m and Δ to be pairwise coprime, which
// holds when p, q, p', q' are distinct primes larger than L.
func checkPairwiseCoprime(n, m, delta *big.Int) error {
	if new(big.Int).GCD(nil, nil, n, m).Cmp(one) != 0 {
		return fieldError(ErrInvalidParams, "p, q", "N and m = p'q' share a factor")
	}
	if new(big.Int).GCD(nil, nil, new(big.Int).Mul(n, m), delta).Cmp(one) != 0 {
		return fieldError(ErrInvalidParams, "p, q", "a factor of N·m is not larger than L")
	}
	return nil
}

// randomPolynomial returns the coefficients of
// f(X) = d + a_1 X + … + a_{K-1} X^{K-1} over Z_{Nm}, with the a_j drawn
// uniformly from Z_{Nm} in order.
func randomPolynomial(random io.Reader, d *big.Int, k int, nm *big.Int) ([]*big.Int, error) {
	coeffs := make([]*big.Int, k)
	coeffs[0] = d
	for j := 1; j < k; j++ {
		a, err := rand.Int(random, nm)
		if err != nil {
			wipe(coeffs[1:j]...) // the secret coefficients drawn so far
			return nil, fmt.Errorf("threshold: deal: reading randomness: %w", err)
		}
		coeffs[j] = a
	}
	return coeffs, nil
}

// evalPoly returns f(x) mod mod by Horner's rule.
func evalPoly(coeffs []*big.Int, x int64, mod *big.Int) *big.Int {
	acc := new(big.Int)
	bx := big.NewInt(x)
	for j := len(coeffs) - 1; j >= 0; j-- {
		acc.Mul(acc, bx)
		acc.Add(acc, coeffs[j])
		acc.Mod(acc, mod)
	}
	return acc
}

// squaresGroup is the subgroup Q of squares of Z*_{N²}, cyclic of order
// N·m = p·q·p'·q'. The dealer knows the factors, so it exponentiates by CRT
// modulo p² and q² with exponents reduced modulo p·p' and q·q'.
type squaresGroup struct {
	p, q, p2, q2, n2 *big.Int
	ordP, ordQ       *big.Int // p·p', q·q'
	qInvP2           *big.Int // (q²)⁻¹ mod p²
	primeFactors     []*big.Int
	order            *big.Int
}

func newSquaresGroup(p, q *big.Int) *squaresGroup {
	g := &squaresGroup{p: p, q: q}
	g.p2 = new(big.Int).Mul(p, p)
	g.q2 = new(big.Int).Mul(q, q)
	g.n2 = new(big.Int).Mul(g.p2, g.q2)
	p1 := new(big.Int).Rsh(p, 1)
	q1 := new(big.Int).Rsh(q, 1)
	g.ordP = new(big.Int).Mul(p, p1)
	g.ordQ = new(big.Int).Mul(q, q1)
	g.qInvP2 = new(big.Int).ModInverse(g.q2, g.p2)
	g.order = new(big.Int).Mul(g.ordP, g.ordQ)
	g.primeFactors = []*big.Int{p, q, p1, q1}
	return g
}

func (g *squaresGroup) wipe() {
	wipe(g.p2, g.q2, g.ordP, g.ordQ, g.qInvP2, g.order)
	wipe(g.primeFactors[2:]...)
}

// exp returns x^e mod N² for x in Q.
func (g *squaresGroup) exp(x, e *big.Int) *big.Int {
	xp := new(big.Int).Exp(new(big.Int).Mod(x, g.p2), new(big.Int).Mod(e, g.ordP), g.p2)
	xq := new(big.Int).Exp(new(big.Int).Mod(x, g.q2), new(big.Int).Mod(e, g.ordQ), g.q2)
	// Garner: x = xq + q²·((xp - xq)·(q²)⁻¹ mod p²).
	h := new(big.Int).Sub(xp, xq)
	h.Mul(h, g.qInvP2)
	h.Mod(h, g.p2)
	h.Mul(h, g.q2)
	return h.Add(h, xq)
}

// randomGenerator returns a uniformly random generator of Q: the square of a
// random unit, resampled until no v^(|Q|/ℓ) is 1 for ℓ ∈ {p, q, p', q'}.
func (g *squaresGroup) randomGenerator(random io.Reader) (*big.Int, error) {
	n := new(big.Int).Mul(g.p, g.q)
	for {
		r, err := rand.Int(random, g.n2)
		if err != nil {
			return nil, fmt.Errorf("threshold: deal: reading randomness: %w", err)
		}
		if r.Sign() == 0 || new(big.Int).GCD(nil, nil, r, n).Cmp(one) != 0 {
			continue
		}
		v := r.Mul(r, r).Mod(r, g.n2)
		ok := v.Cmp(one) != 0
		for _, l := range g.primeFactors {
			if !ok {
				break
			}
			ok = g.exp(v, new(big.Int).Quo(g.order, l)).Cmp(one) != 0
		}
		if ok {
			return v, nil
		}
	}
}

// wipe overwrites the limbs of secret integers. Best effort only: math/big
// may have left copies in memory it has released.
func wipe(xs ...*big.Int) {
	for _, x := range xs {
		if x == nil {
			continue
		}
		b := x.Bits()
		clear(b)
		x.SetInt64(0)
	}
}
