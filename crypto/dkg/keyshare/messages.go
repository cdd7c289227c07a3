package keyshare

import "math/big"

// Dealt is what trustee From sends trustee To in the first round: To's
// field shares of From's m_i, β_i and R_i, and of a zero of degree 2t.
type Dealt struct {
	From, To         int
	M, Beta, R, Zero *big.Int
}

// Opening is trustee From's public share [m]·[β] + N·[R] + [0] of γ.
type Opening struct {
	From  int
	Gamma *big.Int
}

// Commitment is dealer From's public Feldman commitment to its integer
// polynomial f_From: C[l] = V^{Δ·a_l} mod N², C[0] = V^{Δ·D_From}.
type Commitment struct {
	From int
	C    []*big.Int
}

// SubShare is what dealer From sends trustee To in the re-dealing:
// f_From(To), a positive integer.
type SubShare struct {
	From, To int
	Value    *big.Int
}
