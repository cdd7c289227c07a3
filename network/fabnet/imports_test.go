package fabnet

import (
	"go/build"
	"slices"
	"testing"
)

// TestModelImports: the model runs nothing and knows nothing of the
// runner. Its own files (tests aside) import neither os/exec, nor syscall,
// nor network/fabrun.
func TestModelImports(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(pkg.GoFiles) == 0 {
		t.Fatal("no Go files read: the test reads the wrong directory")
	}
	for _, banned := range []string{"os/exec", "syscall", "github.com/fabvote/fabvote/network/fabrun"} {
		if slices.Contains(pkg.Imports, banned) {
			t.Errorf("network/fabnet imports %s: the model starts no process; that belongs in network/fabrun", banned)
		}
	}
}
