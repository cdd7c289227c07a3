package zkp

import (
	"fmt"
	"math/big"

	"github.com/fabvote/fabvote/crypto/paillier"
)

// ProveDecryption decrypts c with the single (non-threshold) key and returns
// the plaintext T with the nonce R such that c = (1+N)^T · R^N mod N².
// Publishing (T, R) proves the decryption: VerifyDecryption re-encrypts.
func ProveDecryption(sk *paillier.PrivateKey, c *big.Int) (t, r *big.Int, err error) {
	if sk == nil {
		return nil, nil, fmt.Errorf("%w: private key is missing", ErrInvalidDecryption)
	}
	t, r, err = sk.DecryptWithNonce(c)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrInvalidCiphertext, err)
	}
	return t, r, nil
}

// VerifyDecryption checks 0 ≤ t < N, r ∈ Z*_N, c ∈ Z*_{N²} and
// c = (1+N)^t · r^N mod N² (one exponentiation by N).
func VerifyDecryption(pk *paillier.PublicKey, c, t, r *big.Int) error {
	if pk == nil || pk.N == nil || pk.NSquared == nil {
		return fmt.Errorf("%w: public key is missing", ErrInvalidDecryption)
	}
	if err := pk.ValidateCiphertext(c); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidCiphertext, err)
	}
	switch {
	case t == nil || t.Sign() < 0 || t.Cmp(pk.N) >= 0:
		return fmt.Errorf("%w: plaintext T is not in [0, N)", ErrInvalidDecryption)
	case r == nil || r.Sign() <= 0 || r.Cmp(pk.N) >= 0:
		return fmt.Errorf("%w: nonce R is not in (0, N)", ErrInvalidDecryption)
	case new(big.Int).GCD(nil, nil, r, pk.N).Cmp(one) != 0:
		return fmt.Errorf("%w: nonce R shares a factor with N", ErrInvalidDecryption)
	}
	want, err := pk.EncryptWithNonce(t, r)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidDecryption, err)
	}
	if want.Cmp(c) != 0 {
		return fmt.Errorf("%w: (1+N)^T · R^N ≠ C", ErrInvalidDecryption)
	}
	return nil
}
