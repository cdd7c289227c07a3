package threshold

import (
	"math"
	"math/big"

	"github.com/fabvote/fabvote/crypto/paillier"
)

const (
	// MaxTrustees bounds L. Δ = L! enters every exponent, so it is kept small;
	// 64! has 296 bits.
	MaxTrustees = 64

	// ChallengeBits is the length of the Fiat–Shamir challenge e (SHA-256).
	ChallengeBits = 256

	// DomainTag separates the partial-decryption proof hash from every other
	// hash in fabvote. Parameters with ShareBits (version 2) use
	// DomainTagV2, so a proof made under one version never verifies under
	// the other.
	DomainTag   = "fabvote/threshold/partial/v1"
	DomainTagV2 = "fabvote/threshold/partial/v2"
)

var (
	one  = big.NewInt(1)
	two  = big.NewInt(2)
	four = big.NewInt(4)
)

// PublicParams are the public output of the dealer. They go on the ledger in
// the election manifest and hold no secret: N, the threshold K, the number of
// trustees L, the verification base V and one verification key
// V_i = V^{Δ s_i} mod N² per trustee (VerificationKeys[i-1] for trustee i).
type PublicParams struct {
	PublicKey        *paillier.PublicKey
	K, L             int
	V                *big.Int
	VerificationKeys []*big.Int
	// ShareBits bounds every share: 0 ≤ s_i < 2^ShareBits. It is zero for a
	// dealer's parameters (encoding version 1), whose shares are residues
	// below N². Shares made without anyone knowing φ(N), by a distributed key
	// generation, are integers longer than N²: their parameters carry the
	// bound (version 2, |N²| ≤ ShareBits ≤ 2·|N²|), which sets the proof's
	// nonce length and the encodings' widths.
	ShareBits int
}

// version is the encoding version of the parameters and of everything
// encoded under them: 1 for a dealer's shares below N², 2 with ShareBits.
func (pp *PublicParams) version() byte {
	if pp.ShareBits == 0 {
		return 1
	}
	return 2
}

// secretBits is the bit length that bounds every share: ShareBits, or |N²|
// for version 1.
func (pp *PublicParams) secretBits() int {
	if pp.ShareBits == 0 {
		return pp.PublicKey.NSquared.BitLen()
	}
	return pp.ShareBits
}

// Delta returns Δ = L!.
func (pp *PublicParams) Delta() *big.Int { return factorial(pp.L) }

// VerificationKey returns V_i for trustee index i (1..L), or nil.
func (pp *PublicParams) VerificationKey(i int) *big.Int {
	if i < 1 || i > len(pp.VerificationKeys) {
		return nil
	}
	return pp.VerificationKeys[i-1]
}

// Validate checks everything about the parameters that can be checked without
// the factorisation of N: sizes, ranges and group membership. It cannot check
// that N is a product of safe primes or that V generates the squares; that is
// the trusted dealer's job.
func (pp *PublicParams) Validate() error { return pp.validate(paillier.MinModulusBits) }

