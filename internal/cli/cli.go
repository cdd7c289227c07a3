// Package cli is the command-line convention of every fabvote tool, on
// cobra: one help format, usage errors, exit status, shell completion,
// deprecated flag aliases and a Markdown reference generated from the
// command tree.
//
// A tool builds its cobra tree (a tool of several commands from a table:
// NewRoot and AddLeaf), calls Configure on the root and runs it with
// Execute (through Main, in its main function), which returns the
// exit status: 0 success, 1 failure, 2 bad usage (an unknown command or
// flag, a stray argument, a badly typed value, or an error made by
// Usagef). Usage and help go to stderr; a command writes its own output to
// standard output. A tool's tests check its exit statuses and its
// reference with package clitest.
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
)

// Exit statuses of Execute.
const (
	ExitOK      = 0
	ExitFailure = 1
	ExitUsage   = 2
)

// usageError is a command-line mistake: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// Usagef makes a usage error: Execute prints it with a pointer to the
// command's --help and exits 2.
func Usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// IsUsage reports whether err is, or wraps, a usage error.
func IsUsage(err error) bool {
	var ue *usageError
	return errors.As(err, &ue) || errors.Is(err, errUsageShown)
}

// errUsageShown is a command-line mistake already answered with the
// command's usage (a command or parent command given no subcommand): exit
// status 2 with nothing more to say.
var errUsageShown = errors.New("usage shown")

// ErrReported is returned by a command that has printed its own failure
// report: exit status 1, and Execute prints nothing more.
var ErrReported = errors.New("failed")

// Execute runs root on the command line args (without the program name)
// and returns the exit status, having reported any error on stderr as
// "COMMAND PATH: error". Single-dash long flags (-out x) are read as
// double-dash ones (see doubleDashLongFlags).
func Execute(root *cobra.Command, args []string, stderr io.Writer) int {
	if args == nil {
		args = []string{} // cobra reads os.Args when given nil
	}
	root.SetArgs(doubleDashLongFlags(root, args))
	cmd, err := root.ExecuteC()
	if cmd == nil {
		cmd = root
	}
	return exitStatus(cmd.CommandPath(), err, stderr)
}

// Main is the main function of a tool whose root command newRoot builds:
// it runs the process's command line and exits with Execute's status.
func Main(newRoot func(stderr io.Writer) *cobra.Command) {
	os.Exit(Execute(newRoot(os.Stderr), os.Args[1:], os.Stderr))
}

// exitStatus reports err of the command named name on stderr and returns
// the exit status it means.
func exitStatus(name string, err error, stderr io.Writer) int {
	var ue *usageError
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, ErrReported):
		return ExitFailure
	case errors.Is(err, errUsageShown):
		return ExitUsage
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "%s: %v (see `%s --help`)\n", name, err, name)
		return ExitUsage
	}
	fmt.Fprintf(stderr, "%s: %v\n", name, err)
	return ExitFailure
}
