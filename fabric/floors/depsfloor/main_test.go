package main

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/fabvote/fabvote/internal/cli"
	"github.com/fabvote/fabvote/internal/cli/clitest"
)

// The exit status of help (0), a file that is no Go binary (1) and bad
// usage (2), each error naming what is wrong. make deps-floor-check runs
// it on the built binaries.
func TestExitStatus(t *testing.T) {
	t.Setenv("GO", filepath.Join(runtime.GOROOT(), "bin", "go"))
	text := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(text, []byte("not a binary\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	clitest.CheckExit(t, newRootCommand, []clitest.Case{
		{Name: "help", Args: []string{"--help"}, Code: 0, Want: "usage: depsfloor BINARY..."},
		{Name: "no binary", Args: nil, Code: 2, Want: "want one or more binaries"},
		{Name: "unknown flag", Args: []string{"--all", text}, Code: 2, Want: "unknown flag: --all"},
		{Name: "not a Go binary", Args: []string{text}, Code: 1, Want: "notes.txt]: exit status 1 (a file that is no Go binary?)"},
		{Name: "missing file", Args: []string{filepath.Join(t.TempDir(), "none")}, Code: 1, Want: "none: no such file or directory"},
	})
}

// TestCLIReference fails, naming the file, where depsfloor's pages in
// docs/cli differ from the command tree; with -update it writes them.
func TestCLIReference(t *testing.T) {
	ref := cli.Reference{
		Root:   newRootCommand(io.Discard),
		Source: "fabric/floors/depsfloor",
		About: "make deps-floor-check runs it on the built peer, orderer and fabvote, so that no change " +
			"silently rolls back a security fix of a module or of the Go toolchain.",
		Failures: "a module or the toolchain below its floor, or a file that is no Go binary",
	}
	clitest.CheckReference(t, ref, "../../../docs/cli")
}
