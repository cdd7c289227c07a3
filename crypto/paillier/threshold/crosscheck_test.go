package threshold

import (
	"crypto/rand"
	"fmt"
	"math/big"
	"testing"

	dc "github.com/didiercrunch/paillier"

	"github.com/fabvote/fabvote/crypto/paillier"
)

// Cross-checks against github.com/didiercrunch/paillier, an independent
// implementation of the same Damgård–Jurik threshold scheme (s = 1, Δ = L!,
// d ≡ 0 mod m, d ≡ 1 mod N, c_i = c^{2Δ s_i}, v_i = v^{Δ s_i}). The product
// does not import it; see doc.go.

// theirKeys expresses our dealt key in their types.
func theirKeys(pp *PublicParams, shares []*KeyShare) []*dc.ThresholdPrivateKey {
	pub := dc.ThresholdPublicKey{
		PublicKey:                      dc.PublicKey{N: pp.PublicKey.N},
		TotalNumberOfDecryptionServers: pp.L,
		Threshold:                      pp.K,
		V:                              pp.V,
		Vi:                             pp.VerificationKeys,
	}
	out := make([]*dc.ThresholdPrivateKey, len(shares))
	for i, ks := range shares {
		out[i] = &dc.ThresholdPrivateKey{ThresholdPublicKey: pub, Id: ks.Index, Share: ks.secret}
	}
	return out
}

// TestCrossCheckSameKey: on our dealt key, their encryption decrypts with our
// threshold decryption, our partials equal theirs and combine with their
// code, their equality proofs verify against our verification keys, and their
// ordinary Paillier decryption with the same primes agrees.
func TestCrossCheckSameKey(t *testing.T) {
	for _, tc := range []struct {
		size string
		k, l int
		use  []int
	}{
		{sizeSmall, 2, 3, []int{3, 1}},
		{sizeSmall, 3, 5, []int{2, 5, 4}},
		{sizeLarge, 2, 3, []int{1, 2}},
	} {
		t.Run(fmt.Sprintf("%s/%d-of-%d", tc.size, tc.k, tc.l), func(t *testing.T) {
			pp, shares := testDeal(t, tc.size, tc.k, tc.l)
			theirs := theirKeys(pp, shares)
			n := pp.PublicKey.N
			m := randBelow(t, n)
			ct, err := theirs[0].Encrypt(m, rand.Reader)
			if err != nil {
				t.Fatal(err)
			}
			c := ct.C

			ours := partials(t, pp, shares, c, tc.use...)
			got, err := pp.Combine(c, ours)
			if err != nil {
				t.Fatal(err)
			}
			if got.Cmp(m) != 0 {
				t.Fatalf("our combine of their ciphertext: %v, want %v", got, m)
			}

			var theirParts []*dc.PartialDecryption
			for _, pd := range ours {
				tp := theirs[pd.Index-1].Decrypt(c)
				if tp.Id != pd.Index || tp.Decryption.Cmp(pd.Ci) != 0 {
					t.Fatalf("trustee %d: their partial decryption differs from ours", pd.Index)
				}
				theirParts = append(theirParts, &dc.PartialDecryption{Id: pd.Index, Decryption: pd.Ci})
			}
			theirM, err := theirs[0].CombinePartialDecryptions(theirParts)
			if err != nil {
				t.Fatal(err)
			}
			if theirM.Cmp(m) != 0 {
				t.Fatalf("their combine of our partials: %v, want %v", theirM, m)
			}

			zkp, err := theirs[tc.use[0]-1].DecryptAndProduceZNP(c, rand.Reader)
			if err != nil {
				t.Fatal(err)
			}
			if !zkp.Verify() {
				t.Fatal("their proof does not verify against our verification keys")
			}

			p, q := primesFor(t, tc.size)
			if plain := dc.CreatePrivateKey(p, q).Decrypt(&dc.Cypher{C: c}); plain.Cmp(m) != 0 {
				t.Fatalf("their plain Paillier decryption: %v, want %v", plain, m)
			}
		})
	}
}

