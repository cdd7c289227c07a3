package filetree

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestCopy(t *testing.T) {
	src, dst := t.TempDir(), filepath.Join(t.TempDir(), "out")
	files := map[string]string{"a.txt": "one", "sub/b.txt": "two", "sub/deeper/c.txt": ""}
	for name, text := range files {
		write(t, filepath.Join(src, name), text)
	}
	if err := os.Mkdir(filepath.Join(src, "empty"), 0o700); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dst, "a.txt"), "an older, longer content") // overwritten, not appended to
	if err := Copy(src, dst); err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		b, err := os.ReadFile(filepath.Join(dst, name))
		if err != nil || string(b) != text {
			t.Errorf("%s: %q, %v; want %q", name, b, err, text)
		}
		if fi, err := os.Stat(filepath.Join(dst, name)); name != "a.txt" && (err != nil || fi.Mode().Perm() != 0o644) {
			t.Errorf("%s: mode %v, %v; want 0644", name, fi.Mode().Perm(), err)
		}
	}
	if fi, err := os.Stat(filepath.Join(dst, "empty")); err != nil || !fi.IsDir() {
		t.Errorf("the empty directory was not copied: %v", err)
	}
}

// Each kind of tree Copy refuses, with the entry it names.
func TestCopyRefuses(t *testing.T) {
	for _, tc := range []struct {
		name    string
		setup   func(t *testing.T, src string)
		wantErr string
	}{
		{"symbolic link", func(t *testing.T, src string) {
			write(t, filepath.Join(src, "secret"), "outside")
			if err := os.Symlink(filepath.Join(src, "secret"), filepath.Join(src, "sub", "link")); err != nil {
				t.Fatal(err)
			}
		}, "sub/link: a symbolic link: only regular files and directories are copied"},
		{"missing source", func(t *testing.T, src string) {
			if err := os.RemoveAll(src); err != nil {
				t.Fatal(err)
			}
		}, "no such file or directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := filepath.Join(t.TempDir(), "src")
			write(t, filepath.Join(src, "sub", "ok.txt"), "ok")
			tc.setup(t, src)
			err := Copy(src, filepath.Join(t.TempDir(), "out"))
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

func TestCopyFileMissing(t *testing.T) {
	dst := filepath.Join(t.TempDir(), "x")
	if err := CopyFile(filepath.Join(t.TempDir(), "absent"), dst); err == nil {
		t.Fatal("copied a file that does not exist")
	}
	if _, err := os.Stat(dst); !os.IsNotExist(err) {
		t.Errorf("a failed copy left %s: %v", dst, err)
	}
}
