package wellformed

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"math/big"
	"os"
	"testing"

	"github.com/fabvote/fabvote/crypto/dkg/internal/dkgtest"
	"github.com/fabvote/fabvote/crypto/dkg/phi"
)

var update = flag.Bool("update", false, "rewrite testdata/vectors.json from the current implementation")

const vectorsFile = "testdata/vectors.json"

// vector is one committed proof: the test primes, N, the ceremony id (hex)
// and the encoded proof (hex). verifier-py reads the same file.
type vector struct {
	Name     string `json:"name"`
	P        string `json:"p"`
	Q        string `json:"q"`
	N        string `json:"n"`
	Ceremony string `json:"ceremony"`
	Proof    string `json:"proof"`
}

type vectorFile struct {
	Comment string   `json:"comment"`
	Vectors []vector `json:"vectors"`
}

func loadVectors(t testing.TB) []vector {
	t.Helper()
	b, err := os.ReadFile(vectorsFile)
	if err != nil {
		t.Fatalf("%v: write it with go test ./crypto/dkg/wellformed -run TestVectors -update", err)
	}
	var f vectorFile
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Vectors) == 0 {
		t.Fatalf("no vector in %s", vectorsFile)
	}
	return f.Vectors
}

func writeVectors(t *testing.T) {
	f := vectorFile{Comment: "Πmod proofs for test primes only; rewrite with go test ./crypto/dkg/wellformed -run TestVectors -update"}
	for _, bits := range []int{256, 1024} {
		s := dkgtest.PrimeSet(bits)
		p, q := s.Blum[0], s.Blum[1]
		n := new(big.Int).Mul(p, q)
		cer := []byte(fmt.Sprintf("fabvote-test-ceremony-%d", 2*bits))
		b := mustMarshal(t, n, mustProve(t, p, q, cer))
		f.Vectors = append(f.Vectors, vector{Name: fmt.Sprintf("%d-bit N", 2*bits),
			P: p.Text(16), Q: q.Text(16), N: n.Text(16), Ceremony: hex.EncodeToString(cer), Proof: hex.EncodeToString(b)})
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(vectorsFile, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustProve(t testing.TB, p, q *big.Int, ceremony []byte) *Proof {
	t.Helper()
	pr, err := Prove(p, q, ceremony)
	if err != nil {
		t.Fatal(err)
	}
	return pr
}

func mustMarshal(t testing.TB, n *big.Int, p *Proof) []byte {
	t.Helper()
	b, err := p.Marshal(n)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func hexInt(t testing.TB, s string) *big.Int {
	t.Helper()
	x, ok := new(big.Int).SetString(s, 16)
	if !ok {
		t.Fatalf("bad hex %q", s)
	}
	return x
}

func mul(xs ...*big.Int) *big.Int {
	p := big.NewInt(1)
	for _, x := range xs {
		p.Mul(p, x)
	}
	return p
}

// distributedShares makes n trustees' shares for N = pq as the sieve and
// the key-share step would: p, q split with the mod-16 shaping, m_i from
// them, u_i from m_i, and E = N^{-1} mod φ(N) split additively (in tests
// only: the real E'_i come from the key-share step).
func distributedShares(t testing.TB, p, q *big.Int, n int) []*Share {
	t.Helper()
	N := mul(p, q)
	ps, qs := dkgtest.Split(rand.Reader, p, n), dkgtest.Split(rand.Reader, q, n)
	totient := mul(new(big.Int).Sub(p, big.NewInt(1)), new(big.Int).Sub(q, big.NewInt(1)))
	es := dkgtest.SplitSigned(rand.Reader, new(big.Int).ModInverse(N, totient), n, totient.BitLen()+128)
	shares := make([]*Share, n)
	for i := range shares {
		m, err := phi.MShare(i+1, N, ps[i], qs[i])
		if err != nil {
			t.Fatal(err)
		}
		u, err := FourthRootShare(m, i+1)
		if err != nil {
			t.Fatal(err)
		}
		shares[i] = &Share{M: m, U: u, E: es[i]}
	}
	return shares
}

// runTrustees runs the two rounds of the distributed prover.
func runTrustees(t testing.TB, st *Statement, shares []*Share) *Proof {
	t.Helper()
	sigmas := make([][]*big.Int, len(shares))
	for i, sh := range shares {
		var err error
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
	pr, err := st.Assemble(a, xs, zs)
	if err != nil {
		t.Fatal(err)
	}
	return pr
}

// forge is a cheating prover's best attempt for N with claimed group order:
// it runs the prover's steps with exponents m = order/4 (or the order of
// the squares, qr), u = 4^{-1} mod m and E = N^{-1} mod order where they
// exist (0 otherwise), and takes a_k = 0 where ∏ σ is not ±1.
func forge(t testing.TB, n *big.Int, ceremony []byte, qr, order *big.Int) *Proof {
	t.Helper()
	st, err := NewStatement(n, ceremony)
	if err != nil {
		t.Fatal(err)
	}
	orZero := func(x *big.Int) *big.Int {
		if x == nil {
			return new(big.Int)
		}
		return x
	}
	sh := &Share{M: qr, U: orZero(new(big.Int).ModInverse(big.NewInt(4), qr)), E: orZero(new(big.Int).ModInverse(n, order))}
	sigmas, err := st.Sigmas(sh)
	if err != nil {
		t.Fatal(err)
	}
	a, err := st.Signs([][]*big.Int{sigmas})
	if err != nil {
		a = make([]bool, Challenges)
	}
	x, z, err := st.Roots(sh, a)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := st.Assemble(a, [][]*big.Int{x}, [][]*big.Int{z})
	if err != nil {
		t.Fatal(err)
	}
	return pr
}

// forgeClaimed forges with the exponents of claimed factors p, q of N:
// φ = (p−1)(q−1), m = φ/4.
func forgeClaimed(t testing.TB, n, p, q *big.Int) *Proof {
	phi := mul(new(big.Int).Sub(p, big.NewInt(1)), new(big.Int).Sub(q, big.NewInt(1)))
	return forge(t, n, ceremony, new(big.Int).Rsh(phi, 2), phi)
}
