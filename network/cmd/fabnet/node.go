package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fabvote/fabvote/internal/cli"
	"github.com/fabvote/fabvote/network/fabnet"
	"github.com/fabvote/fabvote/network/fabrun"
)

// nodeCommands are `fabnet node SUBCOMMAND --home DIR ...`: the defined
// nodes of a home, by name (network/net.sh runs its whole network this
// way).
var nodeCommands = []command{
	{name: "node define", synopsis: "--home DIR --name N --ready HOST:PORT [--dir D] [--pass-env \"VAR ...\"] [--env K=V]... -- BINARY ARGS...",
		summary: "record a node: its binary, arguments, environment, directory and address", args: binaryArgs, setup: nodeDefineSetup},
	{name: "node start", synopsis: "--home DIR [--wait 90s] NAME", summary: "start the node and wait until it listens",
		args: cli.ExactArgs(1, "NAME"), setup: nodeSetup(func(fs *pflag.FlagSet, h *fabrun.Home) func(string) error {
			wait := fs.Duration("wait", 90*time.Second, "time allowed to start listening")
			return func(name string) error { return startNode(*h, name, *wait) }
		})},
	{name: "node stop", synopsis: "--home DIR [--timeout 10s] NAME", summary: "SIGTERM, SIGKILL after the timeout",
		args: cli.ExactArgs(1, "NAME"), setup: nodeSetup(func(fs *pflag.FlagSet, h *fabrun.Home) func(string) error {
			timeout := fs.Duration("timeout", 10*time.Second, "time allowed after SIGTERM before SIGKILL")
			return func(name string) error { return ifDefined(*h, name, func() error { return h.Stop(name, *timeout) }) }
		})},
	{name: "node kill", synopsis: "--home DIR NAME", summary: "SIGKILL (fault injection); its data stays",
		args: cli.ExactArgs(1, "NAME"), setup: nodeSetup(func(_ *pflag.FlagSet, h *fabrun.Home) func(string) error {
			return func(name string) error { return ifDefined(*h, name, func() error { return h.Kill(name) }) }
		})},
	{name: "node pid", synopsis: "--home DIR NAME", summary: "print the node's pid; exit status 1 when it is not running",
		args: cli.ExactArgs(1, "NAME"), setup: nodeSetup(func(_ *pflag.FlagSet, h *fabrun.Home) func(string) error {
			return func(name string) error { return printPid(*h, name) }
		})},
	{name: "node pids", synopsis: "--home DIR", summary: `print "NAME PID" of every running node`, setup: listSetup("pids")},
	{name: "node running", synopsis: "--home DIR", summary: "print the names of the running nodes", setup: listSetup("running")},
	{name: "node status", synopsis: "--home DIR", summary: "print every node, its pid, address and state", setup: listSetup("status")},
	{name: "node log", synopsis: "--home DIR [--lines 50] NAME", summary: "print the end of the node's log (on stderr)",
		args: cli.ExactArgs(1, "NAME"), setup: nodeSetup(func(fs *pflag.FlagSet, h *fabrun.Home) func(string) error {
			lines := fs.Int("lines", 50, "how many lines")
			return func(name string) error { return showLog(*h, name, *lines) }
		})},
	{name: "node stop-all", synopsis: "--home DIR [--timeout 10s]", summary: "stop every node, the last defined first",
		setup: func(fs *pflag.FlagSet) func([]string) error {
			home := homeFlag(fs)
			timeout := fs.Duration("timeout", 10*time.Second, "time allowed after SIGTERM before SIGKILL")
			return func([]string) error {
				h, err := home()
				if err != nil {
					return err
				}
				return h.StopAll(*timeout)
			}
		}},
}

// homeFlag defines --home, the directory of the nodes, and returns the
// home it names once the flags are parsed.
func homeFlag(fs *pflag.FlagSet) func() (fabrun.Home, error) {
	home := fs.String("home", "", "the directory of the nodes (required)")
	return func() (fabrun.Home, error) {
		if *home == "" {
			return fabrun.Home{}, cli.Usagef("--home is required")
		}
		return fabrun.Home{Dir: *home}, nil
	}
}

// nodeSetup is the setup of a subcommand of one named node: define
// defines its own flags and returns what it does to the node.
func nodeSetup(define func(fs *pflag.FlagSet, h *fabrun.Home) func(name string) error) func(fs *pflag.FlagSet) func([]string) error {
	return func(fs *pflag.FlagSet) func([]string) error {
		home := homeFlag(fs)
		var h fabrun.Home
		do := define(fs, &h)
		return func(args []string) (err error) {
			if h, err = home(); err != nil {
				return err
			}
			return do(args[0])
		}
	}
}

