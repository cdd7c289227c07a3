package modulus

import (
	"fmt"
	"math/big"

	"github.com/fabvote/fabvote/crypto/dkg/biprime"
)

// check verifies the values of rounds first..first+count−1 as trustee t
// receives them: first that they are well formed (one message from each
// trustee, each with count values in [1, N)), then every round with
// biprime.Accept, stopping at the first that fails.
func (t *Trustee) check(in []Values, first, count int) error {
	if err := checkInbox(t.params.Trustees(), t.n, in, first, count); err != nil {
		return err
	}
	byFrom := make([]Values, len(in))
	for _, v := range in {
		byFrom[v.From-1] = v
	}
	column := make([]*big.Int, len(in))
	for k := range count {
		for i, v := range byFrom {
			column[i] = v.G[k]
		}
		if err := biprime.Accept(t.n, t.bases[first-1+k], column); err != nil {
			return fmt.Errorf("modulus: round %d: %w", first+k, err)
		}
	}
	return nil
}

// checkInbox checks that in holds one message from each of trustees 1..n,
// each for rounds first..first+count−1 with values in [1, N).
func checkInbox(n int, modulus *big.Int, in []Values, first, count int) error {
	if len(in) != n {
		return fmt.Errorf("modulus: %d messages, need one from each of %d trustees", len(in), n)
	}
	seen := make(map[int]bool, n)
	for _, v := range in {
		switch {
		case v.From < 1 || v.From > n || seen[v.From]:
			return fmt.Errorf("modulus: message from trustee %d is unexpected or repeated", v.From)
		case v.First != first || len(v.G) != count:
			return fmt.Errorf("modulus: message from trustee %d holds rounds %d..%d, want %d..%d",
				v.From, v.First, v.First+len(v.G)-1, first, first+count-1)
		}
		for _, g := range v.G {
			if g == nil || g.Sign() <= 0 || g.Cmp(modulus) >= 0 {
				return fmt.Errorf("modulus: message from trustee %d holds a value outside [1, N)", v.From)
			}
		}
		seen[v.From] = true
	}
	return nil
}
