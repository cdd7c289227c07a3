package modulus

import (
	"fmt"
	"math"
	"math/big"
	mrand "math/rand/v2"
	"testing"

	"github.com/fabvote/fabvote/crypto/dkg/biprime"
)

var ceremony = []byte("modulus-test-ceremony")

func testRand(seed byte) *mrand.ChaCha8 { return mrand.NewChaCha8([32]byte{seed}) }

// TestGenerate runs whole generations and checks the modulus, the counts and
// what each trustee saw: 3 and 5 trustees at 512 bits, and the real size,
// 2048 bits, with 3. The counts are geometric; the seeds here need 665
// candidates for 2048 bits (about 4 s), so the test takes about 12 s.
func TestGenerate(t *testing.T) {
	for _, tc := range []struct{ n, bits int }{
		{3, 512}, {5, 512}, {3, 2048},
	} {
		t.Run(fmt.Sprintf("%d/%d", tc.n, tc.bits), func(t *testing.T) {
			views := make([][]*big.Int, tc.n+1)
			res, err := generate(tc.n, tc.bits, ceremony, testRand(byte(tc.n+tc.bits)), func(to int, values ...*big.Int) {
				views[to] = append(views[to], values...)
			})
			if err != nil {
				t.Fatal(err)
			}
			checkResult(t, tc.bits, res)
			checkStats(t, res.Stats)
			checkViews(t, res, views)
			params, err := NewParams(tc.n, tc.bits, ceremony)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d trustees, %d bits: %s", tc.n, tc.bits, res.Stats.Summary(params.Expect()))
		})
	}
}

// checkResult reconstructs p and q from the trustees' shares (test only)
// and asserts what an accepted modulus must be.
func checkResult(t *testing.T, bits int, res *Result) {
	t.Helper()
	p, q, m := reconstruct(t, res)
	for _, prime := range []struct {
		name string
		v    *big.Int
	}{{"p", p}, {"q", q}} {
		if !prime.v.ProbablyPrime(32) {
			t.Fatalf("%s is not prime", prime.name)
		}
		if new(big.Int).Mod(prime.v, big.NewInt(16)).Int64() != 3 {
			t.Fatalf("%s ≢ 3 (mod 16)", prime.name)
		}
	}
	if p.Cmp(q) == 0 || new(big.Int).Mul(p, q).Cmp(res.N) != 0 || res.N.BitLen() != bits {
		t.Fatalf("N is not the product of two distinct primes with %d bits", bits)
	}
	phi := new(big.Int).Mul(new(big.Int).Sub(p, big.NewInt(1)), new(big.Int).Sub(q, big.NewInt(1)))
	if new(big.Int).Lsh(m, 2).Cmp(phi) != 0 {
		t.Fatal("the shares of m do not sum to φ(N)/4")
	}
	for _, tr := range res.Trustees {
		if got := tr.Modulus(); got == nil || got.Cmp(res.N) != 0 {
			t.Fatalf("trustee %d holds modulus %v, want N", tr.ID(), got)
		}
	}
}

// reconstruct sums the trustees' shares of p, q and m.
func reconstruct(t *testing.T, res *Result) (p, q, m *big.Int) {
	t.Helper()
	p, q, m = new(big.Int), new(big.Int), new(big.Int)
	for i, tr := range res.Trustees {
		if tr.ID() != i+1 {
			t.Fatalf("Trustees[%d] is trustee %d", i, tr.ID())
		}
		sh, err := tr.Share()
		if err != nil {
			t.Fatal(err)
		}
		p.Add(p, sh.P)
		q.Add(q, sh.Q)
		m.Add(m, sh.M)
	}
	return p, q, m
}

