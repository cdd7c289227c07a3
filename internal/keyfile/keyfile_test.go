package keyfile

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/crypto/paillier"
	"github.com/fabvote/fabvote/crypto/paillier/threshold"
	"github.com/fabvote/fabvote/election/electiontest"
)

func TestPrivateKey(t *testing.T) {
	sk := electiontest.Load().Paillier
	dir := t.TempDir()
	path := filepath.Join(dir, "tally.key")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WritePrivateKey(path, sk); err != nil {
		t.Fatal(err)
	}
	assertMode(t, path, 0o600)
	got, err := ReadPrivateKey(path)
	if err != nil || got.N.Cmp(sk.N) != 0 {
		t.Fatalf("read back: %v", err)
	}
	assertOnly(t, dir, "tally.key")
	pubPath := filepath.Join(dir, "tally.pub")
	if err := WritePublicKey(pubPath, &sk.PublicKey); err != nil {
		t.Fatal(err)
	}
	assertMode(t, pubPath, 0o644)
	if err := os.Chmod(pubPath, 0o600); err != nil { // so that the PEM type is what fails
		t.Fatal(err)
	}
	if _, err := ReadPrivateKey(pubPath); !errors.Is(err, paillier.ErrInvalidKey) || !strings.Contains(err.Error(), "PEM type") {
		t.Fatalf("public key file read as private: err = %v", err)
	}
	if pk, err := ReadPublicKey(pubPath); err != nil || pk.N.Cmp(sk.N) != 0 {
		t.Fatalf("public key file: %v", err)
	}
	if _, err := ReadPublicKey(path); !errors.Is(err, paillier.ErrInvalidKey) || !strings.Contains(err.Error(), "PEM type") {
		t.Fatalf("private key file read as public: err = %v", err)
	}
	if err := WritePrivateKey(filepath.Join(dir, "missing", "k"), sk); err == nil {
		t.Fatal("writing into a missing directory succeeded")
	}
	for name, read := range map[string]func(string) error{
		"private": func(p string) error { _, err := ReadPrivateKey(p); return err },
		"public":  func(p string) error { _, err := ReadPublicKey(p); return err },
		"share":   func(p string) error { _, err := ReadKeyShare(p); return err },
	} {
		if err := read(filepath.Join(dir, "absent")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: reading a missing file: err = %v, want ErrNotExist", name, err)
		}
	}
}

// TestReadPrivateKeyRefusesOpenModes: a private key file that group or
// others may access is refused (the key must be considered exposed), one of
// mode 0600 or 0400 is read.
func TestReadPrivateKeyRefusesOpenModes(t *testing.T) {
	sk := electiontest.Load().Paillier
	for _, tc := range []struct {
		mode os.FileMode
		ok   bool
	}{
		{0o600, true},
		{0o400, true},
		{0o640, false},
		{0o604, false},
		{0o644, false},
		{0o660, false},
		{0o666, false},
	} {
		t.Run(fmt.Sprintf("%04o", tc.mode), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "tally.key")
			if err := WritePrivateKey(path, sk); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, tc.mode); err != nil {
				t.Fatal(err)
			}
			got, err := ReadPrivateKey(path)
			switch {
			case tc.ok && (err != nil || got.N.Cmp(sk.N) != 0):
				t.Fatalf("mode %04o: %v", tc.mode, err)
			case !tc.ok && (!errors.Is(err, paillier.ErrInvalidKey) || !strings.Contains(err.Error(), "mode")):
				t.Fatalf("mode %04o: err = %v, want a refusal naming the mode", tc.mode, err)
			}
		})
	}
}

func TestKeyShare(t *testing.T) {
	_, _, shares := electiontest.Load().ThresholdManifest("keyfile", 2, 3)
	dir := t.TempDir()
	path := filepath.Join(dir, "trustee.share")
	for _, ks := range shares { // each write replaces the previous file
		if err := WriteKeyShare(path, ks); err != nil {
			t.Fatal(err)
		}
		assertMode(t, path, 0o600)
		back, err := ReadKeyShare(path)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := ks.MarshalBinary()
		got, _ := back.MarshalBinary()
		if !bytes.Equal(got, want) {
			t.Fatalf("share %d changed through the file", ks.Index)
		}
	}
	assertOnly(t, dir, "trustee.share")
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadKeyShare(path); !errors.Is(err, threshold.ErrInvalidShare) || !strings.Contains(err.Error(), "0644") {
		t.Fatalf("world-readable share: got %v, want ErrInvalidShare naming the mode", err)
	}
	if err := WriteKeyShare(filepath.Join(dir, "missing", "x"), shares[0]); err == nil {
		t.Fatal("writing into a missing directory succeeded")
	}
	if err := WriteKeyShare(filepath.Join(dir, "empty"), &threshold.KeyShare{Index: 1, K: 1, L: 1}); !errors.Is(err, threshold.ErrInvalidShare) {
		t.Fatalf("empty share: got %v, want ErrInvalidShare", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "empty")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("an invalid share left a file behind")
	}
}

// TestFailedWriteLeavesNothing: a write that fails after its bytes were
// written (the rename onto a directory fails) leaves no temporary file, and
// a refused write leaves the previous file as it was.
func TestFailedWriteLeavesNothing(t *testing.T) {
	sk := electiontest.Load().Paillier
	_, _, shares := electiontest.Load().ThresholdManifest("keyfile", 2, 3)
	writers := map[string]func(string) error{
		"private key": func(p string) error { return WritePrivateKey(p, sk) },
		"public key":  func(p string) error { return WritePublicKey(p, &sk.PublicKey) },
		"key share":   func(p string) error { return WriteKeyShare(p, shares[0]) },
	}
	for name, write := range writers {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			target := filepath.Join(dir, "key")
			if err := os.Mkdir(target, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := write(target); err == nil {
				t.Fatal("replacing a directory succeeded")
			}
			assertOnly(t, dir, "key")
		})
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "trustee.share")
	if err := WriteKeyShare(path, shares[1]); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	if err := WriteKeyShare(path, &threshold.KeyShare{Index: 1, K: 1, L: 1}); err == nil {
		t.Fatal("an invalid share was written")
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
		t.Fatal("a refused write changed the previous share file")
	}
	assertOnly(t, dir, "trustee.share")
}

func assertMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != want {
		t.Fatalf("%s: mode %04o, want %04o", path, fi.Mode().Perm(), want)
	}
}

// assertOnly fails unless dir holds exactly the entries names (no
// temporary file left behind).
func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if strings.Join(got, ",") != strings.Join(names, ",") {
		t.Fatalf("directory holds %v, want %v", got, names)
	}
}
