package phi

import (
	"crypto/rand"
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/crypto/dkg/internal/dkgtest"
)

// TestSharesSumToPhiAndM splits known Blum primes as the sieve does and
// checks that the shares of φ and m add up, with m_1 ≡ 1 and m_j ≡ 0
// (mod 4), and that each m_i is exactly φ_i/4 (negative shares included).
func TestSharesSumToPhiAndM(t *testing.T) {
	s := dkgtest.PrimeSet(256)
	p, q := s.Blum[0], s.Blum[1]
	n := new(big.Int).Mul(p, q)
	one := big.NewInt(1)
	phi := new(big.Int).Mul(new(big.Int).Sub(p, one), new(big.Int).Sub(q, one))
	for _, trustees := range []int{1, 3, 5} {
		ps, qs := dkgtest.Split(rand.Reader, p, trustees), dkgtest.Split(rand.Reader, q, trustees)
		phiSum, mSum := new(big.Int), new(big.Int)
		for i := range ps {
			phiI, err := Share(i+1, n, ps[i], qs[i])
			if err != nil {
				t.Fatal(err)
			}
			m, err := MShare(i+1, n, ps[i], qs[i])
			if err != nil {
				t.Fatal(err)
			}
			if new(big.Int).Lsh(m, 2).Cmp(phiI) != 0 {
				t.Fatalf("n=%d: m_%d ≠ φ_%d/4", trustees, i+1, i+1)
			}
			want := int64(0)
			if i == 0 {
				want = 1
			}
			if new(big.Int).Mod(m, big.NewInt(4)).Int64() != want {
				t.Errorf("n=%d: m_%d ≢ %d (mod 4)", trustees, i+1, want)
			}
			phiSum.Add(phiSum, phiI)
			mSum.Add(mSum, m)
		}
		if phiSum.Cmp(phi) != 0 || new(big.Int).Lsh(mSum, 2).Cmp(phi) != 0 {
			t.Fatalf("n=%d: the shares of φ or of m = φ/4 do not sum to them", trustees)
		}
	}
}

func TestBadInput(t *testing.T) {
	nine, three := big.NewInt(9), big.NewInt(3)
	for _, tc := range []struct {
		name, want string
		call       func() error
	}{
		{"phi of trustee 0", "trustee 0", func() error { _, err := Share(0, nine, three, three); return err }},
		{"m of trustee 0", "trustee 0", func() error { _, err := MShare(0, nine, big.NewInt(16), big.NewInt(16)); return err }},
		{"N missing", "missing", func() error { _, err := Share(1, nil, three, three); return err }},
		{"prime share missing", "missing", func() error { _, err := Share(2, nine, nil, three); return err }},
		{"m not integral", "not a multiple of 4", func() error { _, err := MShare(2, nine, big.NewInt(16), big.NewInt(2)); return err }},
		{"m of an odd share", "not a multiple of 4", func() error { _, err := MShare(2, nine, big.NewInt(17), big.NewInt(16)); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want ErrBadInput containing %q", err, tc.want)
			}
		})
	}
}
