package fabric

import (
	"os"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/internal/docsplice"
	"github.com/fabvote/fabvote/internal/gentest"
)

const forkDoc = "../docs/FORK.md"

// TestPatchTable fails where docs/FORK.md's patch table differs from what
// the patch files say of themselves, so that it never goes stale; with
// -update (gentest.Update) it writes the table instead.
func TestPatchTable(t *testing.T) {
	table, err := PatchTable()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(forkDoc)
	if err != nil {
		t.Fatal(err)
	}
	want, err := docsplice.Splice(string(doc), BeginPatches, EndPatches, table)
	if err != nil {
		t.Fatalf("docs/FORK.md: %v", err)
	}
	gentest.Check(t, forkDoc, []byte(want), "make docs (go test ./fabric -run TestPatchTable -args -update)")
}

// ParsePatch takes the subject from the header's first paragraph and the
// files from the diffs, and refuses a patch without either.
func TestParsePatch(t *testing.T) {
	const text = "fabvote 0007: a subject\nthat goes on\n\nWhat: more.\n\n" +
		"diff --git a/x/y.go b/x/y.go\nindex 1..2\n--- a/x/y.go\n+++ b/x/y.go\n" +
		"diff --git a/x/new.go b/x/new.go\nnew file mode 100644\n"
	p, err := ParsePatch("0007-thing.patch", text)
	if err != nil || p.Name != "0007-thing" || p.Subject != "a subject that goes on" || len(p.Files) != 2 ||
		p.Files[0] != (PatchFile{"x/y.go", false}) || p.Files[1] != (PatchFile{"x/new.go", true}) {
		t.Errorf("ParsePatch: %+v, %v", p, err)
	}
	for name, bad := range map[string]string{
		"another number": strings.Replace(text, "0007", "0008", 1),
		"no subject":     "\n\n" + text,
		"no diff":        "fabvote 0007: a subject\n\nbody\n",
	} {
		if _, err := ParsePatch("0007-thing.patch", bad); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// Every patch of the series parses.
func TestPatchesParse(t *testing.T) {
	ps, err := Patches()
	if err != nil || len(ps) == 0 {
		t.Fatalf("Patches: %d, %v", len(ps), err)
	}
}