// TestCrossCheckTheirDealer: a key dealt by their generator, imported into our
// types, passes our share check, and our partial decryptions, proofs and
// combination decrypt their ciphertexts, homomorphic sums included.
func TestCrossCheckTheirDealer(t *testing.T) {
	for _, tc := range []struct{ k, l int }{{2, 3}, {3, 5}} {
		t.Run(fmt.Sprintf("%d-of-%d", tc.k, tc.l), func(t *testing.T) {
			gen, err := dc.GetThresholdKeyGenerator(512, tc.l, tc.k, rand.Reader)
			if err != nil {
				t.Fatal(err)
			}
			keys, err := gen.Generate()
			if err != nil {
				t.Fatal(err)
			}
			k0 := keys[0]
			n := k0.N
			pp := &PublicParams{
				PublicKey: &paillier.PublicKey{N: n, NSquared: new(big.Int).Mul(n, n)},
				K:         k0.Threshold, L: k0.TotalNumberOfDecryptionServers,
				V: k0.V, VerificationKeys: k0.Vi,
			}
			if err := pp.validate(0); err != nil {
				t.Fatal(err)
			}
			shares := make([]*KeyShare, len(keys))
			for i, key := range keys {
				shares[i] = &KeyShare{Index: key.Id, K: pp.K, L: pp.L, N: n, secret: key.Share}
				if err := shares[i].Check(pp); err != nil {
					t.Fatalf("their share %d: %v", key.Id, err)
				}
			}
			a, b := randBelow(t, n), randBelow(t, n)
			ca, err := k0.Encrypt(a, rand.Reader)
			if err != nil {
				t.Fatal(err)
			}
			cb, err := k0.Encrypt(b, rand.Reader)
			if err != nil {
				t.Fatal(err)
			}
			sum := new(big.Int).Add(a, b)
			sum.Mod(sum, n)
			for _, x := range []struct {
				name string
				c, m *big.Int
			}{{"a", ca.C, a}, {"a+b", k0.Add(ca, cb).C, sum}} {
				use := subsets(tc.k, tc.l)
				got, err := pp.Combine(x.c, partials(t, pp, shares, x.c, use[len(use)-1]...))
				if err != nil {
					t.Fatalf("%s: %v", x.name, err)
				}
				if got.Cmp(x.m) != 0 {
					t.Fatalf("%s: decrypted %v, want %v", x.name, got, x.m)
				}
			}
		})
	}
}

// TestCrossCheckProofHidesShare is why the product does not use their proof:
// their nonce r is drawn below N², smaller than e·Δ·s_i, so z/e = Δ·s_i + r/e
// reveals the top ~256 bits of Δ·s_i. Our nonce has |N²|+|Δ|+512 bits and
// z/e is dominated by r/e.
func TestCrossCheckProofHidesShare(t *testing.T) {
	pp, shares := testDeal(t, sizeSmall, 2, 3)
	c := encrypt(t, pp.PublicKey, big.NewInt(5))
	ds := new(big.Int).Mul(pp.Delta(), shares[0].secret)
	offset := func(e, z *big.Int) int { // bits of z/e − Δ·s_i
		return new(big.Int).Sub(new(big.Int).Quo(z, e), ds).BitLen()
	}
	theirs, err := theirKeys(pp, shares)[0].DecryptAndProduceZNP(c, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if got := offset(theirs.E, theirs.Z); got > ds.BitLen()-128 {
		t.Fatalf("their z/e is %d bits off Δ·s_i (%d bits): expected it to leak the top bits", got, ds.BitLen())
	}
	ours := partials(t, pp, shares, c, 1)[0]
	if got := offset(ours.Proof.E, ours.Proof.Z); got < ds.BitLen()+128 {
		t.Fatalf("our z/e is only %d bits off Δ·s_i (%d bits): the nonce does not hide the share", got, ds.BitLen())
	}
}