// listSetup is the setup of pids, running and status.
func listSetup(sub string) func(fs *pflag.FlagSet) func([]string) error {
	return func(fs *pflag.FlagSet) func([]string) error {
		home := homeFlag(fs)
		return func([]string) error {
			h, err := home()
			if err != nil {
				return err
			}
			return listNodes(h, sub)
		}
	}
}

// nodeDefineSetup is `fabnet node define`.
func nodeDefineSetup(fs *pflag.FlagSet) func([]string) error {
	home := homeFlag(fs)
	var d nodeDefinition
	fs.StringVar(&d.name, "name", "", "the node's name (required)")
	fs.StringVar(&d.ready, "ready", "", "the address the node listens on once it is ready (required)")
	fs.StringVar(&d.dir, "dir", "", "its working directory (default HOME/nodes/NAME)")
	fs.StringVar(&d.passEnv, "pass-env", "", "variables of this environment it inherits besides PATH, HOME, TMPDIR and FABVOTE_* (space-separated)")
	fs.StringArrayVar(&d.env, "env", nil, "KEY=VALUE for the node (repeatable; a later one wins)")
	return func(args []string) error {
		h, err := home()
		if err != nil {
			return err
		}
		return d.define(h, args)
	}
}

// nodeDefinition is the flags of `fabnet node define`.
type nodeDefinition struct {
	name, ready, dir, passEnv string
	env                       []string
}

func (d *nodeDefinition) define(h fabrun.Home, args []string) error {
	if d.name == "" || d.ready == "" {
		return cli.Usagef("define: --name, --ready and the binary are required")
	}
	bin, err := filepath.Abs(args[0])
	if err != nil {
		return err
	}
	dir := d.dir
	if dir == "" {
		dir = h.Node(d.name)
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return err
	}
	env, err := fabrun.PassEnv(strings.Fields(d.passEnv), d.env...)
	if err != nil {
		return cli.Usagef("define %s: %v", d.name, err)
	}
	return h.Define(fabnet.Proc{Name: d.name, Path: bin, Args: args[1:], Env: env, Dir: dir, Ready: d.ready})
}

// startNode starts the defined node and waits until it listens.
// Interrupted before the node is ready, Start stops it: an interrupted
// network-up leaves no node that no pid file names.
func startNode(h fabrun.Home, name string, wait time.Duration) error {
	p, err := h.Defined(name)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	return h.Start(ctx, p)
}

// ifDefined runs do when the home defines the node name.
func ifDefined(h fabrun.Home, name string, do func() error) error {
	if _, err := h.Defined(name); err != nil {
		return err
	}
	return do()
}

// binaryArgs are define's positional arguments: the binary and its
// arguments, after --.
func binaryArgs(_ *cobra.Command, args []string) error {
	if len(args) == 0 {
		return cli.Usagef("define: --name, --ready and the binary are required")
	}
	return nil
}

func printPid(h fabrun.Home, name string) error {
	if _, err := h.Defined(name); err != nil {
		return err
	}
	pid, ok := h.Running(name)
	if !ok {
		return fmt.Errorf("%s is not running", name)
	}
	fmt.Println(pid)
	return nil
}

func showLog(h fabrun.Home, name string, lines int) error {
	if _, err := os.Stat(h.LogFile(name)); err != nil {
		return fmt.Errorf("no log of %q: %w", name, err)
	}
	fmt.Fprintf(os.Stderr, "---- the last %d lines of %s ----\n%s\n---- end of %s ----\n", lines, h.LogFile(name), h.Tail(name, lines), name)
	return nil
}

func listNodes(h fabrun.Home, sub string) error {
	names, err := h.DefinedNodes()
	if err != nil {
		return err
	}
	if sub == "status" {
		fmt.Printf("%-32s %-8s %-22s %s\n", "NODE", "PID", "ADDRESS", "STATE")
	}
	for _, n := range names {
		pid, ok := h.Running(n)
		switch {
		case sub == "status":
			p, err := h.Defined(n)
			if err != nil {
				return err
			}
			state, shown := "stopped", "-"
			if ok {
				state, shown = "running", fmt.Sprint(pid)
			}
			fmt.Printf("%-32s %-8s %-22s %s\n", n, shown, p.Ready, state)
		case !ok:
		case sub == "pids":
			fmt.Println(n, pid)
		default:
			fmt.Println(n)
		}
	}
	return nil
}
