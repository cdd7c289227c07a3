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

// setUpdate sets the -update flag for the rest of t.
func setUpdate(t *testing.T, v bool) {
	old := *Update
	*Update = v
	t.Cleanup(func() { *Update = old })
}

func TestCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gen.txt")
	setUpdate(t, false)
	r := &recorder{TB: t}
	Check(r, path, []byte("v1\n"), "make docs")
	if !r.failed {
		t.Error("a missing file passed")
	}
	setUpdate(t, true)
	Check(t, path, []byte("v1\n"), "make docs")
	if b, err := os.ReadFile(path); err != nil || string(b) != "v1\n" {
		t.Fatalf("update wrote %q, %v", b, err)
	}
	setUpdate(t, false)
	r = &recorder{TB: t}
	Check(r, path, []byte("v1\n"), "make docs")
	if r.failed {
		t.Error("a fresh file failed")
	}
	Check(r, path, []byte("v2\n"), "make docs")
	if !r.failed {
		t.Error("a stale file passed")
	}
}
