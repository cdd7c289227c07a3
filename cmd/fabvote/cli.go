package main

import (
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fabvote/fabvote/internal/cli"
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

// newRootCommand builds the command tree of the table commands, in the
// convention of internal/cli. Every command has Args: cobra then leaves
// unknown commands and stray arguments to cli.UnknownCommand and
// cli.NoArgs, which make them usage errors (exit 2).
func newRootCommand(stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "fabvote COMMAND [flags]",
		Short: "the command-line tool of a fabvote election",
		Long:  "(fabvote COMMAND --help for the flags)",
		Args:  cli.UnknownCommand,
		RunE:  cli.ShowUsage,
	}
	for _, c := range commands {
		addCommand(root, c)
	}
	cli.Configure(root, stderr)
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
		Args:  cli.NoArgs,
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
		Args:  cli.UnknownCommand,
		RunE:  cli.ShowUsage,
	}
	root.AddCommand(p)
	return p
}
