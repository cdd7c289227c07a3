package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
)

// The commands are listed in the order of an election, not alphabetically.
func init() { cobra.EnableCommandSorting = false }

// parentSummaries describe the first words of the two-word commands.
var parentSummaries = map[string]string{
	"election": "create an election and open it on the ledger",
	"ea":       "the election authority's voter roll, TLS certificate and registration service",
	"receipt":  "check a voter's receipt against the ledger",
	"trustee":  "a trustee's key pair and partial decryption",
	"record":   "export an election record and build its bulletin board",
}

// newRootCommand builds the command tree of the table commands. Usage and
// help go to stderr, where they went before cobra, and run reports the
// errors itself in its own format, so cobra prints neither. Every command
// has Args: cobra then leaves unknown commands and stray arguments to
// unknownCommand and noArgs, which make them usage errors (exit 2).
func newRootCommand(stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "fabvote COMMAND [flags]",
		Short:         "the command-line tool of a fabvote election",
		Long:          "(fabvote COMMAND --help for the flags)",
		Args:          unknownCommand,
		RunE:          showUsage,
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.CompletionOptions.DisableDefaultCmd = true // replaced by newCompletionCommand's
	root.SetErr(stderr)
	root.SetHelpFunc(func(c *cobra.Command, _ []string) { writeHelp(c.ErrOrStderr(), c) })
	root.SetUsageFunc(func(c *cobra.Command) error { writeHelp(c.ErrOrStderr(), c); return nil })
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err.Error()} })
	for _, c := range commands {
		addCommand(root, c)
	}
	root.AddCommand(newCompletionCommand())
	return root
}

// addCommand adds c under root, making its parent command first if c has
// two words.
func addCommand(root *cobra.Command, c command) {
	parent := root
	words := strings.Fields(c.name)
	if len(words) == 2 {
		parent = parentCommand(root, words[0])
	}
	leaf := &cobra.Command{
		Use:   words[len(words)-1] + " " + c.synopsis,
		Short: c.summary,
		Args:  noArgs,
	}
	runFn := c.setup(leaf.Flags())
	leaf.RunE = func(*cobra.Command, []string) error { return runFn() }
	parent.AddCommand(leaf)
}

// parentCommand returns root's subcommand name, made if it is not yet.
func parentCommand(root *cobra.Command, name string) *cobra.Command {
	for _, c := range root.Commands() {
		if c.Name() == name {
			return c
		}
	}
	p := &cobra.Command{
		Use:   name + " SUBCOMMAND [flags]",
		Short: parentSummaries[name],
		Args:  unknownCommand,
		RunE:  showUsage,
	}
	root.AddCommand(p)
	return p
}

// showUsage answers a command line that names no command, or a parent
// command without its subcommand, with the usage: exit status 2.
func showUsage(c *cobra.Command, _ []string) error {
	writeHelp(c.ErrOrStderr(), c)
	return usageShownError{}
}

// unknownCommand refuses the words after a root or parent command that
// name none of its subcommands.
func unknownCommand(_ *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("unknown command %q", args[0])
	}
	return nil
}

// noArgs refuses positional arguments: every input of a command is a flag.
func noArgs(_ *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("unexpected argument %q", args[0])
	}
	return nil
}

// synopsis is the usage line of c after its name.
func synopsis(c *cobra.Command) string {
	_, rest, _ := strings.Cut(c.Use, " ")
	return rest
}

// writeHelp prints c's usage line and summary, then its commands (every
// runnable command below it, by path) or its flags.
func writeHelp(w io.Writer, c *cobra.Command) {
	fmt.Fprintf(w, "usage: %s %s\n\n%s\n", c.CommandPath(), synopsis(c), c.Short)
	if c.Long != "" {
		fmt.Fprintf(w, "%s\n", c.Long)
	}
	if subs := leafCommands(c); len(subs) > 0 {
		fmt.Fprintln(w, "\ncommands:")
		writeCommandList(w, c, subs)
		return
	}
	fmt.Fprintf(w, "\nflags:\n%s", c.LocalFlags().FlagUsages())
}

