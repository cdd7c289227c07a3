package keyshare

import (
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/fabvote/fabvote/crypto/paillier/threshold"
)

var configs = []struct {
	bits, n, k int
}{
	{512, 3, 2},
	{512, 5, 3},
	{512, 3, 1},
	{2048, 3, 2},
}

func TestKeyShares(t *testing.T) {
	for _, tc := range configs {
		t.Run(fmt.Sprintf("%d-bit/%d-of-%d", tc.bits, tc.k, tc.n), func(t *testing.T) {
			start := time.Now()
			f := newFixture(t, tc.bits, tc.n, tc.k)
			res, parties := f.mustRun(t, hooks{})
			checkSecret(t, f, parties)
			checkShares(t, f, res)
			checkDecryption(t, f, res)
			checkExponents(t, f, res)
			if err := proveWellFormed(t, f.n, res.Exponents); err != nil {
				t.Errorf("Πmod with the step's u_i, E'_i: %v", err)
			}
			t.Logf("ShareBits %d, step and checks %v", f.params.ShareBits(), time.Since(start))
		})
	}
}

// checkSecret: D ≡ 1 (mod N), D ≡ 0 (mod Δ·m), with the known primes.
func checkSecret(t *testing.T, f *fixture, parties []*Party) {
	t.Helper()
	d := secretD(parties)
	if new(big.Int).Mod(d, f.n).Cmp(big.NewInt(1)) != 0 {
		t.Error("D ≢ 1 (mod N)")
	}
	dm := new(big.Int).Mul(f.params.Delta(), f.m)
	if new(big.Int).Mod(d, dm).Sign() != 0 {
		t.Error("D ≢ 0 (mod Δ·m)")
	}
}

// checkShares: every share is below 2^ShareBits, is Σ_i f_i(j), and
// Checks against the public parameters.
func checkShares(t *testing.T, f *fixture, res *Result) {
	t.Helper()
	if res.Public.ShareBits != f.params.ShareBits() {
		t.Errorf("PublicParams.ShareBits %d, Params %d", res.Public.ShareBits, f.params.ShareBits())
	}
	for j, ks := range res.Shares {
		if err := ks.Check(res.Public); err != nil {
			t.Errorf("trustee %d's share: %v", j+1, err)
		}
		if ks.Index != j+1 || ks.K != f.params.K || ks.L != f.params.Trustees {
			t.Errorf("trustee %d's share has index %d, %d-of-%d", j+1, ks.Index, ks.K, ks.L)
		}
	}
}

// checkDecryption: every K-subset of partials decrypts a random ciphertext
// and the derived self-test ciphertext.
func checkDecryption(t *testing.T, f *fixture, res *Result) {
	t.Helper()
	msg, err := rand.Int(rand.Reader, f.n)
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := res.Public.PublicKey.Encrypt(rand.Reader, msg)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckSelfTest(res.Public, c, msg, partials(t, res, c)); err != nil {
		t.Errorf("random ciphertext: %v", err)
	}
	cs, ms, err := threshold.SelfTestCiphertext(res.Public, ceremony)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckSelfTest(res.Public, cs, ms, partials(t, res, cs)); err != nil {
		t.Errorf("self-test ciphertext: %v", err)
	}
}

// checkExponents: Σ u_i ≡ 4⁻¹ (mod m), Σ E'_i ≡ N⁻¹ (mod φ(N)), Σ m_i = m.
func checkExponents(t *testing.T, f *fixture, res *Result) {
	t.Helper()
	m, u, e := new(big.Int), new(big.Int), new(big.Int)
	for _, sh := range res.Exponents {
		m.Add(m, sh.M)
		u.Add(u, sh.U)
		e.Add(e, sh.E)
	}
	phi := new(big.Int).Lsh(f.m, 2)
	if m.Cmp(f.m) != 0 {
		t.Error("Σ m_i ≠ m")
	}
	if new(big.Int).Mod(new(big.Int).Lsh(u, 2), f.m).Cmp(big.NewInt(1)) != 0 {
		t.Error("4·Σ u_i ≢ 1 (mod m)")
	}
	if new(big.Int).Mod(new(big.Int).Mul(e, f.n), phi).Cmp(big.NewInt(1)) != 0 {
		t.Error("N·Σ E'_i ≢ 1 (mod φ(N))")
	}
}

