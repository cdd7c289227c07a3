package main

import (
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fabvote/fabvote/internal/cli"
)

// The commands are listed in the order of an election, not alphabetically.
func init() { cobra.EnableCommandSorting = false }

// parentSummaries describe the first words of the two-word commands.
var parentSummaries = map[string]string{
	"election": "create an election and open it on the ledger",
	"ea":       "the election authority's voter roll, TLS certificate and registration service",
	"box":      "the ballot box: voters' ballots to the ledger over HTTPS",
	"receipt":  "check a voter's receipt against the ledger",
	"ceremony": "the dealer-free key ceremony: its configuration and its relay",
	"trustee":  "a trustee's keys, key ceremony and partial decryption",
	"record":   "export an election record and build its bulletin board",
	"booth":    "the voter's booth in the browser",
}

// newRootCommand builds the command tree of the table commands, in the
// convention of internal/cli. Every command has Args: cobra then leaves
// unknown commands and stray arguments to cli.UnknownCommand and
// cli.NoArgs, which make them usage errors (exit 2).
func newRootCommand(stderr io.Writer) *cobra.Command {
	root := cli.NewRoot("fabvote", "the command-line tool of a fabvote election")
	for _, c := range commands {
		addCommand(root, c)
	}
	cli.Configure(root, stderr)
	return root
}

// addCommand adds c under root (cli.AddLeaf): the table's commands take
// no positional argument.
func addCommand(root *cobra.Command, c command) {
	cli.AddLeaf(root, cli.Leaf{Name: c.name, Synopsis: c.synopsis, Summary: c.summary,
		Setup: func(fs *pflag.FlagSet) func([]string) error {
			run := c.setup(fs)
			return func([]string) error { return run() }
		}}, parentSummaries)
}
