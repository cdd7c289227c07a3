package zkp

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"math/big"

	"github.com/fabvote/fabvote/crypto/paillier"
)

// Domain separation tag of the validity-proof challenge. Version 2 binds the
// manifest digest and the voter's pseudonym as well.
const validityTag = "fabvote/zkp/validity/v2"

// Challenge lengths t in bits.
const (
	DefaultChallengeBits = 128
	MinChallengeBits     = 80
	MaxChallengeBits     = 256
	// MaxCandidates bounds p so that a hostile context cannot demand huge work.
	MaxCandidates = 1 << 10
)

// Errors. Every failure wraps one of these with a message naming the field.
var (
	ErrInvalidProof       = errors.New("zkp: invalid proof")
	ErrInvalidContext     = errors.New("zkp: invalid context")
	ErrInvalidCiphertext  = errors.New("zkp: invalid ciphertext")
	ErrInvalidDecryption  = errors.New("zkp: invalid decryption proof")
	ErrInvalidWitness     = errors.New("zkp: invalid witness")
	errChallengeSumFailed = fmt.Errorf("%w: challenges e_k do not sum to the Fiat–Shamir challenge", ErrInvalidProof)
)

// Context is everything the Fiat–Shamir challenge binds.
type Context struct {
	// ManifestDigest is the digest of the whole election manifest (in
	// fabvote, election.ManifestDigest): a proof made under one manifest
	// does not verify under another with the same id and key.
	ManifestDigest [32]byte
	ElectionID     string
	PublicKey      *paillier.PublicKey
	Messages       []*big.Int // candidate encodings M^k, k = 0..p-1
	Pseudonym      [32]byte   // the voter's pseudonym: the ballot's ledger key
	VoterKeyHash   [32]byte   // SHA-256 of the voter's public key encoding
	ChallengeBits  int        // t; 0 means DefaultChallengeBits
}

// challengeBits returns t, applying the default.
func (ctx *Context) challengeBits() int {
	if ctx.ChallengeBits == 0 {
		return DefaultChallengeBits
	}
	return ctx.ChallengeBits
}

// Check validates the context: a usable key, 1..MaxCandidates distinct messages
// in [0, N), and t a multiple of 8 in [80, 256].
func (ctx *Context) Check() error {
	if ctx == nil {
		return fmt.Errorf("%w: context is missing", ErrInvalidContext)
	}
	if err := checkKeyAndBits(ctx.PublicKey, ctx.challengeBits()); err != nil {
		return err
	}
	return checkMessages(ctx.PublicKey, ctx.Messages)
}

// checkKeyAndBits checks a context's key and challenge length t (the
// default already applied).
func checkKeyAndBits(pk *paillier.PublicKey, t int) error {
	if pk == nil || pk.N == nil || pk.NSquared == nil || pk.N.Sign() <= 0 || pk.N.Bit(0) == 0 {
		return fmt.Errorf("%w: field PublicKey: missing or even modulus", ErrInvalidContext)
	}
	if new(big.Int).Mul(pk.N, pk.N).Cmp(pk.NSquared) != 0 {
		return fmt.Errorf("%w: field PublicKey: NSquared is not N²", ErrInvalidContext)
	}
	if t%8 != 0 || t < MinChallengeBits || t > MaxChallengeBits {
		return fmt.Errorf("%w: field ChallengeBits: %d, want a multiple of 8 in [%d, %d]", ErrInvalidContext, t, MinChallengeBits, MaxChallengeBits)
	}
	// 2^(t+λ) must stay below the smallest prime factor of N (≈ √N); see doc.go.
	if t+RhoBits+2 >= pk.N.BitLen()/2 {
		return fmt.Errorf("%w: field ChallengeBits: %d is too long for a %d-bit modulus", ErrInvalidContext, t, pk.N.BitLen())
	}
	return nil
}

// checkMessages checks a context's messages: 1..MaxCandidates distinct
// values in [0, N).
func checkMessages(pk *paillier.PublicKey, messages []*big.Int) error {
	p := len(messages)
	// One message is allowed: the proof then shows that c encrypts exactly
	// it (a contest's selection count when Min = Max).
	if p < 1 || p > MaxCandidates {
		return fmt.Errorf("%w: field Messages: %d messages, want 1..%d", ErrInvalidContext, p, MaxCandidates)
	}
	seen := make(map[string]int, p)
	for k, m := range messages {
		if m == nil || m.Sign() < 0 || m.Cmp(pk.N) >= 0 {
			return fmt.Errorf("%w: field Messages[%d]: not in [0, N)", ErrInvalidContext, k)
		}
		if j, dup := seen[string(m.Bytes())]; dup {
			return fmt.Errorf("%w: field Messages[%d]: equals Messages[%d]", ErrInvalidContext, k, j)
		}
		seen[string(m.Bytes())] = k
	}
	return nil
}

// challenge computes e = H(tag, t, manifest digest, election id, N, p,
// M^0..M^(p-1), pseudonym, voter key hash, c, a_0..a_(p-1))
// truncated to t bits. Every field is length-prefixed (uint32, big-endian);
// c and a_k use their fixed-length encodings.
func (ctx *Context) challenge(c *big.Int, a []*big.Int) *big.Int {
	h := sha256.New()
	writeField(h, []byte(validityTag))
	var u [4]byte
	binary.BigEndian.PutUint32(u[:], uint32(ctx.challengeBits()))
	writeField(h, u[:])
	writeField(h, ctx.ManifestDigest[:])
	writeField(h, []byte(ctx.ElectionID))
	writeField(h, ctx.PublicKey.N.Bytes())
	binary.BigEndian.PutUint32(u[:], uint32(len(ctx.Messages)))
	writeField(h, u[:])
	for _, m := range ctx.Messages {
		writeField(h, m.Bytes())
	}
	writeField(h, ctx.Pseudonym[:])
	writeField(h, ctx.VoterKeyHash[:])
	size := ctx.PublicKey.CiphertextLen()
	buf := make([]byte, size)
	writeField(h, c.FillBytes(buf))
	for _, ak := range a {
		writeField(h, ak.FillBytes(buf))
	}
	digest := h.Sum(nil)
	return new(big.Int).SetBytes(digest[:ctx.challengeBits()/8])
}

func writeField(h hash.Hash, b []byte) {
	var l [4]byte
	binary.BigEndian.PutUint32(l[:], uint32(len(b)))
	h.Write(l[:])
	h.Write(b)
}
