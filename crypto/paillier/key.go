package paillier

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/big"
)

// MinModulusBits is the smallest modulus this package accepts for real keys.
const MinModulusBits = 2048

// MaxModulusBits bounds the work a hostile key can cause a verifier.
const MaxModulusBits = 8192

// ErrInvalidKey is wrapped by every key validation or parsing failure.
var ErrInvalidKey = errors.New("paillier: invalid key")

// ErrInvalidCiphertext is wrapped by every ciphertext validation failure.
var ErrInvalidCiphertext = errors.New("paillier: invalid ciphertext")

// ErrInvalidPlaintext is wrapped when a plaintext or nonce is out of range.
var ErrInvalidPlaintext = errors.New("paillier: invalid plaintext")

var (
	one = big.NewInt(1)
	// smallPrimesProduct is the product of the odd primes below 1000; a real
	// modulus shares no factor with it.
	smallPrimesProduct = func() *big.Int {
		prod := big.NewInt(1)
		for i := int64(3); i < 1000; i += 2 {
			if big.NewInt(i).ProbablyPrime(0) {
				prod.Mul(prod, big.NewInt(i))
			}
		}
		return prod
	}()
)

// PublicKey is a Paillier public key with generator g = N+1.
// NSquared is cached because every operation works modulo N².
type PublicKey struct {
	N        *big.Int
	NSquared *big.Int
}

// NewPublicKey returns the public key for modulus n. It checks that n is odd,
// of a supported size, has no small prime factor and is not a perfect square;
// it cannot check that n is a product of two primes.
func NewPublicKey(n *big.Int) (*PublicKey, error) {
	if err := checkModulus(n, MinModulusBits); err != nil {
		return nil, err
	}
	return newPublicKey(n), nil
}

func newPublicKey(n *big.Int) *PublicKey {
	return &PublicKey{N: new(big.Int).Set(n), NSquared: new(big.Int).Mul(n, n)}
}

func checkModulus(n *big.Int, minBits int) error {
	switch {
	case n == nil || n.Sign() <= 0 || n.Bit(0) == 0:
		return fmt.Errorf("%w: modulus N must be a positive odd integer", ErrInvalidKey)
	case n.BitLen() < minBits:
		return fmt.Errorf("%w: modulus N has %d bits, fewer than the minimum %d", ErrInvalidKey, n.BitLen(), minBits)
	case n.BitLen() > MaxModulusBits:
		return fmt.Errorf("%w: modulus N has %d bits, more than the maximum %d", ErrInvalidKey, n.BitLen(), MaxModulusBits)
	case new(big.Int).GCD(nil, nil, n, smallPrimesProduct).Cmp(one) != 0:
		return fmt.Errorf("%w: modulus N has a small prime factor", ErrInvalidKey)
	}
	if s := new(big.Int).Sqrt(n); s.Mul(s, s).Cmp(n) == 0 {
		return fmt.Errorf("%w: modulus N is a perfect square", ErrInvalidKey)
	}
	return nil
}

// String describes the key without printing the whole modulus.
func (pk *PublicKey) String() string {
	if pk == nil || pk.N == nil {
		return "paillier.PublicKey(nil)"
	}
	fp := pk.Fingerprint()
	return fmt.Sprintf("paillier.PublicKey{N: %d bits, fingerprint: %s}", pk.N.BitLen(), hex.EncodeToString(fp[:8]))
}

// Fingerprint is SHA-256 of the canonical public key encoding.
func (pk *PublicKey) Fingerprint() [32]byte {
	b, _ := pk.MarshalBinary()
	return sha256.Sum256(b)
}

// ModulusLen is the length in bytes of N.
func (pk *PublicKey) ModulusLen() int { return (pk.N.BitLen() + 7) / 8 }

// PrivateKey is a Paillier private key. The secret primes and the values derived
// from them are unexported; String, GoString and Format never print them.
type PrivateKey struct {
	PublicKey
	p, q         *big.Int // p < q
	pSq, qSq     *big.Int // p², q²
	pm1, qm1     *big.Int // p-1, q-1
	hp, hq       *big.Int // (-q)^-1 mod p, (-p)^-1 mod q: L_p((1+N)^(p-1) mod p²)^-1
	qInvP        *big.Int // q^-1 mod p, for the CRT combination
	nInvP, nInvQ *big.Int // N^-1 mod (p-1), N^-1 mod (q-1), to recover the nonce
	lambda, mu   *big.Int // λ = lcm(p-1, q-1), μ = λ^-1 mod N (textbook decryption)
}

