package clitest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/internal/cli"
	"github.com/fabvote/fabvote/internal/cli/internal/testtool"
	"github.com/fabvote/fabvote/internal/gentest"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...) }

// failures is what check reported, one failure a line.
func failures(t *testing.T, check func(testing.TB)) string {
	r := &recorder{TB: t}
	check(r)
	return strings.Join(r.errs, "\n")
}

// setUpdate sets the -update flag for the rest of t.
func setUpdate(t *testing.T, v bool) {
	old := *gentest.Update
	*gentest.Update = v
	t.Cleanup(func() { *gentest.Update = old })
}

// TestCheckCase: a case passes when the exit status and stderr are the
// ones it wants, and fails naming both when either differs.
func TestCheckCase(t *testing.T) {
	tests := []struct {
		c    Case
		want string // "" for no failure
	}{
		{Case{Args: []string{"greet", "--name", "x"}, Code: 0, Want: "hello x"}, ""},
		{Case{Args: []string{"fail"}, Code: 1, Want: ""}, ""},
		{Case{Args: []string{"fail"}, Code: 2, Want: "it broke"}, `exit 1, want 2; stderr "tool fail: it broke\n" does not say "it broke"`},
		{Case{Args: []string{"fail"}, Code: 1, Want: "it works"}, `exit 1, want 1; stderr "tool fail: it broke\n" does not say "it works"`},
	}
	for _, tc := range tests {
		t.Run(tc.c.name(), func(t *testing.T) {
			got := failures(t, func(r testing.TB) { checkCase(r, testtool.NewRootCommand, tc.c) })
			if got != tc.want {
				t.Fatalf("failures %q, want %q", got, tc.want)
			}
		})
	}
}

// TestCheckReference: the pages written with -update pass the check; a
// changed page, a missing page and a page of no command each fail it,
// naming the file; another tool's pages are neither checked nor removed.
func TestCheckReference(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, "toolbox.md")
	if err := os.WriteFile(other, []byte("# toolbox: another tool\n"), 0o644); err != nil {
		t.Fatal(err)
	}
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
			setUpdate(t, true)
			CheckReference(t, testtool.Reference(), dir)
			if err := tc.change(); err != nil {
				t.Fatal(err)
			}
			setUpdate(t, false)
			got := failures(t, func(r testing.TB) { CheckReference(r, testtool.Reference(), dir) })
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Fatalf("failures %q, want %q", got, tc.want)
			}
		})
	}
	if _, err := os.Stat(other); err != nil {
		t.Fatalf("another tool's page: %v", err)
	}
}

// TestCheckIndex: the README.md written with -update passes the check and
// fails it once another tool's index page is added.
func TestCheckIndex(t *testing.T) {
	dir := t.TempDir()
	setUpdate(t, true)
	CheckReference(t, testtool.Reference(), dir)
	CheckIndex(t, dir)
	setUpdate(t, false)
	if got := failures(t, func(r testing.TB) { CheckIndex(r, dir) }); got != "" {
		t.Fatalf("a fresh index: failures %q", got)
	}
	if err := os.WriteFile(filepath.Join(dir, "toolbox.md"), []byte("# toolbox: another tool\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, cli.IndexFile) + " is stale or missing"
	if got := failures(t, func(r testing.TB) { CheckIndex(r, dir) }); !strings.Contains(got, want) {
		t.Fatalf("a stale index: failures %q, want %q", got, want)
	}
}
