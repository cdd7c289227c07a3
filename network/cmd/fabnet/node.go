package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/fabvote/fabvote/network/fabnet"
	"github.com/fabvote/fabvote/network/fabrun"
)

// nodeUsage is the help of fabnet node: the defined nodes of a home, by
// name (network/net.sh runs its whole network this way).
const nodeUsage = `fabnet node SUBCOMMAND --home DIR ...
  define   --name N --ready HOST:PORT [--dir D] [--pass-env "VAR ..."] [--env K=V]... -- BINARY ARGS...
  start    [--wait 90s] NAME      start it and wait until it listens
  stop     [--timeout 10s] NAME   SIGTERM, SIGKILL after the timeout
  kill     NAME                   SIGKILL (fault injection); its data stays
  pid      NAME                   its pid; exit status 1 when it is not running
  pids                            "NAME PID" of every running node
  running                         the names of the running nodes
  status                          every node, its pid, address and state
  log      [--lines 50] NAME      the end of its log
  stop-all [--timeout 10s]        stop every node, the last defined first`

type nodeFlags struct {
	fs                *flag.FlagSet
	home, name, ready string
	dir, passEnv      string
	env               multiFlag
	wait, timeout     time.Duration
	lines             int
}

func newNodeFlags(sub string) *nodeFlags {
	f := &nodeFlags{fs: flag.NewFlagSet("fabnet node "+sub, flag.ContinueOnError)}
	f.fs.StringVar(&f.home, "home", "", "the directory of the nodes (required)")
	f.fs.StringVar(&f.name, "name", "", "define: the node's name")
	f.fs.StringVar(&f.ready, "ready", "", "define: the address the node listens on once it is ready")
	f.fs.StringVar(&f.dir, "dir", "", "define: its working directory (default HOME/nodes/NAME)")
	f.fs.StringVar(&f.passEnv, "pass-env", "", "define: variables of this environment it inherits besides PATH, HOME, TMPDIR and FABVOTE_* (space-separated)")
	f.fs.Var(&f.env, "env", "define: KEY=VALUE for the node (repeatable; a later one wins)")
	f.fs.DurationVar(&f.wait, "wait", 90*time.Second, "start: time allowed to start listening")
	f.fs.DurationVar(&f.timeout, "timeout", 10*time.Second, "stop, stop-all: time allowed after SIGTERM before SIGKILL")
	f.fs.IntVar(&f.lines, "lines", 50, "log: how many lines")
	return f
}

func nodeCommand(args []string) error {
	if len(args) == 0 {
		return errors.New("want a subcommand:\n" + nodeUsage)
	}
	sub, args := args[0], args[1:]
	f := newNodeFlags(sub)
	if err := f.fs.Parse(args); err != nil {
		return err
	}
	if f.home == "" {
		return errors.New("--home is required")
	}
	h := fabrun.Home{Dir: f.home}
	switch sub {
	case "define":
		return f.define(h)
	case "start", "stop", "kill", "pid", "log":
		if f.fs.NArg() != 1 {
			return fmt.Errorf("usage: fabnet node %s --home DIR NAME", sub)
		}
		if sub == "log" { // any log of the home, a CA server's init among them
			return showLog(h, f.fs.Arg(0), f.lines)
		}
		return oneNode(h, sub, f.fs.Arg(0), f)
	case "pids", "running", "status":
		return listNodes(h, sub)
	case "stop-all":
		return h.StopAll(f.timeout)
	}
	return fmt.Errorf("unknown subcommand %q:\n%s", sub, nodeUsage)
}

func (f *nodeFlags) define(h fabrun.Home) error {
	if f.name == "" || f.ready == "" || f.fs.NArg() == 0 {
		return errors.New("define: --name, --ready and the binary are required")
	}
	bin, err := filepath.Abs(f.fs.Arg(0))
	if err != nil {
		return err
	}
	dir := f.dir
	if dir == "" {
		dir = h.Node(f.name)
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return err
	}
	env, err := fabrun.PassEnv(strings.Fields(f.passEnv), f.env...)
	if err != nil {
		return fmt.Errorf("define %s: %w", f.name, err)
	}
	return h.Define(fabnet.Proc{Name: f.name, Path: bin, Args: f.fs.Args()[1:], Env: env, Dir: dir, Ready: f.ready})
}

func oneNode(h fabrun.Home, sub, name string, f *nodeFlags) error {
	p, err := h.Defined(name)
	if err != nil {
		return err
	}
	switch sub {
	case "start":
		// Interrupted before the node is ready, Start stops it: an
		// interrupted network-up leaves no node that no pid file names.
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		ctx, cancel := context.WithTimeout(ctx, f.wait)
		defer cancel()
		return h.Start(ctx, p)
	case "stop":
		return h.Stop(name, f.timeout)
	case "kill":
		return h.Kill(name)
	case "pid":
		pid, ok := h.Running(name)
		if !ok {
			return fmt.Errorf("%s is not running", name)
		}
		fmt.Println(pid)
		return nil
	}
	return fmt.Errorf("unknown subcommand %q", sub)
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
