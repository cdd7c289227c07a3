// Command fabnet sets up fabvote's Fabric network one organisation at a
// time, as organisations on separate hosts do (the model: package
// network/fabnet; the runner: network/fabrun; the procedure:
// docs/MULTIHOST.md). Every step of an organisation runs on its host and
// touches only that organisation's home. It also runs the networks that
// keep every organisation on one host: network/net.sh's native processes
// and the Docker network.
//
// Run `fabnet --help` for the commands and `fabnet COMMAND --help` for a
// command's flags; docs/cli/fabnet.md holds the same reference in
// Markdown, and `fabnet completion bash|zsh|fish` prints a shell
// completion script. Exit status: 0 success, 1 failure, 2 bad usage, 130
// a step ended by SIGINT or SIGTERM.
package main

import (
	"errors"
	"io"
	"os"
	"slices"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fabvote/fabvote/internal/cli"
)

// exitInterrupted is the exit status of a step ended by a signal.
const exitInterrupted = 130

// command is one command of fabnet. setup defines its flags on fs and
// returns the function that runs it on its positional arguments once the
// flags are parsed.
type command struct {
	name     string // one or two words: two make a subcommand of a parent command
	synopsis string // the usage line after the name
	summary  string
	// args checks the positional arguments; nil takes none.
	args  cobra.PositionalArgs
	setup func(fs *pflag.FlagSet) func(args []string) error
}

// commands are fabnet's commands: an organisation's steps in the order of
// the procedure, then the single-host networks' commands and the tools
// that serve every network.
var commands = slices.Concat(orgCommands, localCommands, nodeCommands, portsCommands, opsCommands)

// parentSummaries describe the first words of the two-word commands.
var parentSummaries = map[string]string{
	"local-channel": "the channel and the chaincode definitions on nodes another tool runs (the Docker network)",
	"node":          "the nodes of a home, defined once and run by name (network/net.sh's processes)",
	"ports":         "the port plan (network/portplan): every listener's port, and whether it is free",
}

// The commands are listed in the order of the procedure, not alphabetically.
func init() { cobra.EnableCommandSorting = false }

func main() {
	os.Exit(run(os.Args[1:], os.Stderr))
}

// run runs the command line args and returns the exit status; errors,
// usage and help go to stderr, the commands' output to os.Stdout.
func run(args []string, stderr io.Writer) int {
	return execute(newRootCommand(stderr), args, stderr)
}

// execute runs root on args with internal/cli's exit statuses, and 130
// when the command failed because a signal ended it.
func execute(root *cobra.Command, args []string, stderr io.Writer) int {
	stopped := false
	onError(root, func(err error) { stopped = stopped || errors.As(err, new(interrupted)) })
	code := cli.Execute(root, args, stderr)
	if stopped && code == cli.ExitFailure {
		return exitInterrupted
	}
	return code
}

// newRootCommand builds fabnet's command tree in the convention of
// internal/cli: every command has Args, so unknown commands and stray
// arguments are usage errors (exit 2).
func newRootCommand(stderr io.Writer) *cobra.Command {
	root := cli.NewRoot("fabnet", "sets up fabvote's Fabric network, one organisation at a time or every organisation on one host")
	for _, c := range commands {
		addCommand(root, c)
	}
	cli.Configure(root, stderr)
	return root
}

// addCommand adds c under root (cli.AddLeaf).
func addCommand(root *cobra.Command, c command) {
	cli.AddLeaf(root, cli.Leaf{Name: c.name, Synopsis: c.synopsis, Summary: c.summary, Args: c.args, Setup: c.setup}, parentSummaries)
}

// onError calls note with the error of every command of the tree that
// fails.
func onError(c *cobra.Command, note func(error)) {
	if c.RunE != nil {
		runE := c.RunE
		c.RunE = func(c *cobra.Command, args []string) error {
			err := runE(c, args)
			if err != nil {
				note(err)
			}
			return err
		}
	}
	for _, s := range c.Commands() {
		onError(s, note)
	}
}

// interrupted is a step ended by a signal: fabnet exits 130.
type interrupted struct{ error }