// TestShareBitsFitThreshold: the bound is within the threshold scheme's
// |N²| ≤ ShareBits ≤ 2·|N²| for the sizes in use, and close to the design's
// estimate (≈ 6,560 bits for N = 2048).
func TestShareBitsFitThreshold(t *testing.T) {
	for _, tc := range configs {
		f := newFixture(t, tc.bits, tc.n, tc.k)
		n2 := new(big.Int).Mul(f.n, f.n).BitLen()
		sb := f.params.ShareBits()
		if sb < n2 || sb > 2*n2 {
			t.Errorf("%d-bit N, %d-of-%d: ShareBits %d outside %d..%d", tc.bits, tc.k, tc.n, sb, n2, 2*n2)
		}
		t.Logf("%d-bit N, %d-of-%d: ShareBits %d", tc.bits, tc.k, tc.n, sb)
	}
}

// TestSharesStayBelowBound runs the step many times and requires every
// share below 2^ShareBits (NewKeyShare would refuse it otherwise); it also
// checks the sub-shares stay positive.
func TestSharesStayBelowBound(t *testing.T) {
	runs := 20
	if testing.Short() {
		runs = 5
	}
	for _, tc := range configs[:3] {
		f := newFixture(t, tc.bits, tc.n, tc.k)
		maxBits := 0
		for range runs {
			_, parties := f.mustRun(t, hooks{})
			for j := 1; j <= tc.n; j++ {
				s := shareValue(parties, j)
				if s.Sign() < 0 || s.BitLen() > f.params.ShareBits() {
					t.Fatalf("share of %d bits, bound %d", s.BitLen(), f.params.ShareBits())
				}
				maxBits = max(maxBits, s.BitLen())
				for _, p := range parties {
					if tc.k > 1 && evalInt(p.poly, j).Sign() <= 0 {
						t.Fatalf("dealer %d's sub-share for %d is not positive", p.id, j)
					}
				}
			}
		}
		t.Logf("%d-of-%d: largest share %d bits, ShareBits %d", tc.k, tc.n, maxBits, f.params.ShareBits())
	}
}

func TestWrongSubShareNamesDealer(t *testing.T) {
	f := newFixture(t, 512, 3, 2)
	for _, tc := range []struct {
		dealer, receiver int
		change           func(v *big.Int) *big.Int
	}{
		{2, 3, func(v *big.Int) *big.Int { return new(big.Int).Add(v, big.NewInt(1)) }},
		{1, 2, func(v *big.Int) *big.Int { return new(big.Int).Sub(v, f.params.Delta()) }},
		{3, 3, func(v *big.Int) *big.Int { return new(big.Int).Neg(v) }},
		{3, 1, func(v *big.Int) *big.Int { return new(big.Int).Set(f.params.subBound) }},
	} {
		tamper := func(subs []SubShare) {
			for k := range subs {
				if subs[k].From == tc.dealer && subs[k].To == tc.receiver {
					subs[k].Value = tc.change(subs[k].Value)
				}
			}
		}
		_, _, err := run(f.params, f.ms, rand.Reader, hooks{tamper: tamper})
		var de *DealerError
		if !errors.As(err, &de) {
			t.Fatalf("dealer %d → %d: got %v, want a DealerError", tc.dealer, tc.receiver, err)
		}
		if de.Dealer != tc.dealer || de.Receiver != tc.receiver {
			t.Errorf("tampered dealer %d → %d, error names dealer %d → %d", tc.dealer, tc.receiver, de.Dealer, de.Receiver)
		}
	}
}

// TestViews checks that what a trustee receives never holds another
// trustee's m_j, D_j or s_j (nor their residues in the field).
func TestViews(t *testing.T) {
	for _, n := range []int{3, 5} {
		f := newFixture(t, 512, n, (n+1)/2)
		views := make([][]*big.Int, n+1)
		deliver := func(to int, values ...*big.Int) { views[to] = append(views[to], values...) }
		res, parties := f.mustRun(t, hooks{deliver: deliver})
		pr := f.params.scheme.Field()
		for j, p := range parties {
			secrets := []*big.Int{p.m, p.poly[0], shareValue(parties, j+1), res.Exponents[j].E, res.Exponents[j].U}
			for to := 1; to <= n; to++ {
				if to == j+1 {
					continue
				}
				for _, s := range secrets {
					for _, v := range views[to] {
						if v.CmpAbs(s) == 0 || v.Cmp(pr.Reduce(s)) == 0 {
							t.Fatalf("n = %d: trustee %d's view holds a secret of trustee %d", n, to, j+1)
						}
					}
				}
			}
		}
	}
}

func BenchmarkRun2048(b *testing.B) {
	f := newFixture(b, 2048, 3, 2)
	for b.Loop() {
		if _, err := Run(f.params, f.ms, rand.Reader); err != nil {
			b.Fatal(err)
		}
	}
}
