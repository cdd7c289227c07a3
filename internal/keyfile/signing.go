package keyfile

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/fabvote/fabvote/internal/atomicfile"
)

// Files of a trustee's Ed25519 signing key, which signs its key-ceremony
// messages. They sit in the trustee's directory, next to its age identity
// (internal/sharebox).
const (
	SigningKeyFile = "signing-key.pem" // the secret key, PKCS#8 PEM, mode 0600
	SigningPubFile = "signing-key.pub" // the public key in standard base64, for the ceremony config
)

// pemPrivateKey is the PEM type of a PKCS#8 private key.
const pemPrivateKey = "PRIVATE KEY"

// ErrSigningKey: a signing key file that cannot be used.
var ErrSigningKey = errors.New("invalid signing key file")

// GenerateSigningKey makes a trustee's Ed25519 key pair in dir (created
// 0700): the secret in dir/signing-key.pem (0600) and the public key in
// dir/signing-key.pub. Like the age identity, it is never overwritten: the
// secret file appears complete or not at all, and a dir that holds one is
// refused. It returns the public key in standard base64 (the ceremony
// config's signingKey) and its fingerprint.
func GenerateSigningKey(dir string) (pub, fingerprint string, err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", "", err
	}
	path := filepath.Join(dir, SigningKeyFile)
	if _, err := os.Lstat(path); err == nil {
		return "", "", fmt.Errorf("%s already exists: a trustee keeps its signing key; use another directory", path)
	}
	pk, sk, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return "", "", err
	}
	defer clear(sk)
	der, err := x509.MarshalPKCS8PrivateKey(sk)
	if err != nil {
		return "", "", err
	}
	defer clear(der)
	secret := pem.EncodeToMemory(&pem.Block{Type: pemPrivateKey, Bytes: der})
	defer clear(secret)
	pub = base64.StdEncoding.EncodeToString(pk)
	if err := atomicfile.WriteFile(filepath.Join(dir, SigningPubFile), []byte(pub+"\n"), PublicMode); err != nil {
		return "", "", err
	}
	if err := atomicfile.WriteNew(path, secret, SecretMode); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return "", "", fmt.Errorf("%s already exists: a trustee keeps its signing key; use another directory", path)
		}
		return "", "", err
	}
	return pub, SigningKeyFingerprint(pk), nil
}

// ReadSigningKey reads a file written by GenerateSigningKey. It refuses a
// file that group or others may access, and anything but one PKCS#8 PEM
// block holding an Ed25519 key (ErrSigningKey, naming the file and why).
func ReadSigningKey(path string) (ed25519.PrivateKey, error) {
	b, err := readSecret(path, func(perm fs.FileMode) error {
		return fmt.Errorf("%w: %s: mode %04o lets group or others access the signing key, want 0600", ErrSigningKey, path, perm)
	})
	if err != nil {
		return nil, err
	}
	defer clear(b)
	block, rest := pem.Decode(b)
	switch {
	case block == nil:
		return nil, fmt.Errorf("%w: %s: no PEM block", ErrSigningKey, path)
	case block.Type != pemPrivateKey:
		return nil, fmt.Errorf("%w: %s: PEM type %q, want %q", ErrSigningKey, path, block.Type, pemPrivateKey)
	case len(bytes.TrimSpace(rest)) > 0:
		return nil, fmt.Errorf("%w: %s: data after the PEM block", ErrSigningKey, path)
	}
	defer clear(block.Bytes)
	key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrSigningKey, path, err)
	}
	sk, ok := key.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("%w: %s: a %T, want an Ed25519 key", ErrSigningKey, path, key)
	}
	return sk, nil
}

// SigningKeyFingerprint is what trustees read to each other to check a
// signing key: "SHA256:" and the unpadded base64 of SHA-256 of the 32-byte
// public key, as ssh shows its keys.
func SigningKeyFingerprint(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return "SHA256:" + base64.RawStdEncoding.EncodeToString(sum[:])
}
