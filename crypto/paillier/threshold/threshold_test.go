package threshold

import (
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"testing"
)

// TestDecrypt: K-of-L decryption returns the plaintext for messages at the
// edges of Z_N and for a homomorphic sum, from every K-subset of trustees
// (at the real size, where each partial costs ~0.1 s: every subset for 2-of-3,
// one subset for 3-of-5, and only 0, N-1 and the sum; the algebra does not
// depend on the size, so the small key covers the rest).
func TestDecrypt(t *testing.T) {
	cases := []struct {
		size    string
		k, l    int
		subsets [][]int // nil: every K-subset
	}{
		{sizeSmall, 2, 3, nil},
		{sizeSmall, 3, 5, nil},
		{sizeSmall, 1, 1, nil},
		{sizeSmall, 5, 5, nil},
		{sizeLarge, 2, 3, nil},
		{sizeLarge, 3, 5, [][]int{{5, 2, 4}}},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s/%d-of-%d", tc.size, tc.k, tc.l), func(t *testing.T) {
			pp, shares := testDeal(t, tc.size, tc.k, tc.l)
			n := pp.PublicKey.N
			nMinus1 := new(big.Int).Sub(n, one)
			addends := []*big.Int{randBelow(t, n), randBelow(t, n), nMinus1, big.NewInt(7)}
			sum := new(big.Int)
			sumC := big.NewInt(1)
			for _, a := range addends {
				sum.Add(sum, a)
				sumC.Mul(sumC, encrypt(t, pp.PublicKey, a))
				sumC.Mod(sumC, pp.PublicKey.NSquared)
			}
			sum.Mod(sum, n)
			msgs := []struct {
				name      string
				m, c      *big.Int
				smallOnly bool
			}{
				{"zero", big.NewInt(0), nil, false},
				{"one", big.NewInt(1), nil, true},
				{"N-1", nMinus1, nil, false},
				{"random", randBelow(t, n), nil, true},
				{"homomorphic-sum", sum, sumC, false},
			}
			sets := tc.subsets
			if sets == nil {
				sets = subsets(tc.k, tc.l)
			}
			used := map[int]bool{}
			for _, s := range sets {
				for _, i := range s {
					used[i] = true
				}
			}
			var all []int
			for i := 1; i <= tc.l; i++ {
				if used[i] {
					all = append(all, i)
				}
			}
			for _, msg := range msgs {
				if msg.smallOnly && tc.size == sizeLarge {
					continue
				}
				c := msg.c
				if c == nil {
					c = encrypt(t, pp.PublicKey, msg.m)
				}
				byIndex := map[int]*PartialDecryption{}
				for _, pd := range partials(t, pp, shares, c, all...) {
					byIndex[pd.Index] = pd
				}
				for _, s := range sets {
					parts := make([]*PartialDecryption, len(s))
					for n, i := range s {
						parts[n] = byIndex[i]
					}
					got, err := pp.Combine(c, parts)
					if err != nil {
						t.Fatalf("%s, trustees %v: %v", msg.name, s, err)
					}
					if got.Cmp(msg.m) != 0 {
						t.Fatalf("%s, trustees %v: decrypted %v, want %v", msg.name, s, got, msg.m)
					}
				}
			}
		})
	}
}

// TestCombineMoreThanK: extra valid partials are verified and accepted.
func TestCombineMoreThanK(t *testing.T) {
	pp, shares := testDeal(t, sizeSmall, 2, 4)
	m := big.NewInt(123456789)
	c := encrypt(t, pp.PublicKey, m)
	got, err := pp.Combine(c, partials(t, pp, shares, c, 4, 1, 3, 2))
	if err != nil {
		t.Fatal(err)
	}
	if got.Cmp(m) != 0 {
		t.Fatalf("decrypted %v, want %v", got, m)
	}
}

func TestTooFewPartials(t *testing.T) {
	for _, tc := range []struct{ k, l int }{{2, 3}, {3, 5}, {5, 5}} {
		t.Run(fmt.Sprintf("%d-of-%d", tc.k, tc.l), func(t *testing.T) {
			pp, shares := testDeal(t, sizeSmall, tc.k, tc.l)
			c := encrypt(t, pp.PublicKey, big.NewInt(5))
			idx := make([]int, tc.k-1)
			for i := range idx {
				idx[i] = tc.l - i
			}
			for _, parts := range [][]*PartialDecryption{nil, partials(t, pp, shares, c, idx...)} {
				_, err := pp.Combine(c, parts)
				if !errors.Is(err, ErrTooFewPartials) {
					t.Fatalf("%d partials: got %v, want ErrTooFewPartials", len(parts), err)
				}
			}
		})
	}
}

