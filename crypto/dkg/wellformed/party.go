package wellformed

import (
	"fmt"
	"math/big"

	"github.com/fabvote/fabvote/crypto/internal/zn"
)

// Share is one trustee's secret exponents for the proof, additive integer
// shares over the trustees (any sign).
type Share struct {
	// M is the share of m = φ(N)/4 (crypto/dkg/phi.MShare).
	M *big.Int
	// U is the share of u ≡ 4^{-1} (mod m) (FourthRootShare).
	U *big.Int
	// E is the share of E' ≡ N^{-1} (mod φ(N)), from the key-share step.
	E *big.Int
}

func (sh *Share) check() error {
	if sh == nil || sh.M == nil || sh.U == nil || sh.E == nil {
		return fmt.Errorf("%w: share missing or incomplete", ErrBadInput)
	}
	return nil
}

// FourthRootShare returns trustee index's share of u = (3m+1)/4, an inverse
// of 4 mod m: (3m_1+1)/4 for trustee 1, 3m_j/4 for the others. The sieve's
// mod-16 shaping makes m_1 ≡ 1 and m_j ≡ 0 (mod 4); other shares are refused.
func FourthRootShare(m *big.Int, index int) (*big.Int, error) {
	if index < 1 {
		return nil, fmt.Errorf("%w: trustee index %d, want ≥ 1", ErrBadInput, index)
	}
	u, want := new(big.Int).Mul(m, big.NewInt(3)), 0
	if index == 1 {
		u.Add(u, big.NewInt(1))
		want = 1
	}
	u, r := u.QuoRem(u, big.NewInt(4), new(big.Int))
	if r.Sign() != 0 {
		return nil, fmt.Errorf("%w: trustee %d's share of m is not ≡ %d (mod 4)", ErrBadInput, index, want)
	}
	return u, nil
}

// Sigmas returns the trustee's first-round values σ_{k,i} = ŷ_k^{m_i} mod N.
func (st *Statement) Sigmas(sh *Share) ([]*big.Int, error) {
	if err := sh.check(); err != nil {
		return nil, err
	}
	out := make([]*big.Int, Challenges)
	for k := range out {
		out[k] = zn.ExpSigned(st.hat(k), sh.M, st.N)
	}
	return out, nil
}

// Signs combines every trustee's σ values into the bits a_k: σ_k = ∏_i σ_{k,i}
// must be ±1 (it is for a Blum biprime and honest trustees), a_k = [σ_k = −1].
func (st *Statement) Signs(sigmas [][]*big.Int) ([]bool, error) {
	prods, err := st.products(sigmas, "σ")
	if err != nil {
		return nil, err
	}
	minusOne := new(big.Int).Sub(st.N, big.NewInt(1))
	a := make([]bool, Challenges)
	for k, s := range prods {
		switch {
		case s.Cmp(big.NewInt(1)) == 0:
		case s.Cmp(minusOne) == 0:
			a[k] = true
		default:
			return nil, fmt.Errorf("%w: challenge %d: ∏ σ is not ±1 (N is not a Blum biprime, or a trustee's σ is wrong)", ErrBadInput, k+1)
		}
	}
	return a, nil
}

// Roots returns the trustee's second-round values x_{k,i} = y'_k^{u_i} and
// z_{k,i} = y_k^{E_i} mod N, with y'_k = (−1)^{a_k}·ŷ_k.
func (st *Statement) Roots(sh *Share, a []bool) (x, z []*big.Int, err error) {
	if err := sh.check(); err != nil {
		return nil, nil, err
	}
	if len(a) != Challenges {
		return nil, nil, fmt.Errorf("%w: %d sign bits, want %d", ErrBadInput, len(a), Challenges)
	}
	x, z = make([]*big.Int, Challenges), make([]*big.Int, Challenges)
	for k := range x {
		x[k] = zn.ExpSigned(st.signed(st.hat(k), a[k]), sh.U, st.N)
		z[k] = zn.ExpSigned(st.Y[k], sh.E, st.N)
		if x[k] == nil || z[k] == nil {
			return nil, nil, fmt.Errorf("%w: challenge %d: not invertible mod N", ErrBadInput, k+1)
		}
	}
	return x, z, nil
}

// Assemble multiplies the trustees' x and z values into the proof.
func (st *Statement) Assemble(a []bool, xs, zs [][]*big.Int) (*Proof, error) {
	if len(a) != Challenges {
		return nil, fmt.Errorf("%w: %d sign bits, want %d", ErrBadInput, len(a), Challenges)
	}
	x, err := st.products(xs, "x")
	if err != nil {
		return nil, err
	}
	z, err := st.products(zs, "z")
	if err != nil {
		return nil, err
	}
	p := &Proof{W: st.W}
	for k := range p.Responses {
		p.Responses[k] = Response{A: a[k], B: st.B[k], X: x[k], Z: z[k]}
	}
	return p, nil
}

// products returns ∏_i values[i][k] mod N for every k, checking that every
// trustee gave Challenges values in [1, N).
func (st *Statement) products(values [][]*big.Int, name string) ([]*big.Int, error) {
	if len(values) == 0 {
		return nil, fmt.Errorf("%w: no trustee's %s values", ErrBadInput, name)
	}
	out := make([]*big.Int, Challenges)
	for k := range out {
		out[k] = big.NewInt(1)
	}
	for i, vs := range values {
		if len(vs) != Challenges {
			return nil, fmt.Errorf("%w: trustee %d gave %d %s values, want %d", ErrBadInput, i+1, len(vs), name, Challenges)
		}
		for k, v := range vs {
			if v == nil || v.Sign() <= 0 || v.Cmp(st.N) >= 0 {
				return nil, fmt.Errorf("%w: trustee %d's %s value %d not in [1, N)", ErrBadInput, i+1, name, k+1)
			}
			out[k].Mul(out[k], v).Mod(out[k], st.N)
		}
	}
	return out, nil
}
