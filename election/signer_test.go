package election_test

import (
	"crypto"
	"crypto/ecdsa"
	"io"
)

// rawSigner is a crypto.Signer that returns ASN.1 (like crypto/ecdsa) or raw
// r‖s (like some PKCS#11 wrappers), to test that IssueToken accepts both.
type rawSigner struct {
	k   *ecdsa.PrivateKey
	raw bool
}

func (s rawSigner) Public() crypto.PublicKey { return &s.k.PublicKey }

func (s rawSigner) Sign(random io.Reader, d []byte, opts crypto.SignerOpts) ([]byte, error) {
	if !s.raw {
		return ecdsa.SignASN1(random, s.k, d)
	}
	r, ss, err := ecdsa.Sign(random, s.k, d)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 64)
	r.FillBytes(out[:32])
	ss.FillBytes(out[32:])
	return out, nil
}