// TestRejectBadPartial puts one bad partial among good ones and expects
// Combine and VerifyPartial to reject it, naming the trustee.
func TestRejectBadPartial(t *testing.T) {
	for _, size := range []string{sizeSmall, sizeLarge} {
		t.Run(size, func(t *testing.T) { testRejectBadPartial(t, size) })
	}
}

func testRejectBadPartial(t *testing.T, size string) {
	pp, shares := testDeal(t, size, 2, 3)
	pk := pp.PublicKey
	m := big.NewInt(31337)
	c := encrypt(t, pk, m)
	other := encrypt(t, pk, m) // same plaintext, another ciphertext
	good := partials(t, pp, shares, c, 1, 2, 3)
	p, _ := primesFor(t, size)

	clone := func(pd *PartialDecryption) *PartialDecryption {
		return &PartialDecryption{Index: pd.Index, Ci: new(big.Int).Set(pd.Ci),
			Proof: &EqualityProof{E: new(big.Int).Set(pd.Proof.E), Z: new(big.Int).Set(pd.Proof.Z)}}
	}
	withCi := func(ci *big.Int) func() *PartialDecryption {
		return func() *PartialDecryption { pd := clone(good[1]); pd.Ci = ci; return pd }
	}
	cases := []struct {
		name      string
		bad       func() *PartialDecryption
		wantIndex int
		want      error
	}{
		{"forged proof: Z+1", func() *PartialDecryption {
			pd := clone(good[1])
			pd.Proof.Z.Add(pd.Proof.Z, one)
			return pd
		}, 2, ErrInvalidProof},
		{"forged proof: E+1", func() *PartialDecryption {
			pd := clone(good[1])
			pd.Proof.E.Add(pd.Proof.E, one)
			return pd
		}, 2, ErrInvalidProof},
		{"forged proof: random E and Z", func() *PartialDecryption {
			pd := clone(good[1])
			pd.Proof.E = randBelow(t, new(big.Int).Lsh(one, ChallengeBits))
			pd.Proof.Z = randBelow(t, new(big.Int).Lsh(one, uint(pp.proofRandBits())))
			return pd
		}, 2, ErrInvalidProof},
		{"proof of another trustee", func() *PartialDecryption {
			pd := clone(good[1])
			pd.Proof = good[2].Proof
			return pd
		}, 2, ErrInvalidProof},
		{"decrypted with the wrong share", func() *PartialDecryption {
			wrong := &KeyShare{Index: 2, K: 2, L: 3, N: shares[0].N, secret: shares[2].secret}
			pd, err := wrong.partialDecrypt(rand.Reader, pp, c)
			if err != nil {
				t.Fatal(err)
			}
			return pd
		}, 2, ErrInvalidProof},
		{"partial for another ciphertext", func() *PartialDecryption {
			return partials(t, pp, shares, other, 2)[0]
		}, 2, ErrInvalidProof},
		{"c_i negated (malleability)", func() *PartialDecryption {
			return withCi(new(big.Int).Sub(pk.NSquared, good[1].Ci))()
		}, 2, ErrInvalidProof},
		{"c_i = 0", withCi(big.NewInt(0)), 2, ErrInvalidPartial},
		{"c_i = N²", withCi(new(big.Int).Set(pk.NSquared)), 2, ErrInvalidPartial},
		{"c_i > N²", withCi(new(big.Int).Add(pk.NSquared, good[1].Ci)), 2, ErrInvalidPartial},
		{"c_i negative", withCi(new(big.Int).Neg(good[1].Ci)), 2, ErrInvalidPartial},
		{"c_i = N", withCi(new(big.Int).Set(pk.N)), 2, ErrInvalidPartial},
		{"c_i multiple of p", withCi(new(big.Int).Mul(p, big.NewInt(3))), 2, ErrInvalidPartial},
		{"c_i missing", withCi(nil), 2, ErrInvalidPartial},
		{"proof missing", func() *PartialDecryption { pd := clone(good[1]); pd.Proof = nil; return pd }, 2, ErrInvalidPartial},
		{"Z too long", func() *PartialDecryption {
			pd := clone(good[1])
			pd.Proof.Z.SetBit(pd.Proof.Z, pp.proofZBits(), 1)
			return pd
		}, 2, ErrInvalidPartial},
		{"E too long", func() *PartialDecryption {
			pd := clone(good[1])
			pd.Proof.E.SetBit(pd.Proof.E, ChallengeBits, 1)
			return pd
		}, 2, ErrInvalidPartial},
		{"E negative", func() *PartialDecryption { pd := clone(good[1]); pd.Proof.E.Neg(pd.Proof.E); return pd }, 2, ErrInvalidPartial},
		{"index 0", func() *PartialDecryption { pd := clone(good[1]); pd.Index = 0; return pd }, 0, ErrInvalidPartial},
		{"index L+1", func() *PartialDecryption { pd := clone(good[1]); pd.Index = 4; return pd }, 4, ErrInvalidPartial},
		{"relabelled as trustee 3", func() *PartialDecryption { pd := clone(good[1]); pd.Index = 3; return pd }, 3, ErrInvalidProof},
		{"nil partial", func() *PartialDecryption { return nil }, 0, ErrInvalidPartial},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bad := tc.bad()
			check := func(what string, err error, wantPos int) {
				t.Helper()
				var pe *PartialError
				if !errors.As(err, &pe) {
					t.Fatalf("%s: got %v, want a *PartialError", what, err)
				}
				if pe.Index != tc.wantIndex || pe.Position != wantPos {
					t.Fatalf("%s: error names trustee %d at #%d, want trustee %d at #%d (%v)", what, pe.Index, pe.Position, tc.wantIndex, wantPos, err)
				}
				if !errors.Is(err, tc.want) {
					t.Fatalf("%s: got %v, want %v", what, err, tc.want)
				}
				if !strings.Contains(err.Error(), fmt.Sprintf("trustee %d", tc.wantIndex)) {
					t.Fatalf("%s: message %q does not name trustee %d", what, err, tc.wantIndex)
				}
			}
			check("VerifyPartial", pp.VerifyPartial(c, bad), -1)
			// The bad partial sits between two good ones (trustees 1 and 3,
			// or 1 and 2 when the bad one claims index 3).
			third := good[2]
			if bad != nil && bad.Index == 3 {
				third = good[1]
			}
			_, err := pp.Combine(c, []*PartialDecryption{good[0], bad, third})
			check("Combine", err, 1)
		})
	}
	// The good partials still decrypt: the cases did not alter them.
	got, err := pp.Combine(c, good)
	if err != nil || got.Cmp(m) != 0 {
		t.Fatalf("good partials: got %v, %v; want %v", got, err, m)
	}
}

