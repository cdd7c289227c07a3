package gentest

import (
	"os"
	"path/filepath"
	"testing"
)

// recorder is a testing.TB that records whether the test failed.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Helper()               {}

func TestCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gen.txt")
	r := &recorder{TB: t}
	Check(r, path, []byte("v1\n"), false, "make docs")
	if !r.failed {
		t.Error("a missing file passed")
	}
	Check(t, path, []byte("v1\n"), true, "make docs")
	if b, err := os.ReadFile(path); err != nil || string(b) != "v1\n" {
		t.Fatalf("update wrote %q, %v", b, err)
	}
	r = &recorder{TB: t}
	Check(r, path, []byte("v1\n"), false, "make docs")
	if r.failed {
		t.Error("a fresh file failed")
	}
	Check(r, path, []byte("v2\n"), false, "make docs")
	if !r.failed {
		t.Error("a stale file passed")
	}
}
