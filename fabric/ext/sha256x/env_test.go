package sha256x

import (
	"os"
	"testing"
)

// unsetenv removes key for the rest of the test; t.Setenv has already
// registered the restoration of its previous value.
func unsetenv(t *testing.T, key string) {
	t.Helper()
	if err := os.Unsetenv(key); err != nil {
		t.Fatal(err)
	}
}
