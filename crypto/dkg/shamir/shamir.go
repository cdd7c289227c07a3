package shamir

import (
	"errors"
	"fmt"
	"io"
	"math/big"

	"github.com/fabvote/fabvote/crypto/dkg/field"
)

// Share is the value Y at the point X (a trustee's index, 1..n) of a shared
// polynomial. In Recombine, X is the sender of a sub-share instead.
type Share struct {
	X int
	Y *big.Int
}

// ErrInconsistent is returned when shares do not lie on one polynomial of
// the expected degree.
var ErrInconsistent = errors.New("shamir: shares do not lie on one polynomial of the expected degree")

// Scheme shares secrets of a field among n trustees at the points 1..n with
// polynomials of degree t.
type Scheme struct {
	f    *field.Field
	n, t int
}

// New returns the scheme of n trustees and degree t over f. It needs
// 0 ≤ t < n and n below the field's prime (the points must be distinct and
// non-zero in the field).
func New(f *field.Field, n, t int) (*Scheme, error) {
	switch {
	case f == nil:
		return nil, errors.New("shamir: field is missing")
	case n < 1:
		return nil, fmt.Errorf("shamir: %d trustees, need at least 1", n)
	case t < 0 || t >= n:
		return nil, fmt.Errorf("shamir: degree %d, need 0 ≤ t < n = %d", t, n)
	case big.NewInt(int64(n)).Cmp(f.P()) >= 0:
		return nil, fmt.Errorf("shamir: %d trustees do not fit in a field of %d bits", n, f.Bits())
	}
	return &Scheme{f: f, n: n, t: t}, nil
}

// Field is the scheme's field.
func (s *Scheme) Field() *field.Field { return s.f }

// N is the number of trustees.
func (s *Scheme) N() int { return s.n }

// T is the degree of a sharing; T+1 shares open it.
func (s *Scheme) T() int { return s.t }

// Deal shares secret with a random polynomial of degree T: the result holds
// the share of trustee k at index k−1.
func (s *Scheme) Deal(secret *big.Int, random io.Reader) ([]Share, error) {
	return s.DealDegree(secret, s.t, random)
}

// Zero is a random sharing of 0 of degree 2T, the mask of a product that is
// opened without degree reduction. It needs 2T < N.
func (s *Scheme) Zero(random io.Reader) ([]Share, error) {
	if err := s.checkBGW(); err != nil {
		return nil, err
	}
	return s.DealDegree(new(big.Int), 2*s.t, random)
}

// DealDegree shares secret with a random polynomial of the given degree,
// 0 ≤ degree < N.
func (s *Scheme) DealDegree(secret *big.Int, degree int, random io.Reader) ([]Share, error) {
	if degree < 0 || degree >= s.n {
		return nil, fmt.Errorf("shamir: degree %d, need 0 ≤ degree < n = %d", degree, s.n)
	}
	if !s.f.Contains(secret) {
		return nil, errors.New("shamir: secret is not a field element")
	}
	coeffs := make([]*big.Int, degree+1)
	coeffs[0] = secret
	for i := 1; i <= degree; i++ {
		c, err := s.f.Rand(random)
		if err != nil {
			return nil, err
		}
		coeffs[i] = c
	}
	shares := make([]Share, s.n)
	for k := 1; k <= s.n; k++ {
		shares[k-1] = Share{X: k, Y: s.evaluate(coeffs, big.NewInt(int64(k)))}
	}
	return shares, nil
}

// evaluate returns the polynomial with the given coefficients at x (Horner).
func (s *Scheme) evaluate(coeffs []*big.Int, x *big.Int) *big.Int {
	y := new(big.Int)
	for i := len(coeffs) - 1; i >= 0; i-- {
		y = s.f.Add(s.f.Mul(y, x), coeffs[i])
	}
	return y
}

func (s *Scheme) checkBGW() error {
	if 2*s.t >= s.n {
		return fmt.Errorf("shamir: multiplication needs 2t < n, have t = %d, n = %d", s.t, s.n)
	}
	return nil
}
