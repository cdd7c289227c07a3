// Package phi is the one rule by which a trustee turns its additive integer
// shares p_i, q_i of the primes of N = p·q into additive shares of
// φ(N) = (p−1)(q−1) = N − p − q + 1 and of m = φ(N)/4: trustee 1 adds the
// public N + 1, every trustee subtracts its own p_i + q_i. No trustee learns
// anything from it; each applies it to its own shares.
//
// The shares of m are integers because the sieve (crypto/dkg/sieve) shapes
// the prime shares: p ≡ q ≡ 3 (mod 16) with p_1 ≡ p, q_1 ≡ q and
// p_j ≡ q_j ≡ 0 (mod 16) for j > 1, so φ_1 ≡ 4 and φ_j ≡ 0 (mod 16), hence
// m_1 ≡ 1 and m_j ≡ 0 (mod 4). The biprimality test (crypto/dkg/biprime),
// the proof of well-formedness (crypto/dkg/wellformed) and the key shares
// use m_i as an exponent.
package phi

import (
	"errors"
	"fmt"
	"math/big"
)

// ErrBadInput: a trustee index or a share is missing or malformed.
var ErrBadInput = errors.New("phi: bad input")

// Share returns trustee i's additive share φ_i of φ(N) from its shares p, q
// of the primes: N − p_1 − q_1 + 1 for trustee 1, −p_i − q_i for the
// others. The shares are integers (negative for i > 1) and sum to φ(N).
func Share(i int, n, p, q *big.Int) (*big.Int, error) {
	if i < 1 {
		return nil, fmt.Errorf("%w: trustee %d, indices start at 1", ErrBadInput, i)
	}
	if n == nil || p == nil || q == nil {
		return nil, fmt.Errorf("%w: trustee %d: N or a prime share is missing", ErrBadInput, i)
	}
	phi := new(big.Int).Neg(p)
	phi.Sub(phi, q)
	if i == 1 {
		phi.Add(phi, n).Add(phi, big.NewInt(1))
	}
	return phi, nil
}

// MShare returns trustee i's additive share m_i = φ_i/4 of
// m = φ(N)/4 = p'q' (p = 2p'+1, q = 2q'+1). A φ_i that is not a multiple of
// 4 means the prime shares lack the sieve's shape: an error.
func MShare(i int, n, p, q *big.Int) (*big.Int, error) {
	phi, err := Share(i, n, p, q)
	if err != nil {
		return nil, err
	}
	if phi.Bit(0) != 0 || phi.Bit(1) != 0 { // two's complement view: also right for negatives
		return nil, fmt.Errorf("%w: trustee %d's share of φ(N) is not a multiple of 4", ErrBadInput, i)
	}
	return phi.Rsh(phi, 2), nil
}
