package paillier

import (
	"encoding/pem"
	"fmt"
)

// PEM block types of the key files.
const (
	PublicKeyPEMType  = "FABVOTE PAILLIER PUBLIC KEY"
	PrivateKeyPEMType = "FABVOTE PAILLIER PRIVATE KEY"
)

// MarshalPrivateKeyPEM encodes sk as one PEM block of type PrivateKeyPEMType,
// the contents of a private key file. The result holds the secret: the
// caller stores it with mode 0600 (internal/keyfile does).
func MarshalPrivateKeyPEM(sk *PrivateKey) ([]byte, error) {
	der, err := sk.MarshalBinary()
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: PrivateKeyPEMType, Bytes: der}), nil
}

// ParsePrivateKeyPEM parses the contents of a private key file: one PEM
// block of type PrivateKeyPEMType, nothing else. It checks no file mode (it
// sees only bytes), so it also serves keys that are not secret, such as the
// fixed test keys committed to the repository.
func ParsePrivateKeyPEM(data []byte) (*PrivateKey, error) {
	der, err := decodePEM(data, "private key PEM", PrivateKeyPEMType)
	if err != nil {
		return nil, err
	}
	return ParsePrivateKey(der)
}

// MarshalPublicKeyPEM encodes pk as one PEM block of type PublicKeyPEMType.
func MarshalPublicKeyPEM(pk *PublicKey) ([]byte, error) {
	der, err := pk.MarshalBinary()
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: PublicKeyPEMType, Bytes: der}), nil
}

// ParsePublicKeyPEM parses the contents of a public key file: one PEM block
// of type PublicKeyPEMType, nothing else.
func ParsePublicKeyPEM(data []byte) (*PublicKey, error) {
	der, err := decodePEM(data, "public key PEM", PublicKeyPEMType)
	if err != nil {
		return nil, err
	}
	return ParsePublicKey(der)
}

// decodePEM returns the bytes of the single PEM block of type typ in data;
// what names the source in errors. A block of another type is refused, so a
// public key is never taken for a private one or the reverse.
func decodePEM(data []byte, what, typ string) ([]byte, error) {
	block, rest := pem.Decode(data)
	if block == nil {
		return nil, fmt.Errorf("%w: %s: no PEM block", ErrInvalidKey, what)
	}
	if block.Type != typ {
		return nil, fmt.Errorf("%w: %s: PEM type %q, want %q", ErrInvalidKey, what, block.Type, typ)
	}
	if len(block.Headers) != 0 || len(rest) != 0 {
		return nil, fmt.Errorf("%w: %s: unexpected PEM headers or trailing data", ErrInvalidKey, what)
	}
	return block.Bytes, nil
}
