//go:build gmp && cgo

package arith

/*
#cgo LDFLAGS: -lgmp
#include <gmp.h>
#include <stdint.h>
#include <stdlib.h>

// Words are 64-bit, least significant first, as in math/big on 64-bit hosts.
static void fv_import(mpz_t z, const uint64_t *w, size_t n) {
	mpz_import(z, n, -1, sizeof(uint64_t), 0, 0, w);
}

// fv_export writes z into out (cap words) and returns the word count.
static size_t fv_export(uint64_t *out, size_t cap, const mpz_t z) {
	size_t cnt = 0;
	if (mpz_sgn(z) == 0) return 0;
	if (mpz_sizeinbase(z, 2) > cap * 64) return (size_t)-1;
	mpz_export(out, &cnt, -1, sizeof(uint64_t), 0, 0, z);
	return cnt;
}

static size_t fv_powm(uint64_t *out, const uint64_t *x, size_t xn, const uint64_t *e, size_t en,
                      const uint64_t *m, size_t mn) {
	mpz_t X, E, M;
	mpz_inits(X, E, M, NULL);
	fv_import(X, x, xn);
	fv_import(E, e, en);
	fv_import(M, m, mn);
	mpz_powm(X, X, E, M);
	size_t r = fv_export(out, mn, X);
	mpz_clears(X, E, M, NULL);
	return r;
}

// fv_mulall: acc (mn words in/out) times n values of stride words, mod m.
static size_t fv_mulall(uint64_t *acc, const uint64_t *xs, size_t stride, size_t n,
                        const uint64_t *m, size_t mn) {
	mpz_t A, X, M;
	mpz_inits(A, X, M, NULL);
	fv_import(A, acc, mn);
	fv_import(M, m, mn);
	for (size_t i = 0; i < n; i++) {
		fv_import(X, xs + i * stride, stride);
		mpz_mul(A, A, X);
		mpz_tdiv_r(A, A, M);
	}
	size_t r = fv_export(acc, mn, A);
	mpz_clears(A, X, M, NULL);
	return r;
}

static unsigned fv_window(const uint64_t *e, size_t en, size_t lo, int c) {
	unsigned d = 0;
	for (int b = c - 1; b >= 0; b--) {
		size_t i = lo + (size_t)b, w = i / 64;
		unsigned bit = w < en ? (unsigned)((e[w] >> (i % 64)) & 1) : 0;
		d = (d << 1) | bit;
	}
	return d;
}

// fv_multiexp: prod bases[i]^exps[i] mod m. c = 0 means one mpz_powm per base
// (best for a few bases); c > 0 is Pippenger's bucket method with c-bit windows.
static size_t fv_multiexp(uint64_t *out, const uint64_t *bases, size_t bstride,
                          const uint64_t *exps, size_t estride, size_t n, size_t bits, int c,
                          const uint64_t *m, size_t mn) {
	mpz_t M, acc, t;
	mpz_inits(M, acc, t, NULL);
	fv_import(M, m, mn);
	mpz_set_ui(acc, 1);
	if (c == 0) {
		mpz_t B, E;
		mpz_inits(B, E, NULL);
		for (size_t i = 0; i < n; i++) {
			fv_import(B, bases + i * bstride, bstride);
			fv_import(E, exps + i * estride, estride);
			mpz_powm(t, B, E, M);
			mpz_mul(acc, acc, t);
			mpz_tdiv_r(acc, acc, M);
		}
		mpz_clears(B, E, NULL);
	} else {
		size_t nb = (size_t)1 << c;
		mpz_t *B = malloc(n * sizeof(mpz_t));
		mpz_t *bucket = malloc(nb * sizeof(mpz_t));
		char *used = malloc(nb);
		mpz_t run, sum;
		mpz_inits(run, sum, NULL);
		for (size_t i = 0; i < n; i++) {
			mpz_init(B[i]);
			fv_import(B[i], bases + i * bstride, bstride);
		}
		for (size_t d = 0; d < nb; d++) mpz_init(bucket[d]);
		int started = 0;
		size_t windows = (bits + (size_t)c - 1) / (size_t)c;
		for (size_t j = windows; j-- > 0;) {
			if (started)
				for (int s = 0; s < c; s++) {
					mpz_mul(acc, acc, acc);
					mpz_tdiv_r(acc, acc, M);
				}
			for (size_t d = 0; d < nb; d++) used[d] = 0;
			for (size_t i = 0; i < n; i++) {
				unsigned d = fv_window(exps + i * estride, estride, j * (size_t)c, c);
				if (d == 0) continue;
				if (used[d]) {
					mpz_mul(bucket[d], bucket[d], B[i]);
					mpz_tdiv_r(bucket[d], bucket[d], M);
				} else {
					mpz_set(bucket[d], B[i]);
					used[d] = 1;
				}
			}
			int haveRun = 0, haveSum = 0;
			for (size_t d = nb - 1; d >= 1; d--) {
				if (used[d]) {
					if (haveRun) {
						mpz_mul(run, run, bucket[d]);
						mpz_tdiv_r(run, run, M);
					} else {
						mpz_set(run, bucket[d]);
						haveRun = 1;
					}
				}
				if (haveRun) {
					if (haveSum) {
						mpz_mul(sum, sum, run);
						mpz_tdiv_r(sum, sum, M);
					} else {
						mpz_set(sum, run);
						haveSum = 1;
					}
				}
			}
			if (haveSum) {
				mpz_mul(acc, acc, sum);
				mpz_tdiv_r(acc, acc, M);
				started = 1;
			}
		}
		for (size_t i = 0; i < n; i++) mpz_clear(B[i]);
		for (size_t d = 0; d < nb; d++) mpz_clear(bucket[d]);
		mpz_clears(run, sum, NULL);
		free(B);
		free(bucket);
		free(used);
	}
	mpz_tdiv_r(acc, acc, M);
	size_t r = fv_export(out, mn, acc);
	mpz_clears(M, acc, t, NULL);
	return r;
}
// fv_coprime: 1 if gcd(x, n) = 1, else 0.
static int fv_coprime(const uint64_t *x, size_t xn, const uint64_t *n, size_t nn) {
	mpz_t X, N;
	mpz_inits(X, N, NULL);
	fv_import(X, x, xn);
	fv_import(N, n, nn);
	mpz_gcd(X, X, N);
	int r = mpz_cmp_ui(X, 1) == 0;
	mpz_clears(X, N, NULL);
	return r;
}
*/
import "C"

