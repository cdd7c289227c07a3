// Package dkgtest gives the tests of the dealer-free key packages fixed
// test primes and the additive shares that the distributed sieve would give
// the trustees, made here from known primes. Only tests import it.
//
// Shares follow the shaping of the sieve: for j > 1, p_j ≡ q_j ≡ 0 (mod 16),
// and trustee 1's share carries the residue, p_1 ≡ p (mod 16). For
// p ≡ q ≡ 3 (mod 16) every share of φ(N)/4 is then an integer.
package dkgtest

import (
	"crypto/rand"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
)

// Primes are the committed test primes of one size.
type Primes struct {
	Bits int `json:"bits"`
	// Blum holds three distinct primes ≡ 3 (mod 16).
	Blum [3]string `json:"blum"`
	// OneMod4 is a prime ≡ 5 (mod 16), so ≡ 1 (mod 4): a non-Blum factor.
	OneMod4 string `json:"one_mod_4"`
}

// File is the layout of testdata/primes.json.
type File struct {
	Comment string   `json:"comment"`
	Sets    []Primes `json:"sets"`
}

//go:embed testdata/primes.json
var primesJSON []byte

// Set is the test primes of one size, parsed.
type Set struct {
	Bits    int
	Blum    [3]*big.Int
	OneMod4 *big.Int
}

// PrimeSet returns the committed primes of the given size (256, 512 or
// 1024 bits); it panics on a size that is not committed.
func PrimeSet(bits int) Set {
	var f File
	if err := json.Unmarshal(primesJSON, &f); err != nil {
		panic(fmt.Sprintf("dkgtest: testdata/primes.json: %v", err))
	}
	for _, s := range f.Sets {
		if s.Bits == bits {
			return Set{Bits: bits, Blum: [3]*big.Int{hexInt(s.Blum[0]), hexInt(s.Blum[1]), hexInt(s.Blum[2])}, OneMod4: hexInt(s.OneMod4)}
		}
	}
	panic(fmt.Sprintf("dkgtest: no %d-bit primes committed", bits))
}

func hexInt(s string) *big.Int {
	x, ok := new(big.Int).SetString(s, 16)
	if !ok {
		panic("dkgtest: bad hex " + s)
	}
	return x
}

// GeneratePrime returns a prime in [1.5·2^(bits−1), 2^bits) congruent to
// residue mod 16 (residue odd): the product of two such primes has exactly
// 2·bits bits, as the sieve's candidates do.
func GeneratePrime(rnd io.Reader, bits int, residue int64) (*big.Int, error) {
	for {
		x, err := rand.Int(rnd, new(big.Int).Lsh(big.NewInt(1), uint(bits-1)))
		if err != nil {
			return nil, err
		}
		x.SetBit(x, bits-1, 1).SetBit(x, bits-2, 1)
		x.Sub(x, new(big.Int).Mod(x, big.NewInt(16))).Add(x, big.NewInt(residue))
		if x.BitLen() == bits && x.ProbablyPrime(32) {
			return x, nil
		}
	}
}

// Split returns n ≥ 1 additive shares of x with x_j ≡ 0 (mod 16) for j > 1
// and x_1 = x − Σ_{j>1} x_j, so x_1 ≡ x (mod 16). Shares j > 1 are drawn
// from [0, x/(16n)) · 16, so every share is non-negative (0 when x < 16n).
func Split(rnd io.Reader, x *big.Int, n int) []*big.Int {
	shares := make([]*big.Int, n)
	first := new(big.Int).Set(x)
	bound := new(big.Int).Div(x, big.NewInt(int64(16*n)))
	for j := 1; j < n; j++ {
		shares[j] = new(big.Int)
		if bound.Sign() <= 0 {
			continue
		}
		r, err := rand.Int(rnd, bound)
		if err != nil {
			panic(err)
		}
		shares[j] = r.Lsh(r, 4)
		first.Sub(first, shares[j])
	}
	shares[0] = first
	return shares
}

// SplitSigned returns n additive shares of x (any integer), the n−1 last
// ones uniform in (−2^bits, 2^bits): the shape of E'_i, which the key-share
// step produces for real.
func SplitSigned(rnd io.Reader, x *big.Int, n, bits int) []*big.Int {
	shares := make([]*big.Int, n)
	first := new(big.Int).Set(x)
	bound := new(big.Int).Lsh(big.NewInt(1), uint(bits+1))
	half := new(big.Int).Lsh(big.NewInt(1), uint(bits))
	for j := 1; j < n; j++ {
		r, err := rand.Int(rnd, bound)
		if err != nil {
			panic(err)
		}
		shares[j] = r.Sub(r, half)
		first.Sub(first, shares[j])
	}
	shares[0] = first
	return shares
}
