package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// IndexFile is the page of a reference directory that lists its tools.
const IndexFile = "README.md"

// CheckReference is a tool's test of its reference in dir: it fails,
// naming the file, where a page of r differs from dir or where dir holds a
// page of the tool (TOOL.md, TOOL_*.md) that r has not, so that the
// reference never goes stale. With update it writes r's pages to dir
// instead, and removes the tool's pages r has not (`make docs`).
func CheckReference(t testing.TB, r Reference, dir string, update bool) {
	t.Helper()
	want := r.Pages()
	have := toolFiles(t, dir, r.Root.Name())
	if update {
		writePages(t, dir, want, have)
		return
	}
	for _, name := range sortedNames(want) {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.Equal(got, want[name]) {
			t.Errorf("%s is stale or missing: run `make docs`", filepath.Join(dir, name))
		}
	}
	for _, name := range have {
		if _, ok := want[name]; !ok {
			t.Errorf("%s documents no command: run `make docs`", filepath.Join(dir, name))
		}
	}
}

// CheckIndex is the test of dir's README.md, the list of the tools whose
// index pages (TOOL.md) dir holds: it fails if README.md differs from
// IndexPage, or with update writes it. Run it after the tools'
// CheckReference has written their pages.
func CheckIndex(t testing.TB, dir string, update bool) {
	t.Helper()
	want, err := IndexPage(dir)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, IndexFile)
	if update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, want) {
		t.Errorf("%s is stale or missing: run `make docs`", path)
	}
}

// IndexPage is the README.md of a reference directory: a link to each
// tool's index page with the summary its title gives ("# TOOL: SHORT").
func IndexPage(dir string) ([]byte, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString("<!-- Generated from the tools' index pages by `make docs`; do not edit. -->\n\n")
	b.WriteString("# Command-line reference\n\n")
	b.WriteString("One page per command of each tool, generated from its command tree. " +
		"Every tool prints its help with `--help` and a shell completion script with `TOOL completion bash|zsh|fish`, " +
		"and exits 0 on success, 1 on failure and 2 on bad usage.\n\n")
	for _, e := range entries {
		tool, ok := strings.CutSuffix(e.Name(), ".md")
		if !ok || e.Name() == IndexFile || strings.Contains(tool, "_") {
			continue
		}
		short, err := indexTitle(filepath.Join(dir, e.Name()), tool)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, "- [%s](%s): %s\n", tool, e.Name(), short)
	}
	return b.Bytes(), nil
}

// indexTitle is the summary in the title "# TOOL: SHORT" of a tool's index
// page.
func indexTitle(path, tool string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if short, ok := strings.CutPrefix(line, "# "+tool+": "); ok {
			return short, nil
		}
	}
	return "", fmt.Errorf("%s: no title \"# %s: SUMMARY\": not a tool's index page", path, tool)
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

// writePages writes pages to dir and removes the files of have that are
// not among them.
func writePages(t testing.TB, dir string, pages map[string][]byte, have []string) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range have {
		if _, ok := pages[name]; !ok {
			if err := os.Remove(filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, name := range sortedNames(pages) {
		if err := os.WriteFile(filepath.Join(dir, name), pages[name], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("wrote %d pages to %s", len(pages), dir)
}

func sortedNames(pages map[string][]byte) []string {
	names := make([]string, 0, len(pages))
	for n := range pages {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
