package sieve

import (
	"fmt"
	"math/big"
)

// PhiShare returns trustee i's additive share of φ(N) = (p−1)(q−1) =
// N − p − q + 1 from its shares of p and q: N − p_1 − q_1 + 1 for trustee
// 1, −p_i − q_i for the others. The shares are integers (negative for
// i > 1) and sum to φ(N).
func PhiShare(i int, n, p, q *big.Int) (*big.Int, error) {
	if i < 1 {
		return nil, fmt.Errorf("sieve: trustee %d, indices start at 1", i)
	}
	if n == nil || p == nil || q == nil {
		return nil, fmt.Errorf("sieve: trustee %d: N or a prime share is missing", i)
	}
	phi := new(big.Int).Neg(p)
	phi.Sub(phi, q)
	if i == 1 {
		phi.Add(phi, n).Add(phi, big.NewInt(1))
	}
	return phi, nil
}

// MShare returns trustee i's additive share m_i = φ_i/4 of
// m = φ(N)/4 = p'q' (p = 2p'+1, q = 2q'+1). The sieve's mod-16 shaping
// makes every φ_i a multiple of 4; a share that is not is an error.
func MShare(i int, n, p, q *big.Int) (*big.Int, error) {
	phi, err := PhiShare(i, n, p, q)
	if err != nil {
		return nil, err
	}
	if phi.Bit(0) != 0 || phi.Bit(1) != 0 { // two's complement view: also right for negatives
		return nil, fmt.Errorf("sieve: trustee %d's share of φ(N) is not a multiple of 4", i)
	}
	return phi.Rsh(phi, 2), nil
}