// checkStats asserts that the counts add up: every candidate is either
// refused by trial division or tested; every test has its first round, and
// the tests that pass it (at least the accepted one) the other Rounds−1.
func checkStats(t *testing.T, s Stats) {
	t.Helper()
	extra := s.Rounds - s.BiprimalityTests
	switch {
	case s.Candidates != s.TrialDivisionRejects+s.BiprimalityTests:
		t.Fatalf("%d candidates ≠ %d trial-division rejects + %d tests", s.Candidates, s.TrialDivisionRejects, s.BiprimalityTests)
	case s.BiprimalityTests < 1:
		t.Fatal("no biprimality test")
	case extra < biprime.Rounds-1 || extra%(biprime.Rounds-1) != 0:
		t.Fatalf("%d rounds for %d tests: not one each plus %d for each passed first round", s.Rounds, s.BiprimalityTests, biprime.Rounds-1)
	case extra/(biprime.Rounds-1) > s.BiprimalityTests:
		t.Fatalf("%d tests passed their first round out of %d", extra/(biprime.Rounds-1), s.BiprimalityTests)
	case s.Duration <= 0:
		t.Fatal("no duration")
	}
}

func TestReproducible(t *testing.T) {
	run := func(seed byte) *Result {
		res, err := Generate(3, 512, ceremony, testRand(seed))
		if err != nil {
			t.Fatal(err)
		}
		res.Stats.Duration = 0
		return res
	}
	a, b, c := run(7), run(7), run(8)
	if a.N.Cmp(b.N) != 0 || a.Stats != b.Stats {
		t.Fatalf("two runs with one seed differ: %v vs %v", a.Stats, b.Stats)
	}
	for i := range a.Trustees {
		sa, _ := a.Trustees[i].Share()
		sb, _ := b.Trustees[i].Share()
		if sa.P.Cmp(sb.P) != 0 || sa.Q.Cmp(sb.Q) != 0 || sa.M.Cmp(sb.M) != 0 {
			t.Fatalf("trustee %d's shares differ between two runs with one seed", i+1)
		}
	}
	if a.N.Cmp(c.N) == 0 {
		t.Fatal("two seeds gave the same modulus")
	}
}

// TestExpect checks the expectation against the design's table for
// 2048-bit N: ≈ 3,790 candidates and ≈ 826 biprimality tests.
func TestExpect(t *testing.T) {
	for _, n := range []int{3, 5} {
		params, err := NewParams(n, 2048, ceremony)
		if err != nil {
			t.Fatal(err)
		}
		e := params.Expect()
		for _, c := range []struct {
			name      string
			got, want float64
		}{{"candidates", e.Candidates, 3790}, {"biprimality tests", e.BiprimalityTests, 826}} {
			if math.Abs(c.got-c.want) > 0.1*c.want {
				t.Errorf("n=%d: expected %s %.0f, the design says ≈ %.0f", n, c.name, c.got, c.want)
			}
		}
	}
}

// BenchmarkGenerate2048 generates 2048-bit moduli with three trustees and
// reports the measured counts per modulus next to the expected ones. One
// modulus takes longer than the default benchtime; run it with
// -benchtime=10x for a mean over ten (the counts are geometric).
func BenchmarkGenerate2048(b *testing.B) {
	params, err := NewParams(3, 2048, ceremony)
	if err != nil {
		b.Fatal(err)
	}
	r := testRand(1)
	var total Stats
	for b.Loop() {
		res, err := Generate(3, 2048, ceremony, r)
		if err != nil {
			b.Fatal(err)
		}
		total.Candidates += res.Stats.Candidates
		total.BiprimalityTests += res.Stats.BiprimalityTests
		total.Rounds += res.Stats.Rounds
		b.Logf("%s", res.Stats.Summary(params.Expect()))
	}
	e := params.Expect()
	b.ReportMetric(float64(total.Candidates)/float64(b.N), "candidates/op")
	b.ReportMetric(e.Candidates, "expected-candidates/op")
	b.ReportMetric(float64(total.BiprimalityTests)/float64(b.N), "tests/op")
	b.ReportMetric(e.BiprimalityTests, "expected-tests/op")
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/op")
}