// GenerateKey creates a key whose modulus N has exactly bits bits (2048, 3072 or
// 4096), from two distinct primes of bits/2 bits each with gcd(N, φ(N)) = 1.
func GenerateKey(random io.Reader, bits int) (*PrivateKey, error) {
	switch bits {
	case 2048, 3072, 4096:
	default:
		return nil, fmt.Errorf("%w: key size %d bits is not one of 2048, 3072, 4096", ErrInvalidKey, bits)
	}
	if random == nil {
		random = rand.Reader
	}
	for {
		// rand.Prime sets the two top bits, so N = p·q has exactly bits bits.
		p, err := rand.Prime(random, bits/2)
		if err != nil {
			return nil, fmt.Errorf("paillier: generating prime p: %w", err)
		}
		q, err := rand.Prime(random, bits/2)
		if err != nil {
			return nil, fmt.Errorf("paillier: generating prime q: %w", err)
		}
		sk, err := newPrivateKey(p, q, bits, false)
		if err != nil {
			continue // p = q or gcd(N, φ) ≠ 1: astronomically rare, try again
		}
		return sk, nil
	}
}

// NewPrivateKeyFromPrimes builds the key for N = p·q, checking that p and q are
// distinct primes of equal length and that N is a valid modulus of at least
// MinModulusBits bits. It is meant for fixed test keys and key import.
func NewPrivateKeyFromPrimes(p, q *big.Int) (*PrivateKey, error) {
	return newPrivateKey(p, q, MinModulusBits, true)
}

// newPrivateKey is the constructor behind every key. minBits is MinModulusBits
// for every exported path; package tests pass smaller values for fast keys.
func newPrivateKey(p, q *big.Int, minBits int, checkPrimes bool) (*PrivateKey, error) {
	if p == nil || q == nil || p.Sign() <= 0 || q.Sign() <= 0 {
		return nil, fmt.Errorf("%w: primes must be positive", ErrInvalidKey)
	}
	switch p.Cmp(q) {
	case 0:
		return nil, fmt.Errorf("%w: p equals q", ErrInvalidKey)
	case 1:
		p, q = q, p
	}
	if p.BitLen() != q.BitLen() {
		return nil, fmt.Errorf("%w: primes have different lengths (%d and %d bits)", ErrInvalidKey, p.BitLen(), q.BitLen())
	}
	if checkPrimes {
		if !p.ProbablyPrime(20) {
			return nil, fmt.Errorf("%w: p is not prime", ErrInvalidKey)
		}
		if !q.ProbablyPrime(20) {
			return nil, fmt.Errorf("%w: q is not prime", ErrInvalidKey)
		}
	}
	n := new(big.Int).Mul(p, q)
	if err := checkModulus(n, minBits); err != nil {
		return nil, err
	}
	pm1 := new(big.Int).Sub(p, one)
	qm1 := new(big.Int).Sub(q, one)
	phi := new(big.Int).Mul(pm1, qm1)
	if new(big.Int).GCD(nil, nil, n, phi).Cmp(one) != 0 {
		return nil, fmt.Errorf("%w: gcd(N, φ(N)) ≠ 1", ErrInvalidKey)
	}
	sk := &PrivateKey{
		PublicKey: *newPublicKey(n),
		p:         new(big.Int).Set(p),
		q:         new(big.Int).Set(q),
		pSq:       new(big.Int).Mul(p, p),
		qSq:       new(big.Int).Mul(q, q),
		pm1:       pm1,
		qm1:       qm1,
	}
	sk.hp = new(big.Int).ModInverse(new(big.Int).Sub(p, new(big.Int).Mod(q, p)), p)
	sk.hq = new(big.Int).ModInverse(new(big.Int).Sub(q, new(big.Int).Mod(p, q)), q)
	sk.qInvP = new(big.Int).ModInverse(q, p)
	sk.nInvP = new(big.Int).ModInverse(n, pm1)
	sk.nInvQ = new(big.Int).ModInverse(n, qm1)
	g := new(big.Int).GCD(nil, nil, pm1, qm1)
	sk.lambda = new(big.Int).Div(phi, g)
	sk.mu = new(big.Int).ModInverse(sk.lambda, n)
	if sk.hp == nil || sk.hq == nil || sk.qInvP == nil || sk.nInvP == nil || sk.nInvQ == nil || sk.mu == nil {
		return nil, fmt.Errorf("%w: p and q do not form a Paillier key", ErrInvalidKey)
	}
	return sk, nil
}

// Public returns a copy of the public half of the key.
func (sk *PrivateKey) Public() *PublicKey { return newPublicKey(sk.N) }

// Primes returns copies of the secret primes p < q. Only key import/export and
// the threshold dealer need them.
func (sk *PrivateKey) Primes() (p, q *big.Int) {
	return new(big.Int).Set(sk.p), new(big.Int).Set(sk.q)
}

// Lambda returns a copy of λ = lcm(p-1, q-1).
func (sk *PrivateKey) Lambda() *big.Int { return new(big.Int).Set(sk.lambda) }

// String describes the key by size and public fingerprint only.
func (sk PrivateKey) String() string {
	if sk.N == nil {
		return "paillier.PrivateKey(empty)"
	}
	fp := sk.PublicKey.Fingerprint()
	return fmt.Sprintf("paillier.PrivateKey{N: %d bits, fingerprint: %s, secrets: redacted}", sk.N.BitLen(), hex.EncodeToString(fp[:8]))
}

