package cli_test

import (
	"io"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fabvote/fabvote/internal/cli"
	"github.com/fabvote/fabvote/internal/cli/clitest"
)

// tableTool is a tool built from a command table: a one-word command, a
// parent with two leaves, one of them taking an argument.
func tableTool(stderr io.Writer) *cobra.Command {
	root := cli.NewRoot("tbl", "a table of commands")
	say := func(fs *pflag.FlagSet) func([]string) error {
		fs.Int("n", 1, "how many times")
		return func([]string) error { return nil }
	}
	for _, l := range []cli.Leaf{
		{Name: "hello", Synopsis: "[--n N]", Summary: "say hello", Setup: say},
		{Name: "grp one", Synopsis: "", Summary: "the first", Setup: say},
		{Name: "grp two", Synopsis: "NAME", Summary: "the second", Args: cli.ExactArgs(1, "NAME"), Setup: say},
	} {
		cli.AddLeaf(root, l, map[string]string{"grp": "a group"})
	}
	cli.Configure(root, stderr)
	return root
}

// TestAddLeaf checks the tree a command table makes: its leaves run with
// their own flags, a parent groups its leaves, and a leaf without Args
// refuses positional arguments.
func TestAddLeaf(t *testing.T) {
	clitest.CheckExit(t, tableTool, []clitest.Case{
		{Args: []string{"hello", "--n", "2"}, Code: 0},
		{Args: []string{"grp", "two", "x"}, Code: 0},
		{Args: []string{"--help"}, Code: 0, Want: "grp one"},
		{Args: nil, Code: 2, Want: "usage: tbl COMMAND"},
		{Args: []string{"nope"}, Code: 2, Want: `tbl: unknown command "nope"`},
		{Args: []string{"grp", "--help"}, Code: 0, Want: "  two  the second"},
		{Args: []string{"grp"}, Code: 2, Want: "usage: tbl grp SUBCOMMAND"},
		{Args: []string{"grp", "three"}, Code: 2, Want: `unknown command "three"`},
		{Args: []string{"hello", "stray"}, Code: 2, Want: `unexpected argument "stray"`},
		{Args: []string{"grp", "two"}, Code: 2, Want: "NAME"},
		{Args: []string{"grp", "one", "--n", "x"}, Code: 2, Want: `invalid argument "x" for "--n"`},
	})
}
