package wellformed

import (
	"fmt"
	"math/big"
)

// Proof is a Πmod proof for one modulus and ceremony.
type Proof struct {
	W         *big.Int
	Responses [Challenges]Response
}

// Response answers one challenge y_k: x^4 ≡ (−1)^A·w^B·y_k and
// z^N ≡ y_k (mod N).
type Response struct {
	A, B bool
	X, Z *big.Int
}

// Prove returns the proof for N = pq by one holder of p and q (the dealer
// path, and tests): the trustees' computation with a single trustee. p and
// q must be distinct probable primes ≡ 3 (mod 4) with gcd(N, φ(N)) = 1.
// The factors are secret: exponents derived from them go through
// arith.ExpSecret.
func Prove(p, q *big.Int, ceremony []byte) (*Proof, error) {
	sh, n, err := singleShare(p, q)
	if err != nil {
		return nil, err
	}
	st, err := NewStatement(n, ceremony)
	if err != nil {
		return nil, err
	}
	sigmas, err := st.Sigmas(sh)
	if err != nil {
		return nil, err
	}
	a, err := st.Signs([][]*big.Int{sigmas})
	if err != nil {
		return nil, err
	}
	x, z, err := st.Roots(sh, a)
	if err != nil {
		return nil, err
	}
	return st.Assemble(a, [][]*big.Int{x}, [][]*big.Int{z})
}

// singleShare checks the factors and returns the whole exponents m, u, E as
// one trustee's share, and N.
func singleShare(p, q *big.Int) (*Share, *big.Int, error) {
	one, four := big.NewInt(1), big.NewInt(4)
	for _, c := range []struct {
		name string
		f    *big.Int
	}{{"p", p}, {"q", q}} {
		name, f := c.name, c.f
		if f == nil || f.Sign() <= 0 || !f.ProbablyPrime(20) {
			return nil, nil, fmt.Errorf("%w: %s is not a prime", ErrBadInput, name)
		}
		if f.Bit(0) != 1 || f.Bit(1) != 1 {
			return nil, nil, fmt.Errorf("%w: %s is not ≡ 3 (mod 4)", ErrBadInput, name)
		}
	}
	if p.Cmp(q) == 0 {
		return nil, nil, fmt.Errorf("%w: p = q", ErrBadInput)
	}
	n := new(big.Int).Mul(p, q)
	phi := new(big.Int).Mul(new(big.Int).Sub(p, one), new(big.Int).Sub(q, one))
	m := new(big.Int).Rsh(phi, 2)
	e := new(big.Int).ModInverse(n, phi)
	if e == nil {
		return nil, nil, fmt.Errorf("%w: gcd(N, φ(N)) ≠ 1", ErrBadInput)
	}
	u := new(big.Int).ModInverse(four, m) // m is odd for Blum primes
	return &Share{M: m, U: u, E: e}, n, nil
}
