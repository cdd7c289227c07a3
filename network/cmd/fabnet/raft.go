package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/pflag"

	"github.com/fabvote/fabvote/internal/cli"
	"github.com/fabvote/fabvote/network/fabnet"
	"github.com/fabvote/fabvote/network/fabrun"
)

// opsCommands serve the network whose organisations' files are all on
// this host (network/net.sh): a node's operations endpoint, the Raft
// leader, and the wait for a restarted orderer.
var opsCommands = []command{
	{name: "ops", synopsis: "--topology T --crypto DIR NODE PATH", summary: "GET PATH from a node's operations endpoint and print the body",
		args: cli.ExactArgs(2, "NODE PATH"), setup: opsSetup(getOps)},
	{name: "raft-leader", synopsis: "--topology T --crypto DIR", summary: "print the orderer that leads the channel's Raft cluster; exit 1 if none",
		setup: opsSetup(raftLeader)},
	{name: "wait-orderer", synopsis: "--topology T --crypto DIR --home DIR [--wait 90s] ORDERER",
		summary: "wait until the channel has a Raft leader and the restarted orderer has heard from it",
		args:    cli.ExactArgs(1, "ORDERER"), setup: waitOrdererSetup},
}

// opsFlags are the flags every operations command takes.
type opsFlags struct {
	topology, crypto string
	wait             time.Duration
}

func newOpsFlags(fs *pflag.FlagSet) *opsFlags {
	f := &opsFlags{}
	fs.StringVar(&f.topology, "topology", "", "the topology file (required)")
	fs.StringVar(&f.crypto, "crypto", "", "the cryptogen-layout crypto directory (required)")
	return f
}

// load checks the flags and loads the topology.
func (f *opsFlags) load() (*fabnet.Topology, fabnet.Layout, error) {
	if f.topology == "" || f.crypto == "" {
		return nil, fabnet.Layout{}, cli.Usagef("--topology and --crypto are required")
	}
	t, err := fabnet.Load(f.topology)
	return t, fabnet.Layout{Dir: f.crypto}, err
}

// opsStep is an operations command once its topology is loaded.
type opsStep func(ctx context.Context, t *fabnet.Topology, l fabnet.Layout, args []string) error

func opsSetup(do opsStep) func(fs *pflag.FlagSet) func([]string) error {
	return func(fs *pflag.FlagSet) func([]string) error {
		f := newOpsFlags(fs)
		return func(args []string) error {
			t, l, err := f.load()
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			return do(ctx, t, l, args)
		}
	}
}

func getOps(ctx context.Context, t *fabnet.Topology, l fabnet.Layout, args []string) error {
	ep, err := l.OpsEndpoint(t, args[0])
	if err != nil {
		return err
	}
	body, err := fabrun.GetOps(ctx, ep, args[1])
	if err == nil {
		_, err = os.Stdout.Write(body)
	}
	return err
}

func raftLeader(ctx context.Context, t *fabnet.Topology, l fabnet.Layout, _ []string) error {
	leader := fabrun.RaftLeader(ctx, l, t)
	if leader == "" {
		return errors.New("no running orderer leads channel " + t.Channel)
	}
	fmt.Println(leader)
	return nil
}

func waitOrdererSetup(fs *pflag.FlagSet) func([]string) error {
	f := newOpsFlags(fs)
	home := fs.String("home", "", "the directory of the nodes' pid files (required)")
	fs.DurationVar(&f.wait, "wait", 90*time.Second, "time allowed")
	return func(args []string) error {
		if *home == "" {
			return cli.Usagef("--home is required")
		}
		t, l, err := f.load()
		if err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(context.Background(), f.wait)
		defer cancel()
		return fabrun.WaitOrderer(ctx, l, t, fabrun.Home{Dir: *home}, args[0])
	}
}
