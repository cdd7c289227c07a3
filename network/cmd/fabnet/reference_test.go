package main

import (
	"bytes"
	"io"
	"regexp"
	"testing"

	"github.com/fabvote/fabvote/internal/cli"
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
}

// TestCLIReferenceLinks checks that every link of the reference names one
// of its pages or the list of tools (the docs link check skips docs/cli).
func TestCLIReferenceLinks(t *testing.T) {
	pages := reference(newRootCommand(io.Discard)).Pages()
	if _, ok := pages["fabnet_node_define.md"]; !ok {
		t.Fatalf("no page for node define among the %d pages", len(pages))
	}
	for name, page := range pages {
		for _, m := range referenceLinkRE.FindAllSubmatch(page, -1) {
			if _, ok := pages[string(m[1])]; !ok && string(m[1]) != cli.IndexFile {
				t.Errorf("%s links to %s, which is not a page of the reference", name, m[1])
			}
		}
	}
}

var referenceLinkRE = regexp.MustCompile(`\]\(([^)\s]+)\)`)
