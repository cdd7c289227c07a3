package sieve

import (
	"fmt"
	"math/big"

	"github.com/fabvote/fabvote/crypto/dkg/field"
	"github.com/fabvote/fabvote/crypto/dkg/shamir"
)

const (
	// MinBits is the smallest modulus a sieve makes (unit tests use it).
	MinBits = 512
	// liftMargin is how many bits of each half-size prime are left to the
	// lift M'·r_i and the offset: the sieve's primes stop where M' would
	// exceed 2^{bits/2 − liftMargin}. It gives odd primes to 647 for
	// N = 2048 bits and r_i at least 2^{120}/n choices.
	liftMargin = 125
)

// Params are the public parameters of a sieve, the same for every trustee.
type Params struct {
	N        int // trustees
	Bits     int // bits of the modulus N = p·q
	MaxPrime int // largest odd prime the sieve excludes

	scheme    *shamir.Scheme
	modulus   *big.Int // M'
	offset    *big.Int // O
	liftBound *big.Int // r_i < liftBound
	maskBound *big.Int // ρ_i < maskBound = 2^κ·M'^n
	yBound    *big.Int // an honest opening y = A + ρ is below n·maskBound + M'^n
}

// NewParams returns the parameters for n trustees and an N of bits bits:
// MinBits ≤ bits ≤ field.MaxModulusBits, bits even, and
// field.MinParties ≤ n ≤ field.MaxParties.
func NewParams(n, bits int) (*Params, error) {
	if bits < MinBits || bits > field.MaxModulusBits || bits%2 != 0 {
		return nil, fmt.Errorf("sieve: modulus of %d bits, need an even size from %d to %d", bits, MinBits, field.MaxModulusBits)
	}
	f, err := field.P1(n)
	if err != nil {
		return nil, fmt.Errorf("sieve: %w", err)
	}
	s, err := shamir.New(f, n, (n-1)/2)
	if err != nil {
		return nil, fmt.Errorf("sieve: %w", err)
	}
	half := bits / 2
	maxPrime := sievePrimeBound(half)
	mp := field.SieveModulus(maxPrime)
	nb := big.NewInt(int64(n))

	offset := new(big.Int).Lsh(big.NewInt(3), uint(half-2)) // 1.5·2^{h−1}
	offset.Div(offset, mp).Add(offset, big.NewInt(1)).Mul(offset, mp)
	lift := new(big.Int).Lsh(big.NewInt(1), uint(half-5))
	lift.Div(lift, new(big.Int).Mul(nb, mp))
	powN := new(big.Int).Exp(mp, nb, nil)
	mask := new(big.Int).Lsh(powN, field.Kappa)
	yBound := new(big.Int).Add(new(big.Int).Mul(nb, mask), powN)
	return &Params{
		N: n, Bits: bits, MaxPrime: maxPrime,
		scheme: s, modulus: mp, offset: offset, liftBound: lift,
		maskBound: mask, yBound: yBound,
	}, nil
}

// sievePrimeBound is the largest odd prime L ≤ field.MaxSievePrime with
// |16·∏{odd ℓ ≤ L}| ≤ half − liftMargin bits.
func sievePrimeBound(half int) int {
	best := 0
	m := big.NewInt(16)
	for _, l := range field.OddPrimes(field.MaxSievePrime) {
		m.Mul(m, big.NewInt(int64(l)))
		if m.BitLen() > half-liftMargin {
			break
		}
		best = l
	}
	return best
}

// SieveModulus returns a copy of M'.
func (p *Params) SieveModulus() *big.Int { return new(big.Int).Set(p.modulus) }

// Scheme is the Shamir scheme of the sieve: n trustees, degree ⌊(n−1)/2⌋,
// over P1(n).
func (p *Params) Scheme() *shamir.Scheme { return p.scheme }
