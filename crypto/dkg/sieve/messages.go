package sieve

import "math/big"

// Dealt is what trustee From sends trustee To in the sieve's first round:
// To's shares of From's a, ρ and zero sharing.
type Dealt struct {
	From, To     int
	A, Rho, Zero *big.Int
}

// Shape is trustee From's public e = b mod 16 (From > 1 only), which
// trustee 1 adds to its share so that the others' shares are ≡ 0 (mod 16).
type Shape struct {
	From int
	E    *big.Int
}

// Resharing is what trustee From sends trustee To in a degree-reduction
// round: To's sub-shares of From's local products, one per product of the
// round, in order.
type Resharing struct {
	From, To int
	Subs     []*big.Int
}

// Opening is trustee From's public share of the masked product y = A + ρ.
type Opening struct {
	From int
	Y    *big.Int
}

// Next is what a trustee sends after a sieve step: either resharings for
// the next degree reduction (one per trustee, itself included) or, after
// the last one, its opening.
type Next struct {
	Resharings []Resharing
	Opening    *Opening
}

// ModulusDealt is what trustee From sends trustee To to compute N: To's
// shares of From's p_i, q_i and zero sharing.
type ModulusDealt struct {
	From, To   int
	P, Q, Zero *big.Int
}

// ModulusOpening is trustee From's public share [p]·[q] + [0] of N.
type ModulusOpening struct {
	From int
	Y    *big.Int
}
