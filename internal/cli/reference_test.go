package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/internal/cli"
	"github.com/fabvote/fabvote/internal/cli/clitest"
	"github.com/fabvote/fabvote/internal/cli/internal/testtool"
)

// TestReferenceIndex fails when docs/cli/README.md does not list exactly
// the tools whose index pages docs/cli holds; with -update it writes it
// (`make docs`, after the tools' pages).
func TestReferenceIndex(t *testing.T) {
	clitest.CheckIndex(t, "../../docs/cli")
}

// TestReferencePages checks the index page and a command page of the test
// tool, and that every link names a page of the reference or the list of
// tools.
func TestReferencePages(t *testing.T) {
	pages := testtool.Reference().Pages()
	for name, want := range map[string][]string{
		"tool.md": {"<!-- Generated from the command tree of internal/cli by `make docs`; do not edit. -->\n\n# tool: a test tool\n\nA tool for tests.\n",
			"`tool COMMAND --help` prints a command's flags.",
			"Exit status: 0 success; 1 failure, including a broken thing; 2 bad usage.",
			"- [tool group sub](tool_group_sub.md): a child\n"},
		"tool_greet.md":     {"# tool greet\n\ngreet someone\n", "```\ntool greet --name N\n```", "--name string", "See also: [tool](tool.md).\n"},
		"tool_group_sub.md": {"See also: [tool group](tool_group.md), [all commands](tool.md).\n"},
	} {
		for _, w := range want {
			if !strings.Contains(string(pages[name]), w) {
				t.Errorf("%s does not say %q:\n%s", name, w, pages[name])
			}
		}
	}
	if strings.Contains(string(pages["tool_greet.md"]), "--who") {
		t.Error("tool_greet.md lists the deprecated --who")
	}
	for name, page := range pages {
		for _, m := range linkRE.FindAllSubmatch(page, -1) {
			if _, ok := pages[string(m[1])]; !ok && string(m[1]) != cli.IndexFile {
				t.Errorf("%s links to %s, which is not a page of the reference", name, m[1])
			}
		}
	}
}

var linkRE = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestIndexPage lists the tools of a directory by their index pages'
// titles and refuses an index page without one.
func TestIndexPage(t *testing.T) {
	dir := t.TempDir()
	for name, page := range testtool.Reference().Pages() {
		if err := os.WriteFile(filepath.Join(dir, name), page, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := cli.IndexPage(dir)
	if err != nil || !bytes.Contains(got, []byte("\n- [tool](tool.md): a test tool\n")) || bytes.Contains(got, []byte("tool_greet")) {
		t.Fatalf("index (err %v):\n%s", err, got)
	}
	if err := os.WriteFile(filepath.Join(dir, "bad.md"), []byte("# bad tool\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := cli.IndexPage(dir); err == nil || !strings.Contains(err.Error(), `bad.md: no title "# bad: SUMMARY"`) {
		t.Fatalf("an index page without a title: err %v", err)
	}
}

// TestReferenceLinks checks that every link of every page in docs/cli
// names a page there (the docs link check skips docs/cli).
func TestReferenceLinks(t *testing.T) {
	const dir = "../../docs/cli"
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		page, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range linkRE.FindAllSubmatch(page, -1) {
			if _, err := os.Stat(filepath.Join(dir, string(m[1]))); err != nil {
				t.Errorf("docs/cli/%s links to %s, which is not a page of docs/cli", e.Name(), m[1])
			}
		}
	}
}
