package threshold

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math/big"
)

// KeyShare is one trustee's secret: its index i (1..L) and s_i = f(i) mod N·m
// (a dealer's), or an integer below 2^ShareBits (a distributed key
// generation's), together with the public N, K, L and ShareBits it belongs
// to so that a share cannot be used with the wrong election key by
// accident. The secret is unexported and never printed: String, GoString
// and Format show only public fields.
type KeyShare struct {
	Index     int
	K, L      int
	N         *big.Int
	ShareBits int // as PublicParams.ShareBits: 0 for a dealer's share
	// secret is s_i.
	secret *big.Int
}

// NewKeyShare makes the share s of trustee index under parameters whose
// shares are integers below 2^shareBits (version 2): what a distributed key
// generation hands each trustee. It copies n and s; Check it against the
// public parameters before use.
func NewKeyShare(index, k, l int, n *big.Int, shareBits int, s *big.Int) (*KeyShare, error) {
	if err := checkShareHeader(index, k, l); err != nil {
		return nil, err
	}
	if n == nil || n.Sign() <= 0 || n.Bit(0) == 0 {
		return nil, fieldError(ErrInvalidShare, "N", "not a positive odd integer")
	}
	if shareBits == 0 {
		return nil, fieldError(ErrInvalidShare, "ShareBits", "0: a share below N² comes from Deal")
	}
	if err := checkShareBits(shareBits, new(big.Int).Mul(n, n)); err != nil {
		return nil, fieldError(ErrInvalidShare, "ShareBits", "%v", err)
	}
	if s == nil || s.Sign() < 0 || s.BitLen() > shareBits {
		return nil, fieldError(ErrInvalidShare, "secret", "not in [0, 2^%d)", shareBits)
	}
	return &KeyShare{Index: index, K: k, L: l, N: new(big.Int).Set(n), ShareBits: shareBits, secret: new(big.Int).Set(s)}, nil
}

// String describes the share without its secret.
func (ks KeyShare) String() string {
	return fmt.Sprintf("threshold.KeyShare{Index: %d, K: %d, L: %d, N: %s, ShareBits: %d, secret: [redacted]}",
		ks.Index, ks.K, ks.L, fingerprint(ks.N), ks.ShareBits)
}

// GoString is String, so %#v does not print the secret either.
func (ks KeyShare) GoString() string { return ks.String() }

// Format makes every verb print String, so no fmt verb reveals the secret.
func (ks KeyShare) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, ks.String()) }

// fingerprint is a short public identifier of a modulus.
func fingerprint(n *big.Int) string {
	if n == nil {
		return "<nil>"
	}
	h := sha256.Sum256(n.Bytes())
	return fmt.Sprintf("%d-bit/%s", n.BitLen(), hex.EncodeToString(h[:6]))
}

// Check verifies the share against the public parameters: same N, K, L, an
// index in 1..L and V^{Δ s_i} = V_i. It costs one exponentiation modulo N²;
// a trustee runs it once after loading its share.
func (ks *KeyShare) Check(pp *PublicParams) error {
	if err := ks.matches(pp); err != nil {
		return err
	}
	vi := new(big.Int).Exp(pp.V, new(big.Int).Mul(pp.Delta(), ks.secret), pp.PublicKey.NSquared)
	if vi.Cmp(pp.VerificationKeys[ks.Index-1]) != 0 {
		return fieldError(ErrInvalidShare, "secret", "V^(Δ·s_%d) is not the verification key of trustee %d", ks.Index, ks.Index)
	}
	return nil
}

// matches checks the public fields of the share against pp (no exponentiation).
func (ks *KeyShare) matches(pp *PublicParams) error {
	if ks == nil || ks.secret == nil || ks.N == nil {
		return fieldError(ErrInvalidShare, "KeyShare", "missing or empty")
	}
	if err := pp.validate(0); err != nil {
		return err
	}
	if ks.N.Cmp(pp.PublicKey.N) != 0 {
		return fieldError(ErrInvalidShare, "N", "share is for key %s, parameters for %s", fingerprint(ks.N), fingerprint(pp.PublicKey.N))
	}
	if ks.K != pp.K || ks.L != pp.L {
		return fieldError(ErrInvalidShare, "K, L", "share is %d-of-%d, parameters %d-of-%d", ks.K, ks.L, pp.K, pp.L)
	}
	if ks.Index < 1 || ks.Index > pp.L {
		return fieldError(ErrInvalidShare, "Index", "%d not in 1..%d", ks.Index, pp.L)
	}
	if ks.ShareBits != pp.ShareBits {
		return fieldError(ErrInvalidShare, "ShareBits", "share has %d, parameters %d", ks.ShareBits, pp.ShareBits)
	}
	return ks.checkSecretRange()
}

// checkSecretRange checks 0 ≤ s_i < N² (version 1) or < 2^ShareBits.
func (ks *KeyShare) checkSecretRange() error {
	if ks.secret.Sign() < 0 {
		return fieldError(ErrInvalidShare, "secret", "out of range")
	}
	if ks.ShareBits == 0 {
		if ks.secret.Cmp(new(big.Int).Mul(ks.N, ks.N)) >= 0 {
			return fieldError(ErrInvalidShare, "secret", "out of range")
		}
		return nil
	}
	if ks.secret.BitLen() > ks.ShareBits {
		return fieldError(ErrInvalidShare, "secret", "out of range")
	}
	return nil
}

// Wipe overwrites the share's secret and drops it (best effort, like Deal's
// wiping: Go may have copied it), so the share can no longer be used. The
// dealer calls it once it has sealed the share to its trustee.
func (ks *KeyShare) Wipe() {
	if ks == nil || ks.secret == nil {
		return
	}
	wipe(ks.secret)
	ks.secret = nil
}
