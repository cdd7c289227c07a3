package cli

import (
	"io"

	"github.com/spf13/cobra"
)

// Configure gives root and every command below it, present or added
// later, the convention: help and usage in the format of WriteHelp on
// stderr, flag errors as usage errors, no error or usage printed by cobra
// (Execute reports errors), and a `completion bash|zsh|fish` command in
// place of cobra's. Call it once the tree is built, so that the
// completion command comes last in the help.
//
// cobra prints its notices, such as a deprecated flag's, to the command's
// out writer: Configure sets it to stderr too. Commands write their output
// to os.Stdout, not to cobra's writer.
func Configure(root *cobra.Command, stderr io.Writer) {
	root.SilenceErrors = true
	root.SilenceUsage = true
	root.SetErr(stderr)
	root.SetOut(stderr)
	root.SetHelpFunc(func(c *cobra.Command, _ []string) { WriteHelp(c.ErrOrStderr(), c) })
	root.SetUsageFunc(func(c *cobra.Command) error { WriteHelp(c.ErrOrStderr(), c); return nil })
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err.Error()} })
	root.CompletionOptions.DisableDefaultCmd = true // replaced by completionCommand
	root.AddCommand(completionCommand(root.Name()))
}

// ShowUsage is the RunE of a command that does nothing by itself, such as
// a root or parent command given no subcommand: it prints the usage and
// exits 2.
func ShowUsage(c *cobra.Command, _ []string) error {
	WriteHelp(c.ErrOrStderr(), c)
	return errUsageShown
}

// UnknownCommand is the Args of a root or parent command: it refuses the
// words after it that name none of its subcommands. (cobra leaves an
// unknown subcommand to the parent's Args when the parent has them.)
func UnknownCommand(_ *cobra.Command, args []string) error {
	if len(args) > 0 {
		return Usagef("unknown command %q", args[0])
	}
	return nil
}

// NoArgs is the Args of a command whose every input is a flag: it refuses
// positional arguments.
func NoArgs(_ *cobra.Command, args []string) error {
	if len(args) > 0 {
		return Usagef("unexpected argument %q", args[0])
	}
	return nil
}

// ExactArgs is the Args of a command that takes n positional arguments,
// named in the message of a wrong count.
func ExactArgs(n int, names string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) != n {
			return Usagef("want %s", names)
		}
		return nil
	}
}
