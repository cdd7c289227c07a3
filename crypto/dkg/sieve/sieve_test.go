package sieve

import (
	"math/big"
	mrand "math/rand/v2"
	"testing"

	"github.com/fabvote/fabvote/crypto/dkg/field"
	"github.com/fabvote/fabvote/crypto/dkg/phi"
)

func testRand(seed byte) *mrand.ChaCha8 { return mrand.NewChaCha8([32]byte{seed}) }

func params(t testing.TB, n, bits int) *Params {
	t.Helper()
	p, err := NewParams(n, bits)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestParams(t *testing.T) {
	for _, tc := range []struct{ n, bits, maxPrime int }{
		{3, 2048, 647}, {5, 2048, 647}, {3, 1024, 281}, {3, 512, 101},
	} {
		p := params(t, tc.n, tc.bits)
		if p.MaxPrime != tc.maxPrime {
			t.Errorf("n=%d bits=%d: sieve to %d, want %d", tc.n, tc.bits, p.MaxPrime, tc.maxPrime)
		}
		half := tc.bits / 2
		low := new(big.Int).Lsh(big.NewInt(3), uint(half-2))
		if new(big.Int).Mod(p.offset, p.modulus).Sign() != 0 || p.offset.Cmp(low) <= 0 ||
			new(big.Int).Sub(p.offset, p.modulus).Cmp(low) > 0 {
			t.Errorf("bits=%d: O is not the smallest multiple of M' above 1.5·2^(h−1)", tc.bits)
		}
		if p.liftBound.BitLen() < 118 {
			t.Errorf("bits=%d: r_i has only %d bits", tc.bits, p.liftBound.BitLen())
		}
		if p.yBound.Cmp(p.scheme.Field().P()) >= 0 {
			t.Errorf("n=%d: the bound of y reaches P1", tc.n)
		}
	}
}

func TestSieveFactor(t *testing.T) {
	mp := field.SieveModulus(89)
	r := testRand(4)
	for _, tc := range []struct{ id, residue int64 }{{1, 3}, {2, 1}, {5, 1}} {
		for range 200 {
			a, err := sieveFactor(mp, int(tc.id), r)
			if err != nil {
				t.Fatal(err)
			}
			if a.Sign() <= 0 || a.Cmp(mp) >= 0 || new(big.Int).GCD(nil, nil, a, mp).Int64() != 1 ||
				new(big.Int).Mod(a, big.NewInt(16)).Int64() != tc.residue {
				t.Fatalf("trustee %d: a = %v is not a unit ≡ %d (mod 16) below M'", tc.id, a, tc.residue)
			}
		}
	}
}

func TestCandidates(t *testing.T) {
	for _, tc := range []struct{ n, bits, count int }{
		{3, 512, 4}, {4, 512, 2}, {5, 512, 2}, {5, 1024, 1}, {3, 2048, 3}, {5, 2048, 1},
	} {
		t.Run(itoa(tc.n)+"/"+itoa(tc.bits), func(t *testing.T) {
			pr := params(t, tc.n, tc.bits)
			got := 0
			for c, err := range Candidates(tc.n, tc.bits, testRand(byte(tc.n+tc.bits))) {
				if err != nil {
					t.Fatal(err)
				}
				checkCandidate(t, pr, c)
				if got++; got == tc.count {
					break
				}
			}
		})
	}
}

// checkCandidate asserts everything the sieve promises of a candidate.
func checkCandidate(t *testing.T, pr *Params, c *Candidate) {
	t.Helper()
	p, q := sum(c.P), sum(c.Q)
	for _, prime := range []struct {
		name   string
		v      *big.Int
		shares []*big.Int
	}{{"p", p, c.P}, {"q", q, c.Q}} {
		checkPrime(t, pr, prime.name, prime.v, prime.shares)
	}
	if new(big.Int).Mul(p, q).Cmp(c.N) != 0 || c.N.BitLen() != pr.Bits {
		t.Fatalf("N is not p·q of %d bits", pr.Bits)
	}
	totient := new(big.Int).Mul(new(big.Int).Sub(p, big.NewInt(1)), new(big.Int).Sub(q, big.NewInt(1)))
	phiSum, mSum := new(big.Int), new(big.Int)
	for i := range c.P {
		phiI, err := phi.Share(i+1, c.N, c.P[i], c.Q[i])
		if err != nil {
			t.Fatal(err)
		}
		m, err := phi.MShare(i+1, c.N, c.P[i], c.Q[i])
		if err != nil {
			t.Fatal(err)
		}
		want := int64(0)
		if i == 0 {
			want = 1
		}
		if new(big.Int).Mod(m, big.NewInt(4)).Int64() != want {
			t.Errorf("m_%d ≢ %d (mod 4)", i+1, want)
		}
		phiSum.Add(phiSum, phiI)
		mSum.Add(mSum, m)
	}
	if phiSum.Cmp(totient) != 0 || new(big.Int).Lsh(mSum, 2).Cmp(totient) != 0 {
		t.Fatal("the shares of φ or of m = φ/4 do not sum to them")
	}
}

func checkPrime(t *testing.T, pr *Params, name string, v *big.Int, shares []*big.Int) {
	t.Helper()
	half := uint(pr.Bits / 2)
	low := new(big.Int).Lsh(big.NewInt(3), half-2)
	if v.Cmp(low) < 0 || v.BitLen() != int(half) {
		t.Fatalf("%s = Σ shares is outside [1.5·2^%d, 2^%d)", name, half-1, half)
	}
	if new(big.Int).Mod(v, big.NewInt(16)).Int64() != 3 {
		t.Fatalf("%s ≢ 3 (mod 16)", name)
	}
	for _, l := range field.OddPrimes(pr.MaxPrime) {
		if new(big.Int).Mod(v, big.NewInt(int64(l))).Sign() == 0 {
			t.Fatalf("%d divides %s", l, name)
		}
	}
	for j, s := range shares[1:] {
		if s.Sign() < 0 || new(big.Int).Mod(s, big.NewInt(16)).Sign() != 0 {
			t.Fatalf("%s_%d is negative or not ≡ 0 (mod 16)", name, j+2)
		}
	}
}

func TestSameRandomnessSameCandidate(t *testing.T) {
	pr := params(t, 3, 512)
	a, err := Run(pr, testRand(8))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Run(pr, testRand(8))
	if err != nil {
		t.Fatal(err)
	}
	c, err := Run(pr, testRand(9))
	if err != nil {
		t.Fatal(err)
	}
	if a.N.Cmp(b.N) != 0 || a.N.Cmp(c.N) == 0 {
		t.Fatal("the candidate is not a function of the randomness")
	}
}

// TestViews checks that no trustee is handed another's share of p or q, or
// p or q itself, in any message addressed to it or broadcast.
func TestViews(t *testing.T) {
	for _, n := range []int{3, 4, 5} {
		pr := params(t, n, 512)
		views := make([][]*big.Int, n+1)
		c, err := run(pr, testRand(byte(n)), func(to int, values ...*big.Int) {
			views[to] = append(views[to], values...)
		})
		if err != nil {
			t.Fatal(err)
		}
		for to := 1; to <= n; to++ {
			if len(views[to]) == 0 {
				t.Fatalf("n=%d: trustee %d received nothing", n, to)
			}
			secrets := []*big.Int{sum(c.P), sum(c.Q)}
			for j := 1; j <= n; j++ {
				if j != to {
					secrets = append(secrets, c.P[j-1], c.Q[j-1])
				}
			}
			for _, v := range views[to] {
				for _, s := range secrets {
					if v.Cmp(s) == 0 {
						t.Fatalf("n=%d: trustee %d was handed a secret it must not see", n, to)
					}
				}
			}
		}
	}
}

func sum(xs []*big.Int) *big.Int {
	s := new(big.Int)
	for _, x := range xs {
		s.Add(s, x)
	}
	return s
}

func itoa(i int) string { return big.NewInt(int64(i)).String() }

// BenchmarkCandidate2048 measures one candidate N of 2048 bits with three
// trustees in one process (two sieved primes and the modulus) and prints
// the time per candidate and the expected total for the design's ≈ 3,790
// candidates of a ceremony.
func BenchmarkCandidate2048(b *testing.B) {
	pr := params(b, 3, 2048)
	r := testRand(1)
	for b.Loop() {
		if _, err := Run(pr, r); err != nil {
			b.Fatal(err)
		}
	}
	perCandidate := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(perCandidate*1e3, "ms/candidate")
	b.ReportMetric(perCandidate*3790, "s/3790-candidates")
}

// BenchmarkPrimeYield measures how many sieved 1024-bit candidates (p and q
// of 2048-bit N, three trustees) it takes to find a prime, against the
// design's estimate e^γ·ln 647 / ln p ≈ 1/61.5. Run it with
// -benchtime=2000x or more for a useful figure.
func BenchmarkPrimeYield(b *testing.B) {
	pr := params(b, 3, 2048)
	r := testRand(2)
	primes := 0
	for b.Loop() {
		c, err := Run(pr, r)
		if err != nil {
			b.Fatal(err)
		}
		for _, v := range []*big.Int{sum(c.P), sum(c.Q)} {
			if v.ProbablyPrime(20) {
				primes++
			}
		}
	}
	if primes > 0 {
		b.ReportMetric(float64(2*b.N)/float64(primes), "candidates/prime")
	}
	b.ReportMetric(61.5, "expected-candidates/prime")
}