import (
	"math/big"
	"unsafe"
)

// Backend names the arithmetic backend compiled in.
const Backend = "gmp"

func init() {
	if unsafe.Sizeof(big.Word(0)) != 8 {
		panic("arith: the gmp backend needs 64-bit words")
	}
}

// words views x's magnitude as 64-bit words (least significant first).
func words(x *big.Int) []uint64 {
	b := x.Bits()
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), len(b))
}

func ptr(w []uint64) *C.uint64_t {
	if len(w) == 0 {
		return nil
	}
	return (*C.uint64_t)(unsafe.Pointer(&w[0]))
}

// fromWords builds a big.Int from the first n words of w (copied).
func fromWords(w []uint64, n C.size_t) *big.Int {
	if n == C.size_t(^uint(0)) {
		panic("arith: gmp result does not fit")
	}
	out := make([]big.Word, int(n))
	for i := range out {
		out[i] = big.Word(w[i])
	}
	return new(big.Int).SetBits(out)
}

func exp(x, e, m *big.Int) *big.Int {
	xw, ew, mw := words(x), words(e), words(m)
	out := make([]uint64, len(mw))
	n := C.fv_powm(ptr(out), ptr(xw), C.size_t(len(xw)), ptr(ew), C.size_t(len(ew)), ptr(mw), C.size_t(len(mw)))
	return fromWords(out, n)
}

// flatten copies values into one zero-padded array of stride words each, so
// that C receives a single Go pointer holding no Go pointers.
func flatten(xs []*big.Int) ([]uint64, int) {
	stride := 1
	for _, x := range xs {
		if l := len(x.Bits()); l > stride {
			stride = l
		}
	}
	buf := make([]uint64, len(xs)*stride)
	for i, x := range xs {
		copy(buf[i*stride:], words(x))
	}
	return buf, stride
}

func multiExp(bases, exps []*big.Int, m *big.Int, maxBits int) *big.Int {
	if len(bases) < 16 {
		// Measured: for a few bases the pure-Go Straus method beats one
		// mpz_powm per base, and a C port of it would gain little.
		return multiExpGo(bases, exps, m, maxBits)
	}
	bw, bs := flatten(bases)
	ew, es := flatten(exps)
	mw := words(m)
	c, _ := pippengerCost(len(bases), maxBits)
	out := make([]uint64, len(mw))
	n := C.fv_multiexp(ptr(out), ptr(bw), C.size_t(bs), ptr(ew), C.size_t(es), C.size_t(len(bases)),
		C.size_t(maxBits), C.int(c), ptr(mw), C.size_t(len(mw)))
	return fromWords(out, n)
}

// mulAllChunk bounds the copy made for one C call.
const mulAllChunk = 4096

func mulAll(acc *big.Int, xs []*big.Int, m *big.Int) *big.Int {
	mw := words(m)
	a := make([]uint64, len(mw))
	copy(a, words(new(big.Int).Mod(acc, m)))
	n := C.size_t(len(words(new(big.Int).Mod(acc, m))))
	for lo := 0; lo < len(xs); lo += mulAllChunk {
		hi := min(lo+mulAllChunk, len(xs))
		xw, stride := flatten(xs[lo:hi])
		clear(a[n:])
		n = C.fv_mulall(ptr(a), ptr(xw), C.size_t(stride), C.size_t(hi-lo), ptr(mw), C.size_t(len(mw)))
	}
	return fromWords(a, n)
}

func coprime(x, n *big.Int) bool {
	xw, nw := words(x), words(n)
	return C.fv_coprime(ptr(xw), C.size_t(len(xw)), ptr(nw), C.size_t(len(nw))) == 1
}
