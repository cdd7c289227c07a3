package paillier

import (
	"crypto/rand"
	"fmt"
	"math/big"
	mrand "math/rand/v2"
	"testing"

	"github.com/fabvote/fabvote/internal/benchcpu"
)

// productInput returns n elements of Z*_{N²} drawn from a pool of distinct
// values: the product's cost does not depend on the values being fresh
// encryptions, and a million real encryptions would take hours to make.
func productInput(tb testing.TB, pk *PublicKey, n, pool int) []*big.Int {
	tb.Helper()
	rng := mrand.NewChaCha8([32]byte{'f', 'a', 'b', 'v', 'o', 't', 'e'})
	vals := make([]*big.Int, pool)
	for i := range vals {
		x, err := rand.Int(rng, pk.NSquared)
		if err != nil {
			tb.Fatal(err)
		}
		vals[i] = x
	}
	cs := make([]*big.Int, n)
	for i := range cs {
		cs[i] = vals[i%pool]
	}
	return cs
}

// BenchmarkProduct multiplies 1,000,000 ciphertexts (2048-bit key).
// Run with -benchtime=1x.
func BenchmarkProduct(b *testing.B) {
	sk := fixedKey(b, "key2048")
	cs := productInput(b, &sk.PublicKey, 1_000_000, 1<<14)
	b.ResetTimer()
	start := benchcpu.Now(b)
	for b.Loop() {
		sk.Product(cs)
	}
	benchcpu.Report(b, start, len(cs))
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(cs)), "ns/ciphertext")
}

func BenchmarkDecrypt(b *testing.B) {
	for _, name := range []string{"key2048", "key3072"} {
		sk := fixedKey(b, name)
		c, _, _ := sk.Encrypt(nil, big.NewInt(987654321))
		b.Run(fmt.Sprintf("N=%d/CRT", sk.N.BitLen()), func(b *testing.B) {
			start := benchcpu.Now(b)
			for b.Loop() {
				if _, err := sk.Decrypt(c); err != nil {
					b.Fatal(err)
				}
			}
			benchcpu.Report(b, start, 1)
		})
		b.Run(fmt.Sprintf("N=%d/textbook", sk.N.BitLen()), func(b *testing.B) {
			start := benchcpu.Now(b)
			for b.Loop() {
				if _, err := sk.DecryptTextbook(c); err != nil {
					b.Fatal(err)
				}
			}
			benchcpu.Report(b, start, 1)
		})
		b.Run(fmt.Sprintf("N=%d/with-nonce", sk.N.BitLen()), func(b *testing.B) {
			start := benchcpu.Now(b)
			for b.Loop() {
				if _, _, err := sk.DecryptWithNonce(c); err != nil {
					b.Fatal(err)
				}
			}
			benchcpu.Report(b, start, 1)
		})
	}
}

func BenchmarkEncrypt(b *testing.B) {
	for _, name := range []string{"key2048", "key3072"} {
		sk := fixedKey(b, name)
		b.Run(fmt.Sprintf("N=%d", sk.N.BitLen()), func(b *testing.B) {
			start := benchcpu.Now(b)
			for b.Loop() {
				if _, _, err := sk.Encrypt(nil, big.NewInt(1)); err != nil {
					b.Fatal(err)
				}
			}
			benchcpu.Report(b, start, 1)
		})
	}
}

// BenchmarkGenerateKey is slow and noisy (prime search); use -benchtime=3x.
func BenchmarkGenerateKey(b *testing.B) {
	for _, bits := range []int{2048, 3072} {
		b.Run(fmt.Sprintf("N=%d", bits), func(b *testing.B) {
			start := benchcpu.Now(b)
			for b.Loop() {
				if _, err := GenerateKey(rand.Reader, bits); err != nil {
					b.Fatal(err)
				}
			}
			benchcpu.Report(b, start, 1)
		})
	}
}