func (pp *PublicParams) validate(minBits int) error {
	if pp == nil {
		return fieldError(ErrInvalidParams, "PublicParams", "nil")
	}
	if err := checkThreshold(pp.K, pp.L); err != nil {
		return err
	}
	pk := pp.PublicKey
	if pk == nil || pk.N == nil || pk.NSquared == nil {
		return fieldError(ErrInvalidParams, "PublicKey", "missing")
	}
	n := pk.N
	if n.Sign() <= 0 || n.Bit(0) == 0 {
		return fieldError(ErrInvalidParams, "PublicKey.N", "not a positive odd integer")
	}
	if n.BitLen() < minBits {
		return fieldError(ErrInvalidParams, "PublicKey.N", "%d bits, need at least %d", n.BitLen(), minBits)
	}
	if pk.NSquared.Cmp(new(big.Int).Mul(n, n)) != 0 {
		return fieldError(ErrInvalidParams, "PublicKey.NSquared", "is not N²")
	}
	// Δ and 4Δ² must be invertible mod N; true for any real modulus, but a
	// crafted N with a small factor must not reach a division by zero.
	if new(big.Int).GCD(nil, nil, n, pp.Delta()).Cmp(one) != 0 || new(big.Int).GCD(nil, nil, n, two).Cmp(one) != 0 {
		return fieldError(ErrInvalidParams, "PublicKey.N", "has a factor not larger than L")
	}
	if err := inZStarN2(pk, pp.V); err != nil {
		return fieldError(ErrInvalidParams, "V", "%v", err)
	}
	if pp.V.Cmp(one) == 0 {
		return fieldError(ErrInvalidParams, "V", "is 1")
	}
	if err := checkShareBits(pp.ShareBits, pk.NSquared); err != nil {
		return err
	}
	if len(pp.VerificationKeys) != pp.L {
		return fieldError(ErrInvalidParams, "VerificationKeys", "%d keys for L = %d", len(pp.VerificationKeys), pp.L)
	}
	for i, vi := range pp.VerificationKeys {
		if err := inZStarN2(pk, vi); err != nil {
			return fieldError(ErrInvalidParams, "VerificationKeys", "trustee %d: %v", i+1, err)
		}
	}
	return nil
}

// checkShareBits accepts 0 (version 1) or a bound between |N²| and
// 2·|N²|, at most 65535 (its encoding is a u16): version 2 exists for
// shares longer than N², and the cap keeps a partial decryption's exponent,
// and a decoder's allocation, in proportion to N.
func checkShareBits(bits int, n2 *big.Int) error {
	hi := min(2*n2.BitLen(), math.MaxUint16)
	if bits != 0 && (bits < n2.BitLen() || bits > hi) {
		return fieldError(ErrInvalidParams, "ShareBits", "%d, need 0 or %d..%d (|N²| to 2·|N²|, at most 65535)", bits, n2.BitLen(), hi)
	}
	return nil
}

func checkThreshold(k, l int) error {
	if l < 1 || l > MaxTrustees {
		return fieldError(ErrInvalidParams, "L", "%d trustees, need 1..%d", l, MaxTrustees)
	}
	if k < 1 || k > l {
		return fieldError(ErrInvalidParams, "K", "threshold %d, need 1..L (L = %d)", k, l)
	}
	return nil
}

// inZStarN2 reports whether 0 < x < N² and gcd(x, N) = 1.
func inZStarN2(pk *paillier.PublicKey, x *big.Int) error {
	if x == nil {
		return errString("missing")
	}
	if x.Sign() <= 0 || x.Cmp(pk.NSquared) >= 0 {
		return errString("not in (0, N²)")
	}
	if new(big.Int).GCD(nil, nil, x, pk.N).Cmp(one) != 0 {
		return errString("not coprime to N")
	}
	return nil
}

type errString string

func (e errString) Error() string { return string(e) }

func factorial(n int) *big.Int {
	f := big.NewInt(1)
	for i := 2; i <= n; i++ {
		f.Mul(f, big.NewInt(int64(i)))
	}
	return f
}

// proofRandBits is the length of the prover's nonce r: |s| + |Δ| + 2·256,
// with |s| = secretBits (|N²| for version 1). The witness is
// x = Δ·s_i < Δ·2^|s|, the challenge e < 2^256, so e·x < 2^(rBits-256) and
// the response z = r + e·x is within statistical distance 2^-256 of r.
func (pp *PublicParams) proofRandBits() int {
	return pp.secretBits() + pp.Delta().BitLen() + 2*ChallengeBits
}

// proofZBits bounds the response: z < 2^rBits + 2^(rBits-256) < 2^(rBits+1).
func (pp *PublicParams) proofZBits() int { return pp.proofRandBits() + 1 }
