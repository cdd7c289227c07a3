// Package easigner gives the election authority (EA) a crypto.Signer for
// registration tokens, whether its P-256 key lives in a PEM file or in a
// PKCS#11 token (an HSM; SoftHSM2 in tests). The rest of fabvote only sees a
// crypto.Signer, so switching the key's home never touches the protocol code.
package easigner

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"

	"github.com/fabvote/fabvote/internal/atomicfile"
	"github.com/fabvote/fabvote/internal/p256pem"
)

// PEMType is the PEM block type of the EA key file (PKCS#8).
const PEMType = "PRIVATE KEY"

// GeneratePEM creates a P-256 key and writes it to path as PKCS#8 PEM, mode 0600.
func GeneratePEM(path string) (*ecdsa.PrivateKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	if err := WritePEM(path, key); err != nil {
		return nil, err
	}
	return key, nil
}

// WritePEM writes key to path as PKCS#8 PEM with mode 0600, atomically.
func WritePEM(path string, key *ecdsa.PrivateKey) error {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: PEMType, Bytes: der}), 0o600)
}

// LoadPEM reads a P-256 private key from a PEM file (PKCS#8 or SEC 1 "EC PRIVATE KEY").
func LoadPEM(path string) (*ecdsa.PrivateKey, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("EA key: %w", err)
	}
	return ParsePEM(data, path)
}

// ParsePEM parses a P-256 private key from PEM bytes (p256pem); name labels errors.
func ParsePEM(data []byte, name string) (*ecdsa.PrivateKey, error) {
	k, err := p256pem.ParsePrivateKey(data)
	if err != nil {
		return nil, fmt.Errorf("EA key %s: %w", name, err)
	}
	return k, nil
}

// PublicKeyDER returns the PKIX DER encoding of a signer's public key, the form
// the election manifest stores (Manifest.TokenKey).
func PublicKeyDER(s crypto.Signer) ([]byte, error) {
	pub, ok := s.Public().(*ecdsa.PublicKey)
	if !ok || pub.Curve != elliptic.P256() {
		return nil, errors.New("EA key: public key is not ECDSA P-256")
	}
	return x509.MarshalPKIXPublicKey(pub)
}
