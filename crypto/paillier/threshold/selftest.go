package threshold

import (
	"fmt"
	"io"
	"math/big"

	"github.com/fabvote/fabvote/crypto/internal/zn"
)

// SelfTestTag is the domain-separation tag of the self-test ciphertext.
const SelfTestTag = "fabvote/threshold/selftest/v1"

// maxSelfTestNonces bounds the search for the self-test nonce: a candidate
// misses Z*_N with probability about 2^-1000 for a real modulus.
const maxSelfTestNonces = 256

// SelfTestCiphertext derives the test ciphertext c* = (1+N)^{M*}·r*^N mod N²
// of a key ceremony from its id and the key's public parameters (their
// encoding): M* is the first value of zn's hash stream of (SelfTestTag,
// ceremony, parameters), r* the first later one in Z*_N. Nobody chooses
// c*: it is a hash of public values, so a partial decryption of it reveals
// nothing about any ballot. It returns c* and M*.
func SelfTestCiphertext(pp *PublicParams, ceremony []byte) (c, m *big.Int, err error) {
	enc, err := pp.MarshalBinary()
	if err != nil {
		return nil, nil, err
	}
	n := pp.PublicKey.N
	s := zn.NewStream(n, []byte(SelfTestTag), ceremony, enc)
	m = s.Next()
	for range maxSelfTestNonces {
		r := s.Next()
		if r.Sign() == 0 || new(big.Int).GCD(nil, nil, r, n).Cmp(one) != 0 {
			continue
		}
		c, err = pp.PublicKey.EncryptWithNonce(m, r)
		if err != nil {
			return nil, nil, fmt.Errorf("threshold: self-test: %w", err)
		}
		return c, m, nil
	}
	return nil, nil, fieldError(ErrInvalidParams, "PublicKey.N", "no self-test nonce in Z*_N among %d candidates", maxSelfTestNonces)
}

// DecryptSelfTest computes this trustee's partial decryption of the key
// ceremony's self-test ciphertext, SelfTestCiphertext(pp, ceremony), with
// its proof. Beside DecryptTally it is the only exported use of a share's
// secret, and it takes no ciphertext: it derives its own from public
// values, so no caller can point a share at a ballot through it. A
// ceremony publishes every trustee's self-test partial, and every K of
// them must combine to M* before the key is used.
func (ks *KeyShare) DecryptSelfTest(random io.Reader, pp *PublicParams, ceremony []byte) (*PartialDecryption, error) {
	c, _, err := SelfTestCiphertext(pp, ceremony)
	if err != nil {
		return nil, err
	}
	return ks.partialDecrypt(random, pp, c)
}
