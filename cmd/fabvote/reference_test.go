package main

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// updateReference makes TestCLIReference write docs/cli instead of
// checking it: `make docs`.
var updateReference = flag.Bool("update", false, "rewrite the CLI reference in docs/cli from the command tree")

// referenceDir is docs/cli, from this package's directory.
const referenceDir = "../../docs/cli"

// TestCLIReference regenerates the CLI reference in memory and fails,
// naming the file, where docs/cli differs from it, so that the reference
// never goes stale. With -update it writes docs/cli instead.
func TestCLIReference(t *testing.T) {
	want := cliReference(newRootCommand(io.Discard))
	if *updateReference {
		writeReference(t, want)
		return
	}
	for _, name := range sortedNames(want) {
		got, err := os.ReadFile(filepath.Join(referenceDir, name))
		if err != nil || !bytes.Equal(got, want[name]) {
			t.Errorf("docs/cli/%s is stale or missing: run `make docs`", name)
		}
	}
	for _, name := range referenceFiles(t) {
		if _, ok := want[name]; !ok {
			t.Errorf("docs/cli/%s documents no command: run `make docs`", name)
		}
	}
}

// TestCLIReferenceIsDeterministic builds the reference twice: a page that
// depended on anything but the command tree would differ.
func TestCLIReferenceIsDeterministic(t *testing.T) {
	a, b := cliReference(newRootCommand(io.Discard)), cliReference(newRootCommand(io.Discard))
	if !slices.Equal(sortedNames(a), sortedNames(b)) {
		t.Fatal("the two references have different pages")
	}
	for name, page := range a {
		if !bytes.Equal(page, b[name]) {
			t.Errorf("%s differs between two generations", name)
		}
	}
	if _, ok := a["fabvote_election_create.md"]; !ok {
		t.Errorf("no page for election create among %q", sortedNames(a))
	}
}

// TestCLIReferenceLinks checks that every link of the reference names one
// of its pages (the docs link check skips docs/cli).
func TestCLIReferenceLinks(t *testing.T) {
	pages := cliReference(newRootCommand(io.Discard))
	for name, page := range pages {
		for _, m := range referenceLinkRE.FindAllSubmatch(page, -1) {
			if _, ok := pages[string(m[1])]; !ok {
				t.Errorf("%s links to %s, which is not a page of the reference", name, m[1])
			}
		}
	}
}

var referenceLinkRE = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// writeReference replaces the Markdown files of docs/cli with pages.
func writeReference(t *testing.T, pages map[string][]byte) {
	if err := os.MkdirAll(referenceDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range referenceFiles(t) {
		if _, ok := pages[name]; !ok {
			if err := os.Remove(filepath.Join(referenceDir, name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, name := range sortedNames(pages) {
		if err := os.WriteFile(filepath.Join(referenceDir, name), pages[name], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("wrote %d pages to docs/cli", len(pages))
}

// referenceFiles lists the Markdown files in docs/cli.
func referenceFiles(t *testing.T) []string {
	entries, err := os.ReadDir(referenceDir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".md") {
			names = append(names, e.Name())
		}
	}
	return names
}

func sortedNames(pages map[string][]byte) []string {
	names := make([]string, 0, len(pages))
	for n := range pages {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
