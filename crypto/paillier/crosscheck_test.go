package paillier

import (
	"crypto/rand"
	"math/big"
	"testing"

	dc "github.com/didiercrunch/paillier"
)

// TestCrossCheckDidiercrunch compares with github.com/didiercrunch/paillier,
// an independent implementation (textbook (1+N)^m computed by exponentiation,
// decryption with φ): same ciphertext for the same (m, r), and each side
// decrypts the other's ciphertexts and homomorphic sums.
func TestCrossCheckDidiercrunch(t *testing.T) {
	for _, name := range []string{"small1024", "key2048"} {
		sk := fixedKey(t, name)
		other := dc.CreatePrivateKey(sk.p, sk.q)
		for _, m := range []*big.Int{big.NewInt(0), big.NewInt(1), big.NewInt(1 << 40), randBelow(t, sk.N)} {
			r, err := sk.RandomNonce(nil)
			if err != nil {
				t.Fatal(err)
			}
			ours, err := sk.EncryptWithNonce(m, r)
			if err != nil {
				t.Fatal(err)
			}
			theirs, err := other.EncryptWithR(m, r)
			if err != nil {
				t.Fatal(err)
			}
			if ours.Cmp(theirs.C) != 0 {
				t.Fatalf("%s: ciphertexts of %v differ", name, m)
			}
			if got := other.Decrypt(&dc.Cypher{C: ours}); got.Cmp(m) != 0 {
				t.Fatalf("%s: didiercrunch decrypts ours to %v, want %v", name, got, m)
			}
		}
		m1, m2 := randBelow(t, sk.N), randBelow(t, sk.N)
		c1, _ := other.Encrypt(m1, rand.Reader)
		c2, _ := other.Encrypt(m2, rand.Reader)
		want := new(big.Int).Add(m1, m2)
		want.Mod(want, sk.N)
		if got, err := sk.Decrypt(sk.Add(c1.C, c2.C)); err != nil || got.Cmp(want) != 0 {
			t.Fatalf("%s: sum of didiercrunch ciphertexts decrypts to %v (%v), want %v", name, got, err, want)
		}
		if got := other.Decrypt(other.Add(c1, c2)); got.Cmp(want) != 0 {
			t.Fatalf("%s: didiercrunch disagrees with itself", name)
		}
	}
}
