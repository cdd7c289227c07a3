package cli

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// updateIndex makes TestReferenceIndex write docs/cli/README.md instead of
// checking it: `make docs`, after the tools' pages.
var updateIndex = flag.Bool("update", false, "rewrite docs/cli/README.md from the tools' index pages")

// TestReferenceIndex fails when docs/cli/README.md does not list exactly
// the tools whose index pages docs/cli holds.
func TestReferenceIndex(t *testing.T) {
	CheckIndex(t, "../../docs/cli", *updateIndex)
}

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper()             {}
func (r *recorder) Logf(string, ...any) {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func testReference() Reference {
	return Reference{Root: testTree(new(bytes.Buffer)), Source: "internal/cli", About: "A tool for tests.", Failures: "a broken thing"}
}

// TestCheckReference: the pages written with update pass the check; a
// changed page, a missing page and a page of no command each fail it,
// naming the file; another tool's pages are neither checked nor removed.
func TestCheckReference(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, "toolbox.md")
	if err := os.WriteFile(other, []byte("# toolbox: another tool\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	CheckReference(t, testReference(), dir, true)
	tests := []struct {
		name   string
		change func() error
		want   string // "" for no failure
	}{
		{"fresh", func() error { return nil }, ""},
		{"changed page", func() error { return os.WriteFile(filepath.Join(dir, "tool_greet.md"), []byte("old"), 0o644) }, "tool_greet.md is stale or missing"},
		{"missing page", func() error { return os.Remove(filepath.Join(dir, "tool_group_sub.md")) }, "tool_group_sub.md is stale or missing"},
		{"page of no command", func() error { return os.WriteFile(filepath.Join(dir, "tool_gone.md"), nil, 0o644) }, "tool_gone.md documents no command"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			CheckReference(t, testReference(), dir, true)
			if err := tc.change(); err != nil {
				t.Fatal(err)
			}
			r := &recorder{TB: t}
			CheckReference(r, testReference(), dir, false)
			got := strings.Join(r.errs, "\n")
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Fatalf("failures %q, want %q", got, tc.want)
			}
		})
	}
	if _, err := os.Stat(other); err != nil {
		t.Fatalf("another tool's page: %v", err)
	}
}

// TestReferencePages checks the index page and a command page of the test
// tool, and that every link names a page of the reference or the list of
// tools.
func TestReferencePages(t *testing.T) {
	pages := testReference().Pages()
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
			if _, ok := pages[string(m[1])]; !ok && string(m[1]) != IndexFile {
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
	CheckReference(t, testReference(), dir, true)
	got, err := IndexPage(dir)
	if err != nil || !bytes.Contains(got, []byte("\n- [tool](tool.md): a test tool\n")) || bytes.Contains(got, []byte("tool_greet")) {
		t.Fatalf("index (err %v):\n%s", err, got)
	}
	if err := os.WriteFile(filepath.Join(dir, "bad.md"), []byte("# bad tool\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := IndexPage(dir); err == nil || !strings.Contains(err.Error(), `bad.md: no title "# bad: SUMMARY"`) {
		t.Fatalf("an index page without a title: err %v", err)
	}
}
