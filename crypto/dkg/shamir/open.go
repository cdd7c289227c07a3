package shamir

import (
	"fmt"
	"math/big"
)

// Interpolate returns the value at 0 of the polynomial of degree
// len(shares)−1 through the shares.
func (s *Scheme) Interpolate(shares []Share) (*big.Int, error) {
	if err := s.check(shares); err != nil {
		return nil, err
	}
	return s.at(shares, 0), nil
}

// Reconstruct opens a sharing of the given degree from at least degree+1
// shares. With more, it first checks that all lie on one polynomial of that
// degree and returns ErrInconsistent otherwise.
func (s *Scheme) Reconstruct(shares []Share, degree int) (*big.Int, error) {
	ok, err := s.Consistent(shares, degree)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, ErrInconsistent
	}
	return s.at(shares[:degree+1], 0), nil
}

// Consistent reports whether the shares, at least degree+1 of them, lie on
// one polynomial of the given degree: the polynomial through the first
// degree+1 must pass through every other. With exactly degree+1 shares it
// is always true.
func (s *Scheme) Consistent(shares []Share, degree int) (bool, error) {
	if degree < 0 || degree >= s.n {
		return false, fmt.Errorf("shamir: degree %d, need 0 ≤ degree < n = %d", degree, s.n)
	}
	if len(shares) < degree+1 {
		return false, fmt.Errorf("shamir: %d shares, a polynomial of degree %d needs %d", len(shares), degree, degree+1)
	}
	if err := s.check(shares); err != nil {
		return false, err
	}
	base := shares[:degree+1]
	for _, sh := range shares[degree+1:] {
		if s.at(base, sh.X).Cmp(sh.Y) != 0 {
			return false, nil
		}
	}
	return true, nil
}

// MulShares is a trustee's local step of BGW: the product of its shares of
// a and b, a share of a·b of degree 2T.
func (s *Scheme) MulShares(a, b Share) (Share, error) {
	if err := s.checkBGW(); err != nil {
		return Share{}, err
	}
	if a.X != b.X {
		return Share{}, fmt.Errorf("shamir: shares at points %d and %d are not one trustee's", a.X, b.X)
	}
	if err := s.check([]Share{a}); err != nil {
		return Share{}, err
	}
	if err := s.check([]Share{b}); err != nil {
		return Share{}, err
	}
	return Share{X: a.X, Y: s.f.Mul(a.Y, b.Y)}, nil
}

// Recombine is a trustee's last step of BGW degree reduction: given the
// sub-shares it received, each labelled with its sender k (Share.X = k,
// Share.Y = sub-share of h_k at this trustee's point), it returns its share
// of degree T of the product, Σ_k λ_k·sub_k. It needs sub-shares from at
// least 2T+1 distinct senders.
func (s *Scheme) Recombine(received []Share) (*big.Int, error) {
	if err := s.checkBGW(); err != nil {
		return nil, err
	}
	if len(received) < 2*s.t+1 {
		return nil, fmt.Errorf("shamir: sub-shares from %d trustees, degree reduction needs %d", len(received), 2*s.t+1)
	}
	return s.Interpolate(received)
}

// check validates that the shares have distinct points in 1..N and values
// in the field.
func (s *Scheme) check(shares []Share) error {
	seen := make(map[int]bool, len(shares))
	for _, sh := range shares {
		switch {
		case sh.X < 1 || sh.X > s.n:
			return fmt.Errorf("shamir: point %d outside 1..%d", sh.X, s.n)
		case seen[sh.X]:
			return fmt.Errorf("shamir: point %d appears twice", sh.X)
		case !s.f.Contains(sh.Y):
			return fmt.Errorf("shamir: value at point %d is not a field element", sh.X)
		}
		seen[sh.X] = true
	}
	return nil
}

// at evaluates the polynomial through shares (valid, distinct points) at
// x by Lagrange: Σ_i y_i ∏_{j≠i} (x − x_j)/(x_i − x_j).
func (s *Scheme) at(shares []Share, x int) *big.Int {
	f := s.f
	xb := big.NewInt(int64(x))
	sum := new(big.Int)
	for i, si := range shares {
		num, den := big.NewInt(1), big.NewInt(1)
		for j, sj := range shares {
			if i == j {
				continue
			}
			xj := big.NewInt(int64(sj.X))
			num = f.Mul(num, f.Sub(xb, xj))
			den = f.Mul(den, f.Sub(big.NewInt(int64(si.X)), xj))
		}
		inv, _ := f.Inv(den) // distinct points: den ≠ 0
		sum = f.Add(sum, f.Mul(si.Y, f.Mul(num, inv)))
	}
	return sum
}