// writeCommandList prints one line per command of subs: its path below c
// and its summary, aligned.
func writeCommandList(w io.Writer, c *cobra.Command, subs []*cobra.Command) {
	width := 0
	for _, s := range subs {
		width = max(width, len(relativePath(c, s)))
	}
	for _, s := range subs {
		fmt.Fprintf(w, "  %-*s  %s\n", width, relativePath(c, s), s.Short)
	}
}

// leafCommands lists the available commands below c that have no
// subcommands, in tree order.
func leafCommands(c *cobra.Command) []*cobra.Command {
	var out []*cobra.Command
	for _, s := range c.Commands() {
		if !s.IsAvailableCommand() {
			continue
		}
		if s.HasAvailableSubCommands() {
			out = append(out, leafCommands(s)...)
		} else {
			out = append(out, s)
		}
	}
	return out
}

// relativePath is s's command path without c's.
func relativePath(c, s *cobra.Command) string {
	return strings.TrimPrefix(s.CommandPath(), c.CommandPath()+" ")
}

// doubleDashLongFlags rewrites the single-dash long flags of args, -name
// and -name=value, to --name and --name=value when name is a long flag of
// the command args run. Go's flag package, which the CLI used before
// cobra, accepts both forms, and scripts use the single dash; pflag would
// read -name as the one-letter flags n, a, m and e. One letter after one
// dash stays a shorthand (-h), and a flag's value is never rewritten.
func doubleDashLongFlags(root *cobra.Command, args []string) []string {
	cmd, rest := commandOf(root, args)
	cmd.InitDefaultHelpFlag() // cobra adds --help at execution; -help is one too
	out := slices.Clone(args[:len(args)-len(rest)])
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if a == "--" {
			return append(out, rest[i:]...)
		}
		name, hasValue := flagName(a)
		f := cmd.Flags().Lookup(name)
		if f == nil {
			out = append(out, a)
			continue
		}
		if !strings.HasPrefix(a, "--") && len(name) > 1 {
			a = "-" + a
		}
		out = append(out, a)
		if !hasValue && f.NoOptDefVal == "" && i+1 < len(rest) {
			i++ // the value of --name VALUE, whatever it looks like
			out = append(out, rest[i])
		}
	}
	return out
}

// commandOf finds the command args name by their leading words and
// returns it with the arguments after them.
func commandOf(root *cobra.Command, args []string) (*cobra.Command, []string) {
	cmd := root
	for len(args) > 0 {
		next := subcommand(cmd, args[0])
		if next == nil {
			break
		}
		cmd, args = next, args[1:]
	}
	return cmd, args
}

func subcommand(c *cobra.Command, name string) *cobra.Command {
	for _, s := range c.Commands() {
		if s.Name() == name || s.HasAlias(name) {
			return s
		}
	}
	return nil
}

// flagName is the long flag name of a -name, --name, -name=v or --name=v
// argument ("" for other arguments) and whether the argument holds the
// value.
func flagName(arg string) (name string, hasValue bool) {
	if !strings.HasPrefix(arg, "-") || arg == "-" {
		return "", false
	}
	name = strings.TrimPrefix(strings.TrimPrefix(arg, "-"), "-")
	name, _, hasValue = strings.Cut(name, "=")
	return name, hasValue
}

// shells are the shells `fabvote completion` writes a script for.
var shells = []string{"bash", "zsh", "fish"}

func newCompletionCommand() *cobra.Command {
	return &cobra.Command{
		Use:       "completion bash|zsh|fish",
		Short:     "print the shell completion script, e.g. source <(fabvote completion bash)",
		ValidArgs: shells,
		Args:      oneShell,
		RunE:      writeCompletion,
	}
}

func oneShell(_ *cobra.Command, args []string) error {
	if len(args) != 1 || !slices.Contains(shells, args[0]) {
		return usagef("want one shell: %s", strings.Join(shells, ", "))
	}
	return nil
}

// writeCompletion prints cobra's completion script for the shell args[0]
// on standard output.
func writeCompletion(c *cobra.Command, args []string) error {
	root, w := c.Root(), c.OutOrStdout()
	switch args[0] {
	case "bash":
		return root.GenBashCompletionV2(w, true)
	case "zsh":
		return root.GenZshCompletion(w)
	default:
		return root.GenFishCompletion(w, true)
	}
}