func TestDuplicateIndex(t *testing.T) {
	pp, shares := testDeal(t, sizeSmall, 2, 3)
	c := encrypt(t, pp.PublicKey, big.NewInt(9))
	g := partials(t, pp, shares, c, 1, 2)
	again := partials(t, pp, shares, c, 1)[0] // fresh proof, same trustee
	for _, tc := range []struct {
		name    string
		parts   []*PartialDecryption
		wantPos int
	}{
		{"same partial twice", []*PartialDecryption{g[0], g[0]}, 1},
		{"same trustee, two proofs", []*PartialDecryption{g[0], g[1], again}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := pp.Combine(c, tc.parts)
			var pe *PartialError
			if !errors.Is(err, ErrDuplicateIndex) || !errors.As(err, &pe) || pe.Index != 1 || pe.Position != tc.wantPos {
				t.Fatalf("got %v, want ErrDuplicateIndex for trustee 1 at #%d", err, tc.wantPos)
			}
		})
	}
}

func TestRejectBadCiphertext(t *testing.T) {
	pp, shares := testDeal(t, sizeSmall, 2, 3)
	pk := pp.PublicKey
	good := encrypt(t, pk, big.NewInt(1))
	parts := partials(t, pp, shares, good, 1, 2)
	for _, tc := range []struct {
		name string
		c    *big.Int
	}{
		{"nil", nil},
		{"zero", big.NewInt(0)},
		{"N²", new(big.Int).Set(pk.NSquared)},
		{"N", new(big.Int).Set(pk.N)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := shares[0].partialDecrypt(rand.Reader, pp, tc.c); !errors.Is(err, ErrInvalidCiphertext) {
				t.Errorf("partialDecrypt: got %v, want ErrInvalidCiphertext", err)
			}
			if err := pp.VerifyPartial(tc.c, parts[0]); !errors.Is(err, ErrInvalidCiphertext) {
				t.Errorf("VerifyPartial: got %v, want ErrInvalidCiphertext", err)
			}
			if _, err := pp.Combine(tc.c, parts); !errors.Is(err, ErrInvalidCiphertext) {
				t.Errorf("Combine: got %v, want ErrInvalidCiphertext", err)
			}
		})
	}
}

