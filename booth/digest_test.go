package booth

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

func writeBooth(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, c := range files {
		path := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// The digest names the files' paths and contents, and nothing else: any
// change of either changes it, and two copies of the same files agree.
func TestDigest(t *testing.T) {
	base := map[string]string{"index.html": "<p>", "booth.js": "x", "sub/a.json": "{}"}
	digest := func(files map[string]string) string {
		d, err := Digest(writeBooth(t, files))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	want := digest(base)
	if !regexp.MustCompile(`^sha256:[0-9a-f]{64}$`).MatchString(want) {
		t.Fatalf("digest %q is not sha256:<64 hex>", want)
	}
	if again := digest(base); again != want {
		t.Fatalf("same files, digests %s and %s", want, again)
	}
	tests := []struct {
		name  string
		files map[string]string
	}{
		{"content changed", map[string]string{"index.html": "<p>", "booth.js": "y", "sub/a.json": "{}"}},
		{"file renamed", map[string]string{"index.html": "<p>", "booth2.js": "x", "sub/a.json": "{}"}},
		{"file moved", map[string]string{"index.html": "<p>", "booth.js": "x", "a.json": "{}"}},
		{"file added", map[string]string{"index.html": "<p>", "booth.js": "x", "sub/a.json": "{}", "extra": ""}},
		{"file removed", map[string]string{"index.html": "<p>", "booth.js": "x"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := digest(tc.files); got == want {
				t.Fatalf("digest unchanged: %s", got)
			}
		})
	}
}

// A directory that is empty, missing or holds a symbolic link has no digest.
func TestDigestRefuses(t *testing.T) {
	link := writeBooth(t, map[string]string{"index.html": "<p>"})
	if err := os.Symlink("/etc/hostname", filepath.Join(link, "other")); err != nil {
		t.Fatal(err)
	}
	for name, dir := range map[string]string{"empty": t.TempDir(), "missing": filepath.Join(t.TempDir(), "none"), "symlink": link} {
		t.Run(name, func(t *testing.T) {
			if d, err := Digest(dir); err == nil {
				t.Fatalf("digest %s, want an error", d)
			}
		})
	}
}
