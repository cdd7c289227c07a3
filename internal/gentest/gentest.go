// Package gentest keeps generated files fresh: a test compares each with
// what its generator makes now and fails, naming the file and the command
// that writes it again, where they differ; run with -update, the same test
// writes them (that is what `make docs` does).
package gentest

import (
	"bytes"
	"flag"
	"os"
	"testing"
)

// Update is the -update flag of every test binary that imports gentest:
// with it, tests write their generated files instead of checking them.
// One flag for all, so that `make docs` passes the same -update to each.
var Update = flag.Bool("update", false, "write the generated files instead of checking them (make docs)")

// Check fails t unless the file at path holds want; with -update it writes
// want there instead. regenerate is the command that rewrites the file.
func Check(t testing.TB, path string, want []byte, regenerate string) {
	t.Helper()
	if *Update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, want) {
		t.Errorf("%s is stale or missing: run %s", path, regenerate)
	}
}
