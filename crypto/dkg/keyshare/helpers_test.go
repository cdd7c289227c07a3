package keyshare

import (
	"crypto/rand"
	"math/big"
	"testing"

	"github.com/fabvote/fabvote/crypto/dkg/internal/dkgtest"
	"github.com/fabvote/fabvote/crypto/dkg/phi"
	"github.com/fabvote/fabvote/crypto/dkg/wellformed"
	"github.com/fabvote/fabvote/crypto/paillier/threshold"
	"github.com/fabvote/fabvote/crypto/paillier/threshold/thresholdtest"
)

var ceremony = []byte("keyshare test ceremony")

// fixture is a modulus from the committed test primes with the trustees'
// shares of m = φ(N)/4, shaped as the sieve makes them.
type fixture struct {
	p, q, n, m *big.Int
	ms         []*big.Int
	params     *Params
}

// newFixture builds an N of bits bits for trustees trustees and threshold k.
func newFixture(t testing.TB, bits, trustees, k int) *fixture {
	t.Helper()
	set := dkgtest.PrimeSet(bits / 2)
	p, q := set.Blum[0], set.Blum[1]
	n := new(big.Int).Mul(p, q)
	ps, qs := dkgtest.Split(rand.Reader, p, trustees), dkgtest.Split(rand.Reader, q, trustees)
	f := &fixture{p: p, q: q, n: n, ms: make([]*big.Int, trustees)}
	f.m = new(big.Int).Mul(new(big.Int).Rsh(p, 1), new(big.Int).Rsh(q, 1))
	for i := range f.ms {
		mi, err := phi.MShare(i+1, n, ps[i], qs[i])
		if err != nil {
			t.Fatal(err)
		}
		f.ms[i] = mi
	}
	params, err := NewParams(n, trustees, k, ceremony)
	if err != nil {
		t.Fatal(err)
	}
	f.params = params
	return f
}

// mustRun runs the step and returns its result and parties.
func (f *fixture) mustRun(t testing.TB, h hooks) (*Result, []*Party) {
	t.Helper()
	res, parties, err := run(f.params, f.ms, rand.Reader, h)
	if err != nil {
		t.Fatal(err)
	}
	return res, parties
}

// secretD returns D = Σ D_i from the parties' polynomials.
func secretD(parties []*Party) *big.Int {
	d := new(big.Int)
	for _, p := range parties {
		d.Add(d, p.poly[0])
	}
	return d
}

// shareValue returns s_j = Σ_i f_i(j).
func shareValue(parties []*Party, j int) *big.Int {
	s := new(big.Int)
	for _, p := range parties {
		s.Add(s, evalInt(p.poly, j))
	}
	return s
}

// partials returns every trustee's partial decryption of c.
func partials(t testing.TB, res *Result, c *big.Int) []*threshold.PartialDecryption {
	t.Helper()
	out := make([]*threshold.PartialDecryption, len(res.Shares))
	for i, ks := range res.Shares {
		pd, err := thresholdtest.PartialDecrypt(ks, res.Public, c)
		if err != nil {
			t.Fatalf("trustee %d: %v", i+1, err)
		}
		out[i] = pd
	}
	return out
}

// proveWellFormed runs the distributed Πmod prover with the exponent
// shares and verifies the proof.
func proveWellFormed(t testing.TB, n *big.Int, shares []*wellformed.Share) error {
	t.Helper()
	st, err := wellformed.NewStatement(n, ceremony)
	if err != nil {
		t.Fatal(err)
	}
	sigmas := make([][]*big.Int, len(shares))
	for i, sh := range shares {
		if sigmas[i], err = st.Sigmas(sh); err != nil {
			t.Fatal(err)
		}
	}
	a, err := st.Signs(sigmas)
	if err != nil {
		t.Fatal(err)
	}
	xs, zs := make([][]*big.Int, len(shares)), make([][]*big.Int, len(shares))
	for i, sh := range shares {
		if xs[i], zs[i], err = st.Roots(sh, a); err != nil {
			t.Fatal(err)
		}
	}
	proof, err := st.Assemble(a, xs, zs)
	if err != nil {
		t.Fatal(err)
	}
	return wellformed.Verify(n, ceremony, proof)
}
