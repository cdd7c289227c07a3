package paillier

import (
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
)

// PEM block types of the key files.
const (
	PublicKeyPEMType  = "FABVOTE PAILLIER PUBLIC KEY"
	PrivateKeyPEMType = "FABVOTE PAILLIER PRIVATE KEY"
)

// WritePrivateKeyFile writes sk as PEM to path with mode 0600, atomically:
// a temporary file in the same directory is written, synced and renamed.
func WritePrivateKeyFile(path string, sk *PrivateKey) error {
	der, err := sk.MarshalBinary()
	if err != nil {
		return err
	}
	return writeFileAtomic(path, pem.EncodeToMemory(&pem.Block{Type: PrivateKeyPEMType, Bytes: der}), 0o600)
}

// ReadPrivateKeyFile reads a file written by WritePrivateKeyFile. Like ssh
// with its private keys (and threshold.ReadKeyShareFile), it refuses a file
// that group or others may read or write: such a key must be considered
// exposed, so it is better to stop than to decrypt with it.
func ReadPrivateKeyFile(path string) (*PrivateKey, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("paillier: reading key file: %w", err)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return nil, fmt.Errorf("%w: %s: mode %04o lets group or others access the private key, want 0600", ErrInvalidKey, path, perm)
	}
	der, err := readPEMFile(path, PrivateKeyPEMType)
	if err != nil {
		return nil, err
	}
	return ParsePrivateKey(der)
}

// ParsePrivateKeyPEM parses the contents of a private key file (one PEM
// block of type PrivateKeyPEMType, nothing else) without the file-mode check
// of ReadPrivateKeyFile: for keys that are not secret, such as the fixed
// test keys committed to the repository, or bytes obtained elsewhere.
func ParsePrivateKeyPEM(data []byte) (*PrivateKey, error) {
	der, err := decodePEM(data, "private key PEM", PrivateKeyPEMType)
	if err != nil {
		return nil, err
	}
	return ParsePrivateKey(der)
}

// WritePublicKeyFile writes pk as PEM to path with mode 0644, atomically.
func WritePublicKeyFile(path string, pk *PublicKey) error {
	der, err := pk.MarshalBinary()
	if err != nil {
		return err
	}
	return writeFileAtomic(path, pem.EncodeToMemory(&pem.Block{Type: PublicKeyPEMType, Bytes: der}), 0o644)
}

// ReadPublicKeyFile reads a file written by WritePublicKeyFile.
func ReadPublicKeyFile(path string) (*PublicKey, error) {
	der, err := readPEMFile(path, PublicKeyPEMType)
	if err != nil {
		return nil, err
	}
	return ParsePublicKey(der)
}

func readPEMFile(path, typ string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("paillier: reading key file: %w", err)
	}
	return decodePEM(data, path, typ)
}

// decodePEM returns the bytes of the single PEM block of type typ in data;
// what names the source in errors.
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

func writeFileAtomic(path string, data []byte, mode os.FileMode) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("paillier: creating temporary key file: %w", err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err = f.Chmod(mode); err != nil {
		return fmt.Errorf("paillier: setting key file mode: %w", err)
	}
	if _, err = f.Write(data); err != nil {
		return fmt.Errorf("paillier: writing key file: %w", err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("paillier: syncing key file: %w", err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("paillier: closing key file: %w", err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("paillier: renaming key file into place: %w", err)
	}
	if d, derr := os.Open(dir); derr == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
