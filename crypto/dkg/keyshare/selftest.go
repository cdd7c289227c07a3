package keyshare

import (
	"fmt"
	"math/big"

	"github.com/fabvote/fabvote/crypto/paillier"
	"github.com/fabvote/fabvote/crypto/paillier/threshold"
)

// publicKey is the Paillier key of N. Params has checked that N is odd;
// the Paillier size rules are the election's, not this step's (unit tests
// use 512-bit moduli).
func publicKey(n *big.Int) *paillier.PublicKey {
	return &paillier.PublicKey{N: new(big.Int).Set(n), NSquared: new(big.Int).Mul(n, n)}
}

// CheckSelfTest requires one partial decryption of c from every trustee
// and that every K-subset of them combines to m. With c and m from
// threshold.SelfTestCiphertext and the partials from each trustee's
// KeyShare.DecryptSelfTest, it is the ceremony's self-test. It checks end to end that
// D ≡ 1 (mod N), that 4·D ≡ 0 (mod λ(N)) and that every share matches its
// verification key.
func CheckSelfTest(pp *threshold.PublicParams, c, m *big.Int, partials []*threshold.PartialDecryption) error {
	if len(partials) != pp.L {
		return fmt.Errorf("%w: self-test: %d partial decryptions, need one from each of %d trustees", ErrBadInput, len(partials), pp.L)
	}
	for _, set := range subsets(len(partials), pp.K) {
		parts := make([]*threshold.PartialDecryption, len(set))
		for k, i := range set {
			parts[k] = partials[i]
		}
		got, err := pp.Combine(c, parts)
		if err != nil {
			return fmt.Errorf("keyshare: self-test: partials %v: %w", set, err)
		}
		if got.Cmp(m) != 0 {
			return fmt.Errorf("keyshare: self-test: partials %v decrypt to a wrong plaintext", set)
		}
	}
	return nil
}

// subsets lists the k-element subsets of {0..n−1} in lexicographic order.
func subsets(n, k int) [][]int {
	var out [][]int
	var walk func(start int, cur []int)
	walk = func(start int, cur []int) {
		if len(cur) == k {
			out = append(out, append([]int(nil), cur...))
			return
		}
		for i := start; i < n; i++ {
			walk(i+1, append(cur, i))
		}
	}
	walk(0, nil)
	return out
}
