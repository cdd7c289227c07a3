// Package clitest is the test side of package cli, for the tests of every
// tool in its convention: the exit status and message of command lines
// run in-process (CheckExit), the Markdown reference in docs/cli kept
// fresh (CheckReference, CheckIndex: with -update, see package gentest,
// they write it) and the output a command writes to os.Stdout or
// os.Stderr (Capture). Only _test.go files import it, so that no tool
// links package testing.
package clitest

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/fabvote/fabvote/internal/cli"
)

// Case is a command line of an exit-status test: run with Args, the tool
// must exit with Code and say Want (a part of it) on stderr.
type Case struct {
	Name string // the subtest's name; "" for Args joined by spaces
	Args []string
	Code int
	Want string // "" for anything
}

func (c Case) name() string {
	if c.Name == "" {
		return strings.Join(c.Args, " ")
	}
	return c.Name
}

// CheckExit runs each case in-process, as a subtest, on the tree newRoot
// builds afresh (with stderr as its stderr) and fails the case whose exit
// status or stderr is not the one it wants, naming both.
func CheckExit(t *testing.T, newRoot func(stderr io.Writer) *cobra.Command, cases []Case) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name(), func(t *testing.T) { checkCase(t, newRoot, c) })
	}
}

// checkCase is the test of one case of CheckExit.
func checkCase(t testing.TB, newRoot func(stderr io.Writer) *cobra.Command, c Case) {
	t.Helper()
	var stderr bytes.Buffer
	code := cli.Execute(newRoot(&stderr), c.Args, &stderr)
	if code != c.Code || !strings.Contains(stderr.String(), c.Want) {
		t.Fatalf("exit %d, want %d; stderr %q does not say %q", code, c.Code, stderr.String(), c.Want)
	}
}

// Capture runs fn with *f, os.Stdout or os.Stderr, sent to a file and
// returns what was written there: commands write their output to
// os.Stdout and their progress to os.Stderr, not to the writer of Execute.
func Capture(t testing.TB, f **os.File, fn func()) string {
	t.Helper()
	tmp, err := os.Create(filepath.Join(t.TempDir(), "captured"))
	if err != nil {
		t.Fatal(err)
	}
	defer tmp.Close()
	old := *f
	*f = tmp
	defer func() { *f = old }()
	fn()
	b, err := os.ReadFile(tmp.Name())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
