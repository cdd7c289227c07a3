package paillier

import (
	"crypto/rand"
	"fmt"
	"io"
	"math/big"

	"github.com/fabvote/fabvote/crypto/paillier/arith"
)

// ValidateCiphertext checks that c is in Z*_{N²}: 0 < c < N² and gcd(c, N) = 1.
func (pk *PublicKey) ValidateCiphertext(c *big.Int) error {
	switch {
	case c == nil:
		return fmt.Errorf("%w: ciphertext is missing", ErrInvalidCiphertext)
	case c.Sign() <= 0:
		return fmt.Errorf("%w: ciphertext is not positive", ErrInvalidCiphertext)
	case c.Cmp(pk.NSquared) >= 0:
		return fmt.Errorf("%w: ciphertext is not below N²", ErrInvalidCiphertext)
	case !arith.Coprime(c, pk.N):
		return fmt.Errorf("%w: ciphertext shares a factor with N", ErrInvalidCiphertext)
	}
	return nil
}

// RandomNonce draws r uniformly from Z*_N.
func (pk *PublicKey) RandomNonce(random io.Reader) (*big.Int, error) {
	if random == nil {
		random = rand.Reader
	}
	g := new(big.Int)
	for {
		r, err := rand.Int(random, pk.N)
		if err != nil {
			return nil, fmt.Errorf("paillier: drawing nonce: %w", err)
		}
		if r.Sign() > 0 && g.GCD(nil, nil, r, pk.N).Cmp(one) == 0 {
			return r, nil
		}
	}
}

// Encrypt encrypts 0 ≤ m < N with a fresh nonce r ∈ Z*_N and returns both.
// The caller needs r to prove what c encrypts; it must be kept secret.
func (pk *PublicKey) Encrypt(random io.Reader, m *big.Int) (c, r *big.Int, err error) {
	if err := pk.checkPlaintext(m); err != nil {
		return nil, nil, err
	}
	r, rN, err := pk.NoncePower(random)
	if err != nil {
		return nil, nil, err
	}
	c, err = pk.EncryptWithNoncePower(m, rN)
	if err != nil {
		return nil, nil, err
	}
	return c, r, nil
}

// NoncePower draws a nonce r ∈ Z*_N and returns it with r^N mod N²: the
// part of an encryption that does not depend on the plaintext, and its
// one exponentiation. A slow client (the booth, in WebAssembly) computes it
// before the plaintext is known; EncryptWithNoncePower completes the
// encryption. r is secret, and serves one encryption.
func (pk *PublicKey) NoncePower(random io.Reader) (r, rN *big.Int, err error) {
	r, err = pk.RandomNonce(random)
	if err != nil {
		return nil, nil, err
	}
	return r, arith.ExpSecret(r, pk.N, pk.NSquared), nil // r is the voter's secret nonce
}

// EncryptWithNonce returns (1+N)^m · r^N mod N², computed as (1 + m·N) · r^N.
func (pk *PublicKey) EncryptWithNonce(m, r *big.Int) (*big.Int, error) {
	if err := pk.checkPlaintext(m); err != nil {
		return nil, err
	}
	switch {
	case r == nil || r.Sign() <= 0 || r.Cmp(pk.N) >= 0:
		return nil, fmt.Errorf("%w: nonce r must satisfy 0 < r < N", ErrInvalidPlaintext)
	case new(big.Int).GCD(nil, nil, r, pk.N).Cmp(one) != 0:
		return nil, fmt.Errorf("%w: nonce r shares a factor with N", ErrInvalidPlaintext)
	}
	return pk.EncryptWithNoncePower(m, arith.ExpSecret(r, pk.N, pk.NSquared)) // r is the voter's secret nonce
}

// EncryptWithNoncePower returns (1 + m·N) · rN mod N², the encryption of m
// with the nonce whose power rN = r^N mod N² NoncePower returned.
func (pk *PublicKey) EncryptWithNoncePower(m, rN *big.Int) (*big.Int, error) {
	if err := pk.checkPlaintext(m); err != nil {
		return nil, err
	}
	if rN == nil || rN.Sign() <= 0 || rN.Cmp(pk.NSquared) >= 0 {
		return nil, fmt.Errorf("%w: nonce power r^N must satisfy 0 < r^N < N²", ErrInvalidPlaintext)
	}
	c := new(big.Int).Mul(m, pk.N)
	c.Add(c, one)
	c.Mul(c, rN)
	return c.Mod(c, pk.NSquared), nil
}

func (pk *PublicKey) checkPlaintext(m *big.Int) error {
	if m == nil || m.Sign() < 0 || m.Cmp(pk.N) >= 0 {
		return fmt.Errorf("%w: plaintext m must satisfy 0 ≤ m < N", ErrInvalidPlaintext)
	}
	return nil
}

