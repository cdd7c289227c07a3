// Package arith holds the modular-arithmetic kernels that dominate Paillier
// ballot work: exponentiation (r^N mod N², z^N mod N²), multi-exponentiation
// with short exponents (batch verification of validity proofs) and long
// products (the tally). Packages paillier and zkp call only these functions,
// so one build tag switches the whole hot path between backends:
//
//   - default: pure Go on math/big (big.Int.Exp uses Montgomery
//     multiplication; the multi-exponentiation is Straus' interleaved windows
//     for few bases and Pippenger's bucket method for many);
//   - build tag "gmp" (cgo, libgmp-dev): the same functions on GMP's mpz
//     routines. Results are identical; only speed differs (docs/bench/2026-11-22-ballot-cryptography.md).
//     GMP is not constant-time, so computations on secrets call ExpSecret,
//     which stays on math/big in every build; Exp, MultiExp and MulAll are
//     for public values (verification, the tally product).
//
// Backend names the backend compiled in.
package arith

import "math/big"

// Exp returns x^e mod m for x ≥ 0, e ≥ 0 and m > 0. It panics on negative
// arguments (no caller in fabvote passes them).
func Exp(x, e, m *big.Int) *big.Int {
	if x.Sign() < 0 || e.Sign() < 0 || m.Sign() <= 0 {
		panic("arith: Exp needs x ≥ 0, e ≥ 0, m > 0")
	}
	return exp(x, e, m)
}

// ExpSecret returns x^e mod m like Exp, but always on math/big, whatever the
// build tags: for computations on secrets (encryption nonces, the prover's
// randomness, private-key exponents). GMP's mpz_powm is not constant-time
// and its timing could leak them; the gmp backend exists for verification,
// which touches public values only. Same argument rules as Exp.
func ExpSecret(x, e, m *big.Int) *big.Int {
	if x.Sign() < 0 || e.Sign() < 0 || m.Sign() <= 0 {
		panic("arith: ExpSecret needs x ≥ 0, e ≥ 0, m > 0")
	}
	return new(big.Int).Exp(x, e, m)
}

// MultiExp returns ∏ bases[i]^exps[i] mod m. Bases must be in [0, m),
// exponents non-negative, and the slices of equal length; it panics otherwise.
func MultiExp(bases, exps []*big.Int, m *big.Int) *big.Int {
	if len(bases) != len(exps) {
		panic("arith: bases and exponents differ in length")
	}
	if m.Sign() <= 0 {
		panic("arith: modulus must be positive")
	}
	maxBits := 0
	for i, e := range exps {
		if e.Sign() < 0 {
			panic("arith: negative exponent")
		}
		if bases[i].Sign() < 0 || bases[i].Cmp(m) >= 0 {
			panic("arith: base out of range")
		}
		if e.BitLen() > maxBits {
			maxBits = e.BitLen()
		}
	}
	if maxBits == 0 {
		return new(big.Int).Mod(big.NewInt(1), m)
	}
	return multiExp(bases, exps, m, maxBits)
}

// MulAll returns acc · ∏ xs[i] mod m, multiplying sequentially and reducing
// after every step. Values must be non-negative; m positive.
func MulAll(acc *big.Int, xs []*big.Int, m *big.Int) *big.Int {
	if m.Sign() <= 0 || acc.Sign() < 0 {
		panic("arith: MulAll needs acc ≥ 0 and m > 0")
	}
	return mulAll(acc, xs, m)
}

// Coprime reports whether gcd(x, n) = 1, for x ≥ 0 and n > 0 (public values:
// GMP's gcd is not constant-time).
func Coprime(x, n *big.Int) bool {
	if x.Sign() < 0 || n.Sign() <= 0 {
		panic("arith: Coprime needs x ≥ 0 and n > 0")
	}
	return coprime(x, n)
}
