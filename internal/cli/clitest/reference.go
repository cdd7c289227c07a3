package clitest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/internal/cli"
	"github.com/fabvote/fabvote/internal/gentest"
)

// regenerate is the command that writes docs/cli again.
const regenerate = "`make docs`"

// CheckReference is a tool's test of its reference in dir: it fails,
// naming the file, where a page of r differs from dir or where dir holds a
// page of the tool (TOOL.md, TOOL_*.md) that r has not, so that the
// reference never goes stale. With -update (gentest.Update) it writes r's
// pages to dir instead, and removes the tool's pages r has not.
func CheckReference(t testing.TB, r cli.Reference, dir string) {
	t.Helper()
	want := r.Pages()
	var gone []string
	for _, name := range toolFiles(t, dir, r.Root.Name()) {
		if _, ok := want[name]; !ok {
			gone = append(gone, name)
		}
	}
	if *gentest.Update {
		removePages(t, dir, gone)
	} else {
		for _, name := range gone {
			t.Errorf("%s documents no command: run %s", filepath.Join(dir, name), regenerate)
		}
	}
	for _, name := range sortedNames(want) {
		gentest.Check(t, filepath.Join(dir, name), want[name], regenerate)
	}
}

// CheckIndex is the test of dir's README.md, the list of the tools whose
// index pages (TOOL.md) dir holds: it fails if README.md differs from
// cli.IndexPage, or with -update writes it. Run it after the tools'
// CheckReference has written their pages.
func CheckIndex(t testing.TB, dir string) {
	t.Helper()
	want, err := cli.IndexPage(dir)
	if err != nil {
		t.Fatal(err)
	}
	gentest.Check(t, filepath.Join(dir, cli.IndexFile), want, regenerate)
}

// toolFiles lists the pages of tool in dir: TOOL.md and TOOL_*.md.
func toolFiles(t testing.TB, dir, tool string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		n := e.Name()
		if !e.IsDir() && (n == tool+".md" || strings.HasPrefix(n, tool+"_") && strings.HasSuffix(n, ".md")) {
			names = append(names, n)
		}
	}
	return names
}

// removePages makes dir, if need be, and removes the pages names from it.
func removePages(t testing.TB, dir string, names []string) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
}

func sortedNames(pages map[string][]byte) []string {
	names := make([]string, 0, len(pages))
	for n := range pages {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
