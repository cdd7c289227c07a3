// Package gentest keeps generated files fresh: a test compares each with
// what its generator makes now and fails, naming the file and the command
// that writes it again, where they differ; run with -update, the same test
// writes them (that is what `make docs` does).
package gentest

import (
	"bytes"
	"os"
	"testing"
)

// Check fails t unless the file at path holds want; with update it writes
// want there instead. regenerate is the command that rewrites the file.
func Check(t testing.TB, path string, want []byte, update bool, regenerate string) {
	t.Helper()
	if update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, want) {
		t.Errorf("%s is stale or missing: run %s", path, regenerate)
	}
}
