package biprime

import (
	"errors"
	"fmt"
	"math/big"
	"sync"
)

// TrialBound is the bound of trial division: a modulus with a prime factor
// below it is refused.
const TrialBound = 1 << 20

// Errors of TrialDivide, wrapped with the offending value.
var (
	// ErrBitLength: N does not have the bit length asked for.
	ErrBitLength = errors.New("biprime: modulus has the wrong bit length")
	// ErrSmallFactor: N has a prime factor below TrialBound.
	ErrSmallFactor = errors.New("biprime: modulus has a prime factor below 2^20")
)

// smallPrimesProduct is the product of the odd primes below TrialBound
// (82,024 primes, about 1.5 Mbit), built on first use: one gcd with it
// replaces 82,024 divisions.
var smallPrimesProduct = sync.OnceValue(func() *big.Int {
	composite := make([]bool, TrialBound)
	var primes []*big.Int
	for i := 3; i < TrialBound; i += 2 {
		if composite[i] {
			continue
		}
		primes = append(primes, big.NewInt(int64(i)))
		for j := i * i; j < TrialBound; j += 2 * i {
			composite[j] = true
		}
	}
	return productTree(primes)
})

// productTree multiplies xs pairwise, level by level, so that the big
// multiplications are between numbers of similar size.
func productTree(xs []*big.Int) *big.Int {
	for len(xs) > 1 {
		next := make([]*big.Int, 0, (len(xs)+1)/2)
		for i := 0; i+1 < len(xs); i += 2 {
			next = append(next, new(big.Int).Mul(xs[i], xs[i+1]))
		}
		if len(xs)%2 == 1 {
			next = append(next, xs[len(xs)-1])
		}
		xs = next
	}
	return xs[0]
}

// TrialDivide refuses a candidate modulus N that does not have exactly bits
// bits or that has a prime factor below 2^20 (2 included). N ≤ 0 is refused
// as of the wrong length. It is public work: every trustee and every
// verifier runs it on the public N.
func TrialDivide(n *big.Int, bits int) error {
	if n.Sign() <= 0 || n.BitLen() != bits {
		return fmt.Errorf("%w: %d bits, want %d", ErrBitLength, n.BitLen(), bits)
	}
	if n.Bit(0) == 0 {
		return fmt.Errorf("%w: N is even", ErrSmallFactor)
	}
	g := new(big.Int).Mod(smallPrimesProduct(), n)
	if g.GCD(nil, nil, g, n); g.Cmp(big.NewInt(1)) != 0 {
		if g.Cmp(n) == 0 {
			return fmt.Errorf("%w: N is a product of primes below 2^20", ErrSmallFactor)
		}
		return fmt.Errorf("%w: its gcd with them is %v", ErrSmallFactor, smallest(g))
	}
	return nil
}

// smallest returns g itself when it is small enough to print, or its bit
// length.
func smallest(g *big.Int) string {
	if g.BitLen() <= 64 {
		return g.String()
	}
	return fmt.Sprintf("a %d-bit product of small primes", g.BitLen())
}
