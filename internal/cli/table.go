package cli

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// NewRoot is the root command of a tool of several commands: run alone,
// it prints its usage (exit 2), and it refuses words that name none of its
// commands. Add the commands (AddLeaf), then Configure it.
func NewRoot(name, summary string) *cobra.Command {
	return &cobra.Command{
		Use:   name + " COMMAND [flags]",
		Short: summary,
		Long:  "(" + name + " COMMAND --help for the flags)",
		Args:  UnknownCommand,
		RunE:  ShowUsage,
	}
}

// Leaf is one row of a tool's command table: a command that runs, under
// the root or, when Name has two words, under a parent command that only
// groups its subcommands.
type Leaf struct {
	Name     string // one or two words: two make a subcommand of a parent command
	Synopsis string // the usage line after the name
	Summary  string
	// Args checks the positional arguments; nil takes none (NoArgs).
	Args cobra.PositionalArgs
	// Setup defines the command's flags on fs and returns the function
	// that runs it on its positional arguments once the flags are parsed.
	Setup func(fs *pflag.FlagSet) func(args []string) error
}

// AddLeaf adds l under root, making its parent command first if l has two
// words; parents holds the parent commands' summaries by name. A parent
// refuses words that name none of its subcommands and, run alone, prints
// its usage (exit 2).
func AddLeaf(root *cobra.Command, l Leaf, parents map[string]string) {
	parent := root
	words := strings.Fields(l.Name)
	if len(words) == 2 {
		parent = parentCommand(root, words[0], parents[words[0]])
	}
	args := l.Args
	if args == nil {
		args = NoArgs
	}
	leaf := &cobra.Command{Use: words[len(words)-1] + " " + l.Synopsis, Short: l.Summary, Args: args}
	run := l.Setup(leaf.Flags())
	leaf.RunE = func(_ *cobra.Command, args []string) error { return run(args) }
	parent.AddCommand(leaf)
}

// parentCommand returns root's subcommand name, made with summary if it
// is not yet. An existing command that runs stays one: its leaves become
// its subcommands.
func parentCommand(root *cobra.Command, name, summary string) *cobra.Command {
	for _, c := range root.Commands() {
		if c.Name() == name {
			return c
		}
	}
	p := &cobra.Command{
		Use:   name + " SUBCOMMAND [flags]",
		Short: summary,
		Args:  UnknownCommand,
		RunE:  ShowUsage,
	}
	root.AddCommand(p)
	return p
}
