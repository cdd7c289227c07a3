package paillier

import (
	"errors"
	"math/big"
)

// PublicKey is a Paillier public key with generator g = N+1.
// NSquared is cached because every operation works modulo N².
type PublicKey struct {
	N        *big.Int
	NSquared *big.Int
}

// NewPublicKey returns the public key for modulus n. It checks only that n is
// odd and large enough to be a real key; it cannot check that n is an RSA modulus.
func NewPublicKey(n *big.Int) (*PublicKey, error) {
	if n == nil || n.Sign() <= 0 || n.Bit(0) == 0 {
		return nil, errors.New("paillier: modulus N must be a positive odd integer")
	}
	if n.BitLen() < MinModulusBits {
		return nil, errors.New("paillier: modulus N is shorter than the minimum size")
	}
	return &PublicKey{N: new(big.Int).Set(n), NSquared: new(big.Int).Mul(n, n)}, nil
}

// MinModulusBits is the smallest modulus this package accepts for real keys.
const MinModulusBits = 2048
