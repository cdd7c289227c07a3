package main

import (
	"bytes"
	"io"
	"testing"

	"github.com/fabvote/fabvote/internal/cli/clitest"
)

// referenceDir is docs/cli, from this package's directory.
const referenceDir = "../../../docs/cli"

// TestCLIReference fails, naming the file, where fabnet's pages in
// docs/cli differ from the command tree; with -update (internal/gentest)
// it writes them.
func TestCLIReference(t *testing.T) {
	clitest.CheckReference(t, reference(newRootCommand(io.Discard)), referenceDir)
}

// TestCLIReferenceIsDeterministic: the pages depend on the command tree
// only, not on the environment the reference is generated in (a default
// read from ROOT or FABVOTE_IMAGE_TAG would show in the flags).
func TestCLIReferenceIsDeterministic(t *testing.T) {
	a := reference(newRootCommand(io.Discard)).Pages()
	t.Setenv("ROOT", "/elsewhere")
	t.Setenv("FABVOTE_IMAGE_TAG", "v9")
	b := reference(newRootCommand(io.Discard)).Pages()
	if len(a) != len(b) {
		t.Fatalf("%d pages, then %d", len(a), len(b))
	}
	for name, page := range a {
		if !bytes.Equal(page, b[name]) {
			t.Errorf("%s depends on the environment", name)
		}
	}
	for _, name := range []string{"fabnet_node_define.md", "fabnet_topology_env.md"} {
		if _, ok := a[name]; !ok {
			t.Errorf("no page %s among the %d pages", name, len(a))
		}
	}
}
