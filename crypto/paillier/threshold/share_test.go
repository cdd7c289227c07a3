package threshold

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKeyShareNeverPrintsSecret: no fmt verb shows s_i in any base.
func TestKeyShareNeverPrintsSecret(t *testing.T) {
	_, shares := testDeal(t, sizeSmall, 2, 3)
	ks := shares[1]
	forms := []string{ks.secret.Text(10), ks.secret.Text(16), strings.ToUpper(ks.secret.Text(16)), ks.secret.Text(2)[:64]}
	for _, format := range []string{"%v", "%+v", "%#v", "%s", "%d", "%x", "%X", "%q", "%T %v"} {
		for name, val := range map[string]any{"value": *ks, "pointer": ks, "slice": shares, "struct": struct{ S *KeyShare }{ks}} {
			out := fmt.Sprintf(format, val)
			for _, f := range forms {
				if strings.Contains(out, f) {
					t.Fatalf("%s of %s prints the secret: %s", format, name, out)
				}
			}
			if format == "%v" && !strings.Contains(out, "redacted") {
				t.Fatalf("%%v of %s: %q does not say the secret is redacted", name, out)
			}
		}
	}
}

func TestKeyShareFile(t *testing.T) {
	_, shares := testDeal(t, sizeSmall, 2, 3)
	dir := t.TempDir()
	path := filepath.Join(dir, "trustee.share")
	for _, ks := range shares { // each write replaces the previous file
		if err := WriteKeyShareFile(path, ks); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Fatalf("mode %04o, want 0600", fi.Mode().Perm())
		}
		back, err := ReadKeyShareFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := ks.MarshalBinary()
		got, _ := back.MarshalBinary()
		if !bytes.Equal(got, want) {
			t.Fatalf("share %d changed through the file", ks.Index)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Fatalf("%d files in the directory, want only the share (no temporary left)", len(entries))
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadKeyShareFile(path); !errors.Is(err, ErrInvalidShare) || !strings.Contains(err.Error(), "0644") {
		t.Fatalf("world-readable share: got %v, want ErrInvalidShare naming the mode", err)
	}
	if err := WriteKeyShareFile(filepath.Join(dir, "missing", "x"), shares[0]); err == nil {
		t.Fatal("writing into a missing directory succeeded")
	}
	if err := WriteKeyShareFile(filepath.Join(dir, "empty"), &KeyShare{Index: 1, K: 1, L: 1}); !errors.Is(err, ErrInvalidShare) {
		t.Fatalf("empty share: got %v, want ErrInvalidShare", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "empty")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("an invalid share left a file behind")
	}
}
