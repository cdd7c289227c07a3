package biprime

import (
	"errors"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/fabvote/fabvote/crypto/dkg/internal/dkgtest"
)

var ceremony = []byte("test-ceremony-0001")

func TestBiprimesPassEveryRound(t *testing.T) {
	for _, bits := range []int{256, 512, 1024} {
		s := dkgtest.PrimeSet(bits)
		for _, n := range []int{1, 3, 5} {
			if testing.Short() && bits == 1024 && n > 1 {
				continue
			}
			N, ms := mShares(t, s.Blum[0], s.Blum[1], n)
			if err := runTest(N, ceremony, ms, Rounds); err != nil {
				t.Errorf("%d-bit N, %d trustees: %v", 2*bits, n, err)
			}
		}
	}
}

// Chernick's Carmichael number (6k+1)(12k+1)(18k+1), k = 1099511628756.
var carmichael = [3]string{"6597069772537", "13194139545073", "19791209317609"}

// TestNonBiprimes gives moduli that are not products of two distinct Blum
// primes, each with the split the trustees would hold (claimed p, q), and
// says whether the test refuses them and why.
func TestNonBiprimes(t *testing.T) {
	s, s2 := dkgtest.PrimeSet(256), dkgtest.PrimeSet(512)
	p, q, r := s.Blum[0], s.Blum[1], s.Blum[2]
	c := [3]*big.Int{hexInt(t, carmichael[0]), hexInt(t, carmichael[1]), hexInt(t, carmichael[2])}
	for _, tc := range []struct {
		name    string
		p, q    *big.Int
		refused bool
		why     string
	}{
		{"p·q·r, split p | qr", p, mul(q, r), true,
			"three prime factors: BF's bound, at least half of the Jacobi +1 bases fail"},
		{"p²·q, split p² | q", mul(p, p), q, true,
			"g^m is ±1 only for bases of order prime to p; BF's bound does not cover p^a·q^b, wellformed's Πmod is what guarantees the refusal"},
		{"p²·q, split p | pq", p, mul(p, q), true,
			"same modulus, other split; wellformed's Πmod guarantees the refusal"},
		{"p ≡ 1 (mod 4), q ≡ 3 (mod 4)", s.OneMod4, q, true,
			"g^m ≡ (g/p) (mod p) and 1 (mod q): the bases with (g/p) = (g/q) = −1 fail"},
		{"Carmichael 561 = 3 | 11·17", big.NewInt(3), big.NewInt(11 * 17), true,
			"three prime factors, claimed factors ≡ 3 (mod 4): BF's bound applies although every base is a Fermat liar"},
		{"Carmichael 1729 = 7 | 13·19", big.NewInt(7), big.NewInt(13 * 19), true, "as 561"},
		{"Carmichael 6601 = 23 | 7·41", big.NewInt(23), big.NewInt(7 * 41), true, "as 561"},
		{"Carmichael (6k+1)(12k+1)(18k+1), split 6k+1 | (12k+1)(18k+1)", c[0], mul(c[1], c[2]), false,
			"k ≡ 0 (mod 4): λ(N) = 36k divides m, so g^m = 1 for every g: passes; the claimed factors are ≡ 1 (mod 4), outside BF's hypothesis, " +
				"which the sieve's shaping enforces, and wellformed's Πmod refuses the modulus"},
		{"p ≡ q ≡ 1 (mod 4)", s.OneMod4, s2.OneMod4, false,
			"g^m ≡ 1 mod both primes: passes; the sieve's shaping gives p ≡ q ≡ 3 (mod 16) and wellformed's Πmod refuses non-Blum moduli"},
		{"a prime P, split P | 1", q, big.NewInt(1), false,
			"m = 0, every value is 1: passes; the shaping rules out a factor 1 and wellformed refuses a prime N"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			N, ms := mShares(t, tc.p, tc.q, 3)
			err := runTest(N, ceremony, ms, Rounds)
			if tc.refused && !errors.Is(err, ErrNotBiprime) {
				t.Fatalf("got %v, want ErrNotBiprime (%s)", err, tc.why)
			}
			if !tc.refused && err != nil {
				t.Fatalf("got %v, want a pass (%s)", err, tc.why)
			}
		})
	}
}

func TestWrongTrusteeValueFailsTheRound(t *testing.T) {
	s := dkgtest.PrimeSet(256)
	N, ms := mShares(t, s.Blum[0], s.Blum[1], 3)
	ms[2].Add(ms[2], big.NewInt(4)) // trustee 3 is off by 4
	if err := runTest(N, ceremony, ms, Rounds); !errors.Is(err, ErrNotBiprime) {
		t.Fatalf("got %v, want ErrNotBiprime", err)
	}
}