// TestShareUsedWithWrongParams: partialDecrypt refuses a share from another
// dealing, and Check catches a share whose secret is not the dealt one.
func TestShareUsedWithWrongParams(t *testing.T) {
	pp, shares := testDeal(t, sizeSmall, 2, 3)
	pp35, shares35 := testDeal(t, sizeSmall, 3, 5)
	ppLarge, _ := testDeal(t, sizeLarge, 2, 3)
	c := encrypt(t, pp.PublicKey, big.NewInt(3))
	for _, tc := range []struct {
		name  string
		ks    *KeyShare
		pp    *PublicParams
		field string
	}{
		{"other modulus", shares[0], ppLarge, "N"},
		{"other threshold", shares35[0], pp, "K, L"},
		{"index beyond L", &KeyShare{Index: 4, K: 2, L: 3, N: shares[0].N, secret: shares[0].secret}, pp, "Index"},
		{"no secret", &KeyShare{Index: 1, K: 2, L: 3, N: shares[0].N}, pp, "KeyShare"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cc := c
			if tc.pp == ppLarge {
				cc = encrypt(t, ppLarge.PublicKey, big.NewInt(3))
			}
			_, err := tc.ks.partialDecrypt(rand.Reader, tc.pp, cc)
			if !errors.Is(err, ErrInvalidShare) || !strings.Contains(err.Error(), tc.field+":") {
				t.Fatalf("got %v, want ErrInvalidShare naming %q", err, tc.field)
			}
			if err := tc.ks.Check(tc.pp); !errors.Is(err, ErrInvalidShare) {
				t.Fatalf("Check: got %v, want ErrInvalidShare", err)
			}
		})
	}
	for i, ks := range shares35 {
		if err := ks.Check(pp35); err != nil {
			t.Fatalf("share %d: %v", i+1, err)
		}
	}
	swapped := &KeyShare{Index: 1, K: 3, L: 5, N: shares35[0].N, secret: shares35[1].secret}
	if err := swapped.Check(pp35); !errors.Is(err, ErrInvalidShare) || !strings.Contains(err.Error(), "secret") {
		t.Fatalf("swapped secret: got %v, want ErrInvalidShare naming secret", err)
	}
}

// TestDealerKeepsNoSecret: neither the public parameters nor any single share
// contain p, q, p', q', m = p'q', λ = 2m, φ(N) or d.
func TestDealerKeepsNoSecret(t *testing.T) {
	for _, size := range []string{sizeSmall, sizeLarge} {
		t.Run(size, func(t *testing.T) {
			pp, shares := testDeal(t, size, 2, 3)
			p, q := primesFor(t, size)
			n := pp.PublicKey.N
			p1, q1 := new(big.Int).Rsh(p, 1), new(big.Int).Rsh(q, 1)
			m := new(big.Int).Mul(p1, q1)
			d := new(big.Int).ModInverse(m, n)
			d.Mul(d, m)
			secrets := map[string]*big.Int{
				"p": p, "q": q, "p'": p1, "q'": q1, "m": m, "d": d,
				"lambda": new(big.Int).Lsh(m, 1), "phi": new(big.Int).Lsh(m, 2),
			}
			ppBytes, err := pp.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			blobs := map[string][]byte{"PublicParams": ppBytes}
			for _, ks := range shares {
				b, err := ks.MarshalBinary()
				if err != nil {
					t.Fatal(err)
				}
				blobs[fmt.Sprintf("share %d", ks.Index)] = b
				if ks.secret.Cmp(d) == 0 {
					t.Fatalf("share %d is the full secret d", ks.Index)
				}
			}
			for bn, b := range blobs {
				for sn, s := range secrets {
					if strings.Contains(string(b), string(s.Bytes())) {
						t.Errorf("%s encoding contains %s", bn, sn)
					}
				}
			}
			// The public parameters hold no share either.
			for _, ks := range shares {
				if strings.Contains(string(ppBytes), string(ks.secret.Bytes())) {
					t.Errorf("PublicParams contain the share of trustee %d", ks.Index)
				}
			}
		})
	}
}

