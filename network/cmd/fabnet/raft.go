package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/fabvote/fabvote/network/fabnet"
	"github.com/fabvote/fabvote/network/fabrun"
)

// opsArgs are each step's arguments after its flags.
var opsArgs = map[string]struct {
	n     int
	usage string
}{"ops": {2, " NODE PATH"}, "raft-leader": {0, ""}, "wait-orderer": {1, " --home DIR ORDERER"}}

// opsCommand serves the network whose organisations' files are all on
// this host (network/net.sh): a node's operations endpoint, the Raft
// leader, and the wait for a restarted orderer.
//
//	fabnet ops          --topology T --crypto DIR NODE PATH   GET PATH, print the body
//	fabnet raft-leader  --topology T --crypto DIR             the leading orderer; exit 1 if none
//	fabnet wait-orderer --topology T --crypto DIR --home DIR [--wait 90s] ORDERER
func opsCommand(step string, args []string) error {
	fs := flag.NewFlagSet("fabnet "+step, flag.ContinueOnError)
	topo := fs.String("topology", "", "the topology file (required)")
	crypto := fs.String("crypto", "", "the cryptogen-layout crypto directory (required)")
	home := fs.String("home", "", "wait-orderer: the directory of the nodes' pid files (required)")
	wait := fs.Duration("wait", 90*time.Second, "wait-orderer: time allowed")
	if err := fs.Parse(args); err != nil {
		return err
	}
	spec := opsArgs[step]
	if *topo == "" || *crypto == "" || fs.NArg() != spec.n || (step == "wait-orderer" && *home == "") {
		return fmt.Errorf("usage: fabnet %s --topology T --crypto DIR%s", step, spec.usage)
	}
	t, err := fabnet.Load(*topo)
	if err != nil {
		return err
	}
	l := fabnet.Layout{Dir: *crypto}
	ctx, cancel := context.WithTimeout(context.Background(), *wait)
	defer cancel()
	switch step {
	case "ops":
		ep, err := l.OpsEndpoint(t, fs.Arg(0))
		if err != nil {
			return err
		}
		body, err := fabrun.GetOps(ctx, ep, fs.Arg(1))
		if err == nil {
			_, err = os.Stdout.Write(body)
		}
		return err
	case "raft-leader":
		leader := fabrun.RaftLeader(ctx, l, t)
		if leader == "" {
			return errors.New("no running orderer leads channel " + t.Channel)
		}
		fmt.Println(leader)
		return nil
	}
	return fabrun.WaitOrderer(ctx, l, t, fabrun.Home{Dir: *home}, fs.Arg(0))
}
