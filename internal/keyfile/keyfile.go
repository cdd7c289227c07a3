// Package keyfile keeps Paillier keys, threshold key shares and trustees'
// Ed25519 signing keys (for the key ceremony's messages) in files.
//
// Secrets (a Paillier private key, a trustee's key share or signing key)
// are written with mode 0600, and reading refuses a secret file that group
// or others may read or write: like ssh with its private keys, such a key
// must be considered exposed, so it is better to stop than to use it.
// Public keys are written with mode 0644. Every write goes through internal/atomicfile, so a
// failed write leaves the previous file (or none), never a half-written one.
//
// The encodings are the crypto packages' (paillier.MarshalPrivateKeyPEM and
// friends, threshold.KeyShare.MarshalBinary): this package only moves their
// bytes to and from disk, and a PEM block of the wrong type is refused by
// their parsers. A signing key is PKCS#8 PEM (crypto/x509), as openssl
// writes Ed25519 keys.
package keyfile

import (
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/fabvote/fabvote/crypto/paillier"
	"github.com/fabvote/fabvote/crypto/paillier/threshold"
	"github.com/fabvote/fabvote/internal/atomicfile"
)

// File modes of what this package writes.
const (
	SecretMode fs.FileMode = 0o600
	PublicMode fs.FileMode = 0o644
)

// WritePrivateKey writes sk as PEM to path with mode 0600, atomically.
func WritePrivateKey(path string, sk *paillier.PrivateKey) error {
	b, err := paillier.MarshalPrivateKeyPEM(sk)
	if err != nil {
		return err
	}
	defer clear(b)
	return atomicfile.WriteFile(path, b, SecretMode)
}

// ReadPrivateKey reads a file written by WritePrivateKey. It refuses a file
// that group or others may access (paillier.ErrInvalidKey, naming the mode).
func ReadPrivateKey(path string) (*paillier.PrivateKey, error) {
	b, err := readSecret(path, func(perm fs.FileMode) error {
		return fmt.Errorf("%w: %s: mode %04o lets group or others access the private key, want 0600", paillier.ErrInvalidKey, path, perm)
	})
	if err != nil {
		return nil, err
	}
	defer clear(b)
	sk, err := paillier.ParsePrivateKeyPEM(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return sk, nil
}

// WritePublicKey writes pk as PEM to path with mode 0644, atomically.
func WritePublicKey(path string, pk *paillier.PublicKey) error {
	b, err := paillier.MarshalPublicKeyPEM(pk)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, b, PublicMode)
}

// ReadPublicKey reads a file written by WritePublicKey.
func ReadPublicKey(path string) (*paillier.PublicKey, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading public key: %w", err)
	}
	pk, err := paillier.ParsePublicKeyPEM(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return pk, nil
}

// WriteKeyShare writes ks in its binary encoding to path with mode 0600,
// atomically. An invalid share is refused (threshold.ErrInvalidShare)
// before anything is written.
func WriteKeyShare(path string, ks *threshold.KeyShare) error {
	b, err := ks.MarshalBinary()
	if err != nil {
		return err
	}
	defer clear(b)
	return atomicfile.WriteFile(path, b, SecretMode)
}

// ReadKeyShare reads a share written by WriteKeyShare. It refuses a file
// that group or others may access (threshold.ErrInvalidShare, naming the
// mode).
func ReadKeyShare(path string) (*threshold.KeyShare, error) {
	b, err := readSecret(path, func(perm fs.FileMode) error {
		return fmt.Errorf("%w: file %s: mode %04o is accessible by group or others, want 0600", threshold.ErrInvalidShare, path, perm)
	})
	if err != nil {
		return nil, err
	}
	defer clear(b)
	return threshold.ParseKeyShare(b)
}

// readSecret reads the file at path if only its owner may access it, and
// returns exposed(mode) otherwise. The mode is taken from the open file, so
// the file checked is the file read.
func readSecret(path string, exposed func(perm fs.FileMode) error) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading secret key file: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("reading secret key file: %w", err)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return nil, exposed(perm)
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("reading secret key file %s: %w", path, err)
	}
	return b, nil
}