// Add returns c1·c2 mod N², an encryption of m1 + m2 mod N.
func (pk *PublicKey) Add(c1, c2 *big.Int) *big.Int {
	c := new(big.Int).Mul(c1, c2)
	return c.Mod(c, pk.NSquared)
}

// MulScalar returns c^k mod N², an encryption of k·m mod N. A negative k
// uses the inverse of c (c must be a valid ciphertext).
func (pk *PublicKey) MulScalar(c, k *big.Int) *big.Int {
	if k.Sign() < 0 {
		inv := new(big.Int).ModInverse(c, pk.NSquared)
		return arith.Exp(inv, new(big.Int).Neg(k), pk.NSquared)
	}
	return arith.Exp(c, k, pk.NSquared)
}

// Decrypt returns m with c = (1+N)^m r^N mod N², using the CRT: m mod p from
// c^(p-1) mod p², m mod q from c^(q-1) mod q², then Garner's combination.
func (sk *PrivateKey) Decrypt(c *big.Int) (*big.Int, error) {
	if err := sk.ValidateCiphertext(c); err != nil {
		return nil, err
	}
	mp := decryptHalf(c, sk.p, sk.pSq, sk.pm1, sk.hp)
	mq := decryptHalf(c, sk.q, sk.qSq, sk.qm1, sk.hq)
	return sk.crt(mp, mq), nil
}

// decryptHalf computes L_p(c^(p-1) mod p²)·h_p mod p with L_p(x) = (x-1)/p.
func decryptHalf(c, p, pSq, pm1, h *big.Int) *big.Int {
	x := arith.ExpSecret(new(big.Int).Mod(c, pSq), pm1, pSq)
	x.Sub(x, one)
	x.Quo(x, p)
	x.Mul(x, h)
	return x.Mod(x, p)
}

// crt returns the x mod N with x ≡ xp (mod p), x ≡ xq (mod q).
func (sk *PrivateKey) crt(xp, xq *big.Int) *big.Int {
	h := new(big.Int).Sub(xp, xq)
	h.Mul(h, sk.qInvP)
	h.Mod(h, sk.p)
	h.Mul(h, sk.q)
	return h.Add(h, xq)
}

// DecryptWithNonce returns m and the nonce r ∈ Z*_N with c = (1+N)^m r^N mod N².
// Publishing r proves the decryption: anyone can re-encrypt m with r.
func (sk *PrivateKey) DecryptWithNonce(c *big.Int) (m, r *big.Int, err error) {
	m, err = sk.Decrypt(c)
	if err != nil {
		return nil, nil, err
	}
	// c·(1+N)^-m = c·(1 - m·N) = r^N (mod N²); reduce mod N and take the N-th root.
	s := new(big.Int).Mul(m, sk.N)
	s.Sub(sk.NSquared, s)
	s.Add(s, one)
	s.Mul(s, c)
	s.Mod(s, sk.N)
	rp := arith.ExpSecret(new(big.Int).Mod(s, sk.p), sk.nInvP, sk.p)
	rq := arith.ExpSecret(new(big.Int).Mod(s, sk.q), sk.nInvQ, sk.q)
	return m, sk.crt(rp, rq), nil
}

// DecryptTextbook is the textbook decryption L(c^λ mod N²)·μ mod N, kept as an
// independent reference for tests and benchmarks of the CRT path.
func (sk *PrivateKey) DecryptTextbook(c *big.Int) (*big.Int, error) {
	if err := sk.ValidateCiphertext(c); err != nil {
		return nil, err
	}
	x := new(big.Int).Exp(c, sk.lambda, sk.NSquared)
	x.Sub(x, one)
	x.Quo(x, sk.N)
	x.Mul(x, sk.mu)
	return x.Mod(x, sk.N), nil
}

// CiphertextLen is the fixed length in bytes of an encoded ciphertext (of N²).
func (pk *PublicKey) CiphertextLen() int { return (pk.NSquared.BitLen() + 7) / 8 }

// EncodeCiphertext returns c as CiphertextLen big-endian bytes. It panics if c
// is negative or not below N², which no valid ciphertext is.
func (pk *PublicKey) EncodeCiphertext(c *big.Int) []byte {
	if c == nil || c.Sign() < 0 || c.Cmp(pk.NSquared) >= 0 {
		panic("paillier: EncodeCiphertext of a value outside [0, N²)")
	}
	return c.FillBytes(make([]byte, pk.CiphertextLen()))
}

// DecodeCiphertext parses exactly CiphertextLen bytes and checks the value is in Z*_{N²}.
func (pk *PublicKey) DecodeCiphertext(b []byte) (*big.Int, error) {
	if len(b) != pk.CiphertextLen() {
		return nil, fmt.Errorf("%w: encoding has %d bytes, want %d", ErrInvalidCiphertext, len(b), pk.CiphertextLen())
	}
	c := new(big.Int).SetBytes(b)
	if err := pk.ValidateCiphertext(c); err != nil {
		return nil, err
	}
	return c, nil
}
