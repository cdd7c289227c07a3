package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteFile(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		perm os.FileMode
	}{
		{"secret", []byte("s3cret"), 0o600},
		{"public", []byte("hello world"), 0o644},
		{"empty", nil, 0o600},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "out")
			if err := os.WriteFile(p, []byte("old content"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := WriteFile(p, tc.data, tc.perm); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(tc.data) {
				t.Fatalf("content %q, want %q", got, tc.data)
			}
			st, _ := os.Stat(p)
			if st.Mode().Perm() != tc.perm {
				t.Fatalf("mode %v, want %v", st.Mode().Perm(), tc.perm)
			}
			assertNoTemp(t, dir, 1)
		})
	}
}

func TestAbortLeavesOldFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := WriteWith(p, 0o600, func(w io.Writer) error {
		w.Write([]byte("partial"))
		return errors.New("boom")
	})
	if err == nil || err.Error() != "boom" {
		t.Fatalf("err = %v, want boom", err)
	}
	got, _ := os.ReadFile(p)
	if string(got) != "old" {
		t.Fatalf("destination changed to %q after abort", got)
	}
	assertNoTemp(t, dir, 1)
}

func TestCreateMissingDir(t *testing.T) {
	_, err := Create(filepath.Join(t.TempDir(), "nope", "x"), 0o600)
	if err == nil {
		t.Fatal("expected an error for a missing directory")
	}
}

func assertNoTemp(t *testing.T, dir string, want int) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	if len(ents) != want {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Fatalf("directory holds %v, want %d file(s)", names, want)
	}
}