// GoString keeps %#v from dumping the secret fields.
func (sk PrivateKey) GoString() string { return sk.String() }

// Format makes every fmt verb (%v, %+v, %#v, %s, %x, %d, …) print String.
func (sk PrivateKey) Format(f fmt.State, verb rune) {
	if verb == 'q' {
		fmt.Fprintf(f, "%q", sk.String())
		return
	}
	io.WriteString(f, sk.String())
}

// Binary formats. Each starts with a 4-byte type tag and a version byte, then
// length-prefixed (uint16, big-endian) minimal big-endian integers.
const (
	publicKeyTag  = "FVPK"
	privateKeyTag = "FVSK"
	keyVersion    = 1
)

// MarshalBinary encodes the public key as "FVPK" ‖ 0x01 ‖ len(N) ‖ N.
func (pk *PublicKey) MarshalBinary() ([]byte, error) {
	if pk == nil || pk.N == nil || pk.N.Sign() <= 0 {
		return nil, fmt.Errorf("%w: public key is empty", ErrInvalidKey)
	}
	b := append([]byte(publicKeyTag), keyVersion)
	return appendInt(b, pk.N), nil
}

// ParsePublicKey decodes MarshalBinary's output, rejecting any other encoding
// and any modulus NewPublicKey would reject.
func ParsePublicKey(b []byte) (*PublicKey, error) {
	rest, err := parseHeader(b, publicKeyTag, "public key")
	if err != nil {
		return nil, err
	}
	n, rest, err := readInt(rest, "N")
	if err != nil {
		return nil, err
	}
	if len(rest) != 0 {
		return nil, fmt.Errorf("%w: public key has %d trailing bytes", ErrInvalidKey, len(rest))
	}
	return NewPublicKey(n)
}

// MarshalBinary encodes the private key as "FVSK" ‖ 0x01 ‖ len(p) ‖ p ‖ len(q) ‖ q with p < q.
func (sk *PrivateKey) MarshalBinary() ([]byte, error) {
	if sk == nil || sk.p == nil {
		return nil, fmt.Errorf("%w: private key is empty", ErrInvalidKey)
	}
	b := append([]byte(privateKeyTag), keyVersion)
	b = appendInt(b, sk.p)
	return appendInt(b, sk.q), nil
}

// ParsePrivateKey decodes MarshalBinary's output and re-checks the whole key.
func ParsePrivateKey(b []byte) (*PrivateKey, error) {
	rest, err := parseHeader(b, privateKeyTag, "private key")
	if err != nil {
		return nil, err
	}
	p, rest, err := readInt(rest, "p")
	if err != nil {
		return nil, err
	}
	q, rest, err := readInt(rest, "q")
	if err != nil {
		return nil, err
	}
	if len(rest) != 0 {
		return nil, fmt.Errorf("%w: private key has %d trailing bytes", ErrInvalidKey, len(rest))
	}
	if p.Cmp(q) >= 0 {
		return nil, fmt.Errorf("%w: private key primes are not in canonical order p < q", ErrInvalidKey)
	}
	// Cheap size checks first so a hostile input cannot make us test huge primes.
	if bits := p.BitLen() + q.BitLen(); bits < MinModulusBits-1 || bits > MaxModulusBits+1 {
		return nil, fmt.Errorf("%w: private key primes give a %d-bit modulus", ErrInvalidKey, bits)
	}
	return NewPrivateKeyFromPrimes(p, q)
}

func parseHeader(b []byte, tag, what string) ([]byte, error) {
	if len(b) < len(tag)+1 {
		return nil, fmt.Errorf("%w: %s encoding is truncated (%d bytes)", ErrInvalidKey, what, len(b))
	}
	if string(b[:len(tag)]) != tag {
		return nil, fmt.Errorf("%w: %s encoding has wrong type tag %q", ErrInvalidKey, what, b[:len(tag)])
	}
	if b[len(tag)] != keyVersion {
		return nil, fmt.Errorf("%w: %s encoding has unsupported version %d", ErrInvalidKey, what, b[len(tag)])
	}
	return b[len(tag)+1:], nil
}

func appendInt(b []byte, x *big.Int) []byte {
	xb := x.Bytes()
	b = binary.BigEndian.AppendUint16(b, uint16(len(xb)))
	return append(b, xb...)
}

func readInt(b []byte, field string) (*big.Int, []byte, error) {
	if len(b) < 2 {
		return nil, nil, fmt.Errorf("%w: field %s: length prefix is truncated", ErrInvalidKey, field)
	}
	n := int(binary.BigEndian.Uint16(b))
	b = b[2:]
	if n == 0 || n > len(b) {
		return nil, nil, fmt.Errorf("%w: field %s: length %d is zero or exceeds the %d remaining bytes", ErrInvalidKey, field, n, len(b))
	}
	if b[0] == 0 {
		return nil, nil, fmt.Errorf("%w: field %s: non-canonical leading zero byte", ErrInvalidKey, field)
	}
	return new(big.Int).SetBytes(b[:n]), b[n:], nil
}
