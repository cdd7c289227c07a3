// Package testtool is a small tool in the convention of package cli, the
// fixture of the tests of cli and clitest: `tool greet --name N [--loud]
// [--count N]` (--who is its deprecated alias of --name), `tool fail`,
// `tool report`, and a parent command `tool group sub`.
package testtool

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/fabvote/fabvote/internal/cli"
)

// NewRootCommand builds the tool's tree, reporting on stderr; greet says
// hello there too.
func NewRootCommand(stderr io.Writer) *cobra.Command {
	root := &cobra.Command{Use: "tool COMMAND [flags]", Short: "a test tool", Args: cli.UnknownCommand, RunE: cli.ShowUsage}
	fail := &cobra.Command{Use: "fail", Short: "fail", Args: cli.NoArgs,
		RunE: func(*cobra.Command, []string) error { return errors.New("it broke") }}
	report := &cobra.Command{Use: "report", Short: "fail, reported", Args: cli.NoArgs,
		RunE: func(*cobra.Command, []string) error { return cli.ErrReported }}
	group := &cobra.Command{Use: "group SUBCOMMAND", Short: "a parent", Args: cli.UnknownCommand, RunE: cli.ShowUsage}
	group.AddCommand(&cobra.Command{Use: "sub", Short: "a child", Args: cli.NoArgs, RunE: func(*cobra.Command, []string) error { return nil }})
	root.AddCommand(greetCommand(stderr), fail, report, group)
	cli.Configure(root, stderr)
	return root
}

// greetCommand is `tool greet`, which says hello to --name on stderr.
func greetCommand(stderr io.Writer) *cobra.Command {
	var name string
	greet := &cobra.Command{Use: "greet --name N", Short: "greet someone", Args: cli.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if name == "" {
				return cli.Usagef("--name is required")
			}
			fmt.Fprintf(stderr, "hello %s\n", name)
			return nil
		}}
	greet.Flags().StringVar(&name, "name", "", "whom to greet")
	greet.Flags().Bool("loud", false, "shout")
	greet.Flags().Int("count", 1, "how many times")
	cli.Alias(greet.Flags(), "name", "who")
	return greet
}

// Reference is the tool's reference.
func Reference() cli.Reference {
	return cli.Reference{Root: NewRootCommand(io.Discard), Source: "internal/cli", About: "A tool for tests.", Failures: "a broken thing"}
}
