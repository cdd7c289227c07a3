package modulus

import "math/big"

// Values is trustee From's broadcast of its biprimality values
// G_i = g_r^{m_i} mod N for the consecutive rounds r = First, …,
// First+len(G)−1: round 1 alone, then rounds 2..biprime.Rounds at once.
type Values struct {
	From  int
	First int
	G     []*big.Int
}
