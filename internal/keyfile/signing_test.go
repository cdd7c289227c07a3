package keyfile

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A generated key reads back, matches its public file and fingerprint, and
// is never overwritten.
func TestSigningKey(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "trustee")
	pub, fp, err := GenerateSigningKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	assertMode(t, filepath.Join(dir, SigningKeyFile), 0o600)
	assertMode(t, filepath.Join(dir, SigningPubFile), 0o644)
	assertOnly(t, dir, SigningKeyFile, SigningPubFile)
	sk, err := ReadSigningKey(filepath.Join(dir, SigningKeyFile))
	if err != nil {
		t.Fatal(err)
	}
	pk := sk.Public().(ed25519.PublicKey)
	if base64.StdEncoding.EncodeToString(pk) != pub || SigningKeyFingerprint(pk) != fp || !strings.HasPrefix(fp, "SHA256:") || len(fp) != len("SHA256:")+43 {
		t.Fatalf("public key %s, fingerprint %s: not the key read back", pub, fp)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, SigningPubFile)); string(b) != pub+"\n" {
		t.Fatalf("%s holds %q, want %q", SigningPubFile, b, pub)
	}
	before, _ := os.ReadFile(filepath.Join(dir, SigningKeyFile))
	if _, _, err := GenerateSigningKey(dir); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("second GenerateSigningKey: %v", err)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, SigningKeyFile)); !bytes.Equal(after, before) {
		t.Fatal("the signing key was overwritten")
	}
	other, _, err := GenerateSigningKey(t.TempDir())
	if err != nil || other == pub {
		t.Fatalf("another directory: %s, %v", other, err)
	}
}

// One test per kind of bad signing key file.
func TestReadSigningKeyRefuses(t *testing.T) {
	_, sk, _ := ed25519.GenerateKey(rand.Reader)
	der, _ := x509.MarshalPKCS8PrivateKey(sk)
	good := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ecDER, _ := x509.MarshalPKCS8PrivateKey(ec)
	tests := []struct {
		name string
		data []byte
		mode os.FileMode
		want string
	}{
		{"readable by group", good, 0o640, "mode 0640"},
		{"readable by others", good, 0o604, "mode 0604"},
		{"not PEM", []byte("hello"), 0o600, "no PEM block"},
		{"wrong PEM type", pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), 0o600, `PEM type "EC PRIVATE KEY"`},
		{"data after the block", append(bytes.Clone(good), good...), 0o600, "data after the PEM block"},
		{"not PKCS#8", pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte{1, 2, 3}}), 0o600, "asn1"},
		{"not Ed25519", pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: ecDER}), 0o600, "want an Ed25519 key"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), SigningKeyFile)
			if err := os.WriteFile(path, tc.data, tc.mode); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, tc.mode); err != nil { // past the umask
				t.Fatal(err)
			}
			_, err := ReadSigningKey(path)
			if !errors.Is(err, ErrSigningKey) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
				t.Fatalf("ReadSigningKey: %v; want ErrSigningKey naming %s and %q", err, path, tc.want)
			}
		})
	}
	if _, err := ReadSigningKey(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Fatal("a missing file was read")
	}
}