// TestRoundFailureRate checks BF's bound empirically: over many random
// composites N = p·q with claimed factors p ≡ q ≡ 3 (mod 4) of which one is
// not prime (the case the bound covers), at least half of the rounds fail.
func TestRoundFailureRate(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const moduli, rounds = 300, 40
	fails := 0
	for i := 0; i < moduli; i++ {
		p, q := randomComposite(rng)
		N := mul(p, q)
		ms := []*big.Int{new(big.Int).Div(mul(new(big.Int).Sub(p, big.NewInt(1)), new(big.Int).Sub(q, big.NewInt(1))), big.NewInt(4))}
		cer := []byte{byte(i), byte(i >> 8)}
		for r := 1; r <= rounds; r++ {
			g, err := Base(N, cer, r)
			if err != nil {
				t.Fatal(err)
			}
			v, _ := PartyValue(N, g, ms[0])
			if Accept(N, g, []*big.Int{v}) != nil {
				fails++
			}
		}
	}
	// Each round fails with probability ≥ 1/2 (random composites fail far
	// more often: nearly every round); allow 4 standard deviations
	// of sampling error (σ = 0.5/√12000 ≈ 0.0046).
	rate := float64(fails) / (moduli * rounds)
	t.Logf("per-round failure rate over %d composites: %.3f", moduli, rate)
	if rate < 0.5-4*0.0046 {
		t.Fatalf("failure rate %.3f, BF's bound says at least 0.5", rate)
	}
}

// randomComposite returns claimed factors p, q ≡ 3 (mod 4) of a modulus
// with three or four distinct small prime factors.
func randomComposite(rng *rand.Rand) (*big.Int, *big.Int) {
	for {
		f := distinctPrimes(rng, 3+rng.IntN(2))
		cut := 1 + rng.IntN(len(f)-1)
		p, q := mul(f[:cut]...), mul(f[cut:]...)
		if p.Bit(1) == 1 && q.Bit(1) == 1 {
			return p, q
		}
	}
}

func distinctPrimes(rng *rand.Rand, k int) []*big.Int {
	seen := map[int64]bool{}
	var out []*big.Int
	for len(out) < k {
		x := big.NewInt(int64(100 + rng.IntN(900)))
		if x.ProbablyPrime(10) && !seen[x.Int64()] {
			seen[x.Int64()] = true
			out = append(out, x)
		}
	}
	return out
}

// TestBaseVector pins the base derivation (tag, stream layout, Jacobi filter)
// on N = 1000003 · 1000039, ceremony "vector", rounds 1..3.
func TestBaseVector(t *testing.T) {
	N := mul(big.NewInt(1000003), big.NewInt(1000039))
	var got []string
	for r := 1; r <= 3; r++ {
		g, err := Base(N, []byte("vector"), r)
		if err != nil {
			t.Fatal(err)
		}
		if big.Jacobi(g, N) != 1 {
			t.Fatalf("round %d: base has Jacobi symbol %d", r, big.Jacobi(g, N))
		}
		got = append(got, g.String())
	}
	for i, want := range baseVector {
		if got[i] != want {
			t.Fatalf("round %d: base %s, want %s", i+1, got[i], want)
		}
	}
}

// baseVector was computed by an independent Python implementation of the
// derivation.
var baseVector = []string{"42914074514", "539805796133", "404296186061"}

func TestBadInput(t *testing.T) {
	N := mul(dkgtest.PrimeSet(256).Blum[0], dkgtest.PrimeSet(256).Blum[1])
	g, err := Base(N, ceremony, 1)
	if err != nil {
		t.Fatal(err)
	}
	minus := func(x *big.Int) *big.Int { return new(big.Int).Sub(N, x) }
	nonResidue := nonResidueBase(N)
	for _, tc := range []struct {
		name string
		run  func() error
	}{
		{"even modulus", func() error { _, err := Base(big.NewInt(1<<20), ceremony, 1); return err }},
		{"modulus 1", func() error { _, err := Base(big.NewInt(1), ceremony, 1); return err }},
		{"round 0", func() error { _, err := Base(N, ceremony, 0); return err }},
		{"round 81", func() error { _, err := Base(N, ceremony, Rounds+1); return err }},
		{"base 1", func() error { _, err := PartyValue(N, big.NewInt(1), big.NewInt(5)); return err }},
		{"base ≥ N", func() error { _, err := PartyValue(N, new(big.Int).Add(N, g), big.NewInt(5)); return err }},
		{"base with Jacobi −1", func() error { _, err := PartyValue(N, nonResidue, big.NewInt(5)); return err }},
		{"no values", func() error { return Accept(N, g, nil) }},
		{"value 0", func() error { return Accept(N, g, []*big.Int{big.NewInt(1), big.NewInt(0)}) }},
		{"value N", func() error { return Accept(N, g, []*big.Int{new(big.Int).Set(N)}) }},
		{"value nil", func() error { return Accept(N, g, []*big.Int{minus(big.NewInt(1)), nil}) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.run(); !errors.Is(err, ErrBadInput) {
				t.Fatalf("got %v, want ErrBadInput", err)
			}
		})
	}
}

func nonResidueBase(N *big.Int) *big.Int {
	for x := big.NewInt(2); ; x.Add(x, big.NewInt(1)) {
		if big.Jacobi(x, N) == -1 {
			return x
		}
	}
}

func BenchmarkPartyValue2048(b *testing.B) {
	s := dkgtest.PrimeSet(1024)
	N, ms := mShares(b, s.Blum[0], s.Blum[1], 3)
	g, err := Base(N, ceremony, 1)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := PartyValue(N, g, ms[0]); err != nil {
			b.Fatal(err)
		}
	}
}