// TestDealFromPrimesRejects: bad primes and bad thresholds are refused.
func TestDealFromPrimesRejects(t *testing.T) {
	p, q := primesFor(t, sizeLarge)
	sp, sq := primesFor(t, sizeSmall)
	notSafe := new(big.Int).Add(p, big.NewInt(2))
	for !notSafe.ProbablyPrime(20) || IsSafePrime(notSafe) {
		notSafe.Add(notSafe, big.NewInt(2))
	}
	for _, tc := range []struct {
		name  string
		p, q  *big.Int
		k, l  int
		field string
	}{
		{"p = q", p, p, 2, 3, "p, q"},
		{"lengths differ", p, sq, 2, 3, "p, q"},
		{"p prime but not safe", notSafe, q, 2, 3, "p:"},
		{"q composite", p, new(big.Int).Add(q, big.NewInt(2)), 2, 3, "q:"},
		{"N too short", sp, sq, 2, 3, "N:"},
		{"K = 0", p, q, 0, 3, "K:"},
		{"K > L", p, q, 4, 3, "K:"},
		{"L too large", p, q, 2, MaxTrustees + 1, "L:"},
		{"nil prime", nil, q, 2, 3, "p, q"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := DealFromPrimes(rand.Reader, tc.p, tc.q, tc.k, tc.l)
			if !errors.Is(err, ErrInvalidParams) || !strings.Contains(err.Error(), tc.field) {
				t.Fatalf("got %v, want ErrInvalidParams naming %q", err, tc.field)
			}
		})
	}
}

// TestDealFromPrimesRealSize: the public entry point at 2048 bits gives
// parameters that validate and shares that check.
func TestDealFromPrimesRealSize(t *testing.T) {
	p, q := primesFor(t, sizeLarge)
	pp, shares, err := DealFromPrimes(rand.Reader, p, q, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := pp.Validate(); err != nil {
		t.Fatal(err)
	}
	if pp.PublicKey.N.BitLen() != 2048 || len(shares) != 3 {
		t.Fatalf("N has %d bits, %d shares", pp.PublicKey.N.BitLen(), len(shares))
	}
	for _, ks := range shares {
		if err := ks.Check(pp); err != nil {
			t.Fatalf("share %d: %v", ks.Index, err)
		}
	}
}

func TestDealArguments(t *testing.T) {
	for _, tc := range []struct {
		name       string
		bits, k, l int
		field      string
	}{
		{"odd size", 2049, 2, 3, "bits"},
		{"too small", 1024, 2, 3, "bits"},
		{"K > L", 2048, 3, 2, "K"},
		{"L = 0", 2048, 1, 0, "L"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Deal(rand.Reader, tc.bits, tc.k, tc.l)
			if !errors.Is(err, ErrInvalidParams) || !strings.Contains(err.Error(), tc.field+":") {
				t.Fatalf("got %v, want ErrInvalidParams naming %q", err, tc.field)
			}
		})
	}
}

