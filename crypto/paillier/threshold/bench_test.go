package threshold

import (
	"crypto/rand"
	"math/big"
	"testing"
)

// Benchmarks at the real size (N = 2048 bits, 2-of-3). Record results in
// docs/bench/2026-11-22-threshold-decryption.md:
//
//	go test ./crypto/paillier/threshold -run '^$' -bench . -benchtime=20x
//	go test ./crypto/paillier/threshold -run '^$' -bench SafePrime -benchtime=1x

func BenchmarkDeal(b *testing.B) {
	p, q := primesFor(b, sizeLarge)
	for b.Loop() {
		if _, _, err := DealFromPrimes(rand.Reader, p, q, 2, 3); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGenerateSafePrime1024(b *testing.B) {
	for b.Loop() {
		p, err := GenerateSafePrime(rand.Reader, 1024)
		if err != nil || p.BitLen() != 1024 {
			b.Fatal(err)
		}
	}
}

func benchSetup(b *testing.B) (*PublicParams, []*KeyShare, *big.Int) {
	pp, shares := testDeal(b, sizeLarge, 2, 3)
	return pp, shares, encrypt(b, pp.PublicKey, big.NewInt(1234567))
}

func BenchmarkPartialDecrypt(b *testing.B) {
	pp, shares, c := benchSetup(b)
	for b.Loop() {
		if _, err := shares[0].partialDecrypt(rand.Reader, pp, c); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVerifyPartial(b *testing.B) {
	pp, shares, c := benchSetup(b)
	pd := partials(b, pp, shares, c, 1)[0]
	for b.Loop() {
		if err := pp.VerifyPartial(c, pd); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCombine includes verifying the K = 2 partials.
func BenchmarkCombine(b *testing.B) {
	pp, shares, c := benchSetup(b)
	parts := partials(b, pp, shares, c, 1, 3)
	for b.Loop() {
		if _, err := pp.Combine(c, parts); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCombineOnly is the interpolation alone, without verification.
func BenchmarkCombineOnly(b *testing.B) {
	pp, shares, c := benchSetup(b)
	parts := partials(b, pp, shares, c, 1, 3)
	for b.Loop() {
		if _, err := pp.combine(parts); err != nil {
			b.Fatal(err)
		}
	}
}
