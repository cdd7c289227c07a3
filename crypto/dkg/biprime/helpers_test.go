package biprime

import (
	"crypto/rand"
	"fmt"
	"math/big"
	"testing"

	"github.com/fabvote/fabvote/crypto/dkg/internal/dkgtest"
	"github.com/fabvote/fabvote/crypto/dkg/phi"
)

// mShares splits p and q among n trustees as the sieve would and returns N
// and every trustee's share of φ(N)/4.
func mShares(t testing.TB, p, q *big.Int, n int) (*big.Int, []*big.Int) {
	t.Helper()
	N := new(big.Int).Mul(p, q)
	ps, qs := dkgtest.Split(rand.Reader, p, n), dkgtest.Split(rand.Reader, q, n)
	ms := make([]*big.Int, n)
	for i := range ms {
		m, err := phi.MShare(i+1, N, ps[i], qs[i])
		if err != nil {
			t.Fatal(err)
		}
		ms[i] = m
	}
	return N, ms
}

// runTest runs rounds 1..rounds of the test as the trustees and a verifier
// would, and returns the first failing round's error.
func runTest(N *big.Int, ceremony []byte, ms []*big.Int, rounds int) error {
	for r := 1; r <= rounds; r++ {
		g, err := Base(N, ceremony, r)
		if err != nil {
			return err
		}
		values := make([]*big.Int, len(ms))
		for i, m := range ms {
			if values[i], err = PartyValue(N, g, m); err != nil {
				return err
			}
		}
		if err := Accept(N, g, values); err != nil {
			return fmt.Errorf("round %d: %w", r, err)
		}
	}
	return nil
}

func mul(xs ...*big.Int) *big.Int {
	p := big.NewInt(1)
	for _, x := range xs {
		p.Mul(p, x)
	}
	return p
}

func hexInt(t testing.TB, s string) *big.Int {
	t.Helper()
	x, ok := new(big.Int).SetString(s, 0)
	if !ok {
		t.Fatalf("bad integer %q", s)
	}
	return x
}