// TestDeal runs the whole dealer, safe-prime generation included, at the
// smallest real size and decrypts with the result.
func TestDeal(t *testing.T) {
	if testing.Short() {
		t.Skip("generates two 1024-bit safe primes")
	}
	pp, shares, err := Deal(rand.Reader, 2048, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := pp.Validate(); err != nil {
		t.Fatal(err)
	}
	if pp.PublicKey.N.BitLen() != 2048 {
		t.Fatalf("N has %d bits", pp.PublicKey.N.BitLen())
	}
	m := randBelow(t, pp.PublicKey.N)
	c := encrypt(t, pp.PublicKey, m)
	got, err := pp.Combine(c, partials(t, pp, shares, c, 3, 1))
	if err != nil || got.Cmp(m) != 0 {
		t.Fatalf("got %v, %v; want %v", got, err, m)
	}
}

func TestLagrangeTimesDeltaIsInteger(t *testing.T) {
	// Σ μ_i·i^j = Δ·[j = 0] for j < |S|: the coefficients interpolate f(0).
	for _, l := range []int{1, 3, 5, 8} {
		delta := factorial(l)
		for k := 1; k <= l; k++ {
			for _, s := range subsets(k, l) {
				parts := make([]*PartialDecryption, len(s))
				for n, i := range s {
					parts[n] = &PartialDecryption{Index: i}
				}
				for j := 0; j < k; j++ {
					sum := new(big.Int)
					for _, i := range s {
						mu, err := lagrangeTimesDelta(delta, i, parts)
						if err != nil {
							t.Fatalf("L=%d S=%v: %v", l, s, err)
						}
						sum.Add(sum, mu.Mul(mu, new(big.Int).Exp(big.NewInt(int64(i)), big.NewInt(int64(j)), nil)))
					}
					want := new(big.Int)
					if j == 0 {
						want.Set(delta)
					}
					if sum.Cmp(want) != 0 {
						t.Fatalf("L=%d S=%v j=%d: Σ μ_i i^j = %v, want %v", l, s, j, sum, want)
					}
				}
			}
		}
	}
}

// TestMalformedParams: operations on malformed parameters fail with
// ErrInvalidParams naming the field instead of panicking.
func TestMalformedParams(t *testing.T) {
	pp, shares := testDeal(t, sizeSmall, 2, 3)
	c := encrypt(t, pp.PublicKey, big.NewInt(2))
	parts := partials(t, pp, shares, c, 1, 2)
	for _, tc := range []struct {
		name  string
		mod   func(p *PublicParams) *PublicParams
		field string
	}{
		{"nil", func(*PublicParams) *PublicParams { return nil }, "PublicParams"},
		{"no public key", func(p *PublicParams) *PublicParams { p.PublicKey = nil; return p }, "PublicKey"},
		{"missing V", func(p *PublicParams) *PublicParams { p.V = nil; return p }, "V:"},
		{"one verification key short", func(p *PublicParams) *PublicParams { p.VerificationKeys = p.VerificationKeys[:2]; return p }, "VerificationKeys"},
		{"nil verification key", func(p *PublicParams) *PublicParams {
			p.VerificationKeys = []*big.Int{p.VerificationKeys[0], nil, p.VerificationKeys[2]}
			return p
		}, "trustee 2"},
		{"K > L", func(p *PublicParams) *PublicParams { p.K = 4; return p }, "K:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cp := *pp
			bad := tc.mod(&cp)
			for what, err := range map[string]error{
				"validate":      bad.validate(0),
				"VerifyPartial": bad.VerifyPartial(c, parts[0]),
				"Combine":       func() error { _, err := bad.Combine(c, parts); return err }(),
				"Marshal":       func() error { _, err := bad.MarshalBinary(); return err }(),
			} {
				if !errors.Is(err, ErrInvalidParams) || !strings.Contains(err.Error(), tc.field) {
					t.Errorf("%s: got %v, want ErrInvalidParams naming %q", what, err, tc.field)
				}
			}
		})
	}
}

// TestChallengeBindsStatement: changing any input of the Fiat–Shamir hash
// (key, trustee, verification data, ciphertext, partial, commitments) changes e.
func TestChallengeBindsStatement(t *testing.T) {
	pp, _ := testDeal(t, sizeSmall, 2, 3)
	other, _ := testDeal(t, sizeSmall, 3, 5) // same N, other V and V_i
	x := func() *big.Int { return randBelow(t, pp.PublicKey.NSquared) }
	c, ci, a, b := x(), x(), x(), x()
	base := challenge(pp, 1, c, ci, a, b)
	if base.BitLen() > ChallengeBits {
		t.Fatalf("challenge has %d bits", base.BitLen())
	}
	swapV := *pp
	swapV.V = other.V
	swapVi := *pp
	swapVi.VerificationKeys = []*big.Int{other.VerificationKeys[0], pp.VerificationKeys[1], pp.VerificationKeys[2]}
	largePP, _ := testDeal(t, sizeLarge, 2, 3)
	for name, e := range map[string]*big.Int{
		"N":     challenge(largePP, 1, c, ci, a, b),
		"index": challenge(pp, 2, c, ci, a, b),
		"V":     challenge(&swapV, 1, c, ci, a, b),
		"V_i":   challenge(&swapVi, 1, c, ci, a, b),
		"c":     challenge(pp, 1, x(), ci, a, b),
		"c_i":   challenge(pp, 1, c, x(), a, b),
		"a":     challenge(pp, 1, c, ci, x(), b),
		"b":     challenge(pp, 1, c, ci, a, x()),
	} {
		if e.Cmp(base) == 0 {
			t.Errorf("changing %s does not change the challenge", name)
		}
	}
	if challenge(pp, 1, c, ci, a, b).Cmp(base) != 0 {
		t.Error("challenge is not deterministic")
	}
}
