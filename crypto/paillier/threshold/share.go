package threshold

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math/big"
)

// KeyShare is one trustee's secret: its index i (1..L) and s_i = f(i) mod N·m,
// together with the public N, K and L it belongs to so that a share cannot be
// used with the wrong election key by accident. The secret is unexported and
// never printed: String, GoString and Format show only public fields.
type KeyShare struct {
	Index int
	K, L  int
	N     *big.Int
	// secret is s_i.
	secret *big.Int
}

// String describes the share without its secret.
func (ks KeyShare) String() string {
	return fmt.Sprintf("threshold.KeyShare{Index: %d, K: %d, L: %d, N: %s, secret: [redacted]}",
		ks.Index, ks.K, ks.L, fingerprint(ks.N))
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
	if ks.secret.Sign() < 0 || ks.secret.Cmp(pp.PublicKey.NSquared) >= 0 {
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
