package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/internal/cli"
	"github.com/fabvote/fabvote/internal/cli/clitest"
)

// TestExitStatus runs the command line in-process: help and success exit
// 0, a failure 1, bad usage 2, each with a message naming what is wrong.
func TestExitStatus(t *testing.T) {
	dir := t.TempDir()
	base, override, out := filepath.Join(dir, "base.yaml"), filepath.Join(dir, "over.yaml"), filepath.Join(dir, "out.yaml")
	if err := os.WriteFile(base, []byte("a:\n  b: 1\n  c: 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(override, []byte("a:\n  b: 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	files := []string{"--base", base, "--override", override}
	clitest.CheckExit(t, newRootCommand, []clitest.Case{
		{Name: "help", Args: []string{"--help"}, Code: 0, Want: "usage: cfgmerge --base upstream.yaml"},
		{Name: "merge", Args: append(files, "--out", out), Code: 0, Want: ""},
		{Name: "single-dash flags", Args: []string{"-base", base, "-override", override, "-out", out}, Code: 0, Want: ""},
		{Name: "missing base", Args: []string{"--base", filepath.Join(dir, "none.yaml"), "--override", override, "--out", out}, Code: 1, Want: "cfgmerge: "},
		{Name: "no --out", Args: files, Code: 2, Want: "--out is required (see `cfgmerge --help`)"},
		{Name: "no --base", Args: []string{"--override", override, "--out", out}, Code: 2, Want: "--base is required"},
		{Name: "unknown flag", Args: []string{"--nope"}, Code: 2, Want: "unknown flag: --nope"},
		{Name: "stray argument", Args: append(files, "--out", out, "x"), Code: 2, Want: `unexpected argument "x"`},
	})
	if got, err := os.ReadFile(out); err != nil || !strings.Contains(string(got), "b: 3") || !strings.Contains(string(got), "c: 2") {
		t.Fatalf("merged file %q (%v)", got, err)
	}
}

// TestCLIReference fails, naming the file, where cfgmerge's pages in
// docs/cli differ from the command tree; with -update it writes them.
func TestCLIReference(t *testing.T) {
	ref := cli.Reference{
		Root:   newRootCommand(io.Discard),
		Source: "network/cmd/cfgmerge",
		About: "The network scripts run it once per node to write its core.yaml or orderer.yaml " +
			"from upstream's sampleconfig and network/config's overrides (network/README.md).",
	}
	clitest.CheckReference(t, ref, "../../../docs/cli")
}
