package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/fabvote/fabvote/network/fabnet"
)

// localChannel sets up the channel on nodes that another tool runs and
// that this host reaches at the topology's addresses (the single-host
// Docker network's containers, their ports published on the loopback),
// from a home that holds every organisation's files:
//
//	fabnet local-channel join   --topology T --home DIR
//	fabnet local-channel deploy --topology T --home DIR --packages DIR [--version V] [--sequence N]
//	fabnet local-channel height --topology T --home DIR --org ORG
//
// join and deploy skip what is done already, so they run again on a
// network whose volumes were kept; deploy with the next sequence is an
// upgrade.
func localChannel(args []string) error {
	if len(args) == 0 {
		return errors.New("local-channel: want join, deploy or height")
	}
	verb, args := args[0], args[1:]
	if verb != "join" && verb != "deploy" && verb != "height" {
		return fmt.Errorf("local-channel: unknown step %q (join, deploy or height)", verb)
	}
	fs := flag.NewFlagSet("fabnet local-channel "+verb, flag.ContinueOnError)
	topo := fs.String("topology", "", "the topology file, with the addresses this host dials (required)")
	home := fs.String("home", "", "the directory that holds every organisation's files (required)")
	var tools fabnet.Tools
	fs.StringVar(&tools.Fabric, "bin", "bin", "directory of the peer CLI and osnadmin")
	fs.StringVar(&tools.ConfigSrc, "config-src", "build/config", "directory of upstream's core.yaml, for the peer CLI")
	wait := fs.Duration("wait", fabnet.DefaultWait, "bound of each wait: an active orderer, a peer's ledger, the approvals, a committed definition")
	d := fabnet.Deployment{Sequence: 1}
	fs.StringVar(&d.Chaincode, "chaincode", "ballot", "deploy: the topology's chaincode")
	fs.StringVar(&d.Version, "version", "", "deploy: the definition's version (default: the topology's)")
	fs.IntVar(&d.Sequence, "sequence", 1, "deploy: the definition's sequence (the next one upgrades)")
	packages := fs.String("packages", "", "deploy: directory of each organisation's package, CHAINCODE.ORG.tgz (required)")
	org := fs.String("org", "", "height: the organisation whose peer answers (required)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case *topo == "" || *home == "" || fs.NArg() > 0:
		return errors.New("--topology and --home are required, and nothing else after the flags")
	case verb == "deploy" && *packages == "":
		return errors.New("deploy: --packages is required")
	case verb == "height" && *org == "":
		return errors.New("height: --org is required")
	}
	t, err := fabnet.Load(*topo)
	if err != nil {
		return err
	}
	if err := absPaths(&tools.Fabric, &tools.ConfigSrc); err != nil {
		return err
	}
	for _, p := range []string{filepath.Join(tools.Fabric, "peer"), filepath.Join(tools.Fabric, "osnadmin"), filepath.Join(tools.ConfigSrc, "core.yaml")} {
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("%s not found: run 'make fabric', or point --bin and --config-src elsewhere", p)
		}
	}
	h, err := fabnet.OpenLocalHome(*home, t)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx = fabnet.WithWait(ctx, *wait)
	switch verb {
	case "join":
		err = fabnet.JoinChannel(ctx, t, h, tools, logf)
	case "deploy":
		d.Package = func(org string) string { return filepath.Join(*packages, d.Chaincode+"."+org+".tgz") }
		d.Wait, d.Log = *wait, logf
		err = fabnet.Deploy(ctx, t, h, tools, d)
	case "height":
		var n int
		if n, err = fabnet.Height(ctx, t, h, tools, *org); err == nil {
			fmt.Println(n)
		}
	}
	if err != nil && ctx.Err() != nil {
		return interrupted{err} // fabnet exits 130
	}
	return err
}

// absPaths makes each path absolute in place: the nodes and tools run
// from other directories.
func absPaths(paths ...*string) error {
	for _, p := range paths {
		abs, err := filepath.Abs(*p)
		if err != nil {
			return err
		}
		*p = abs
	}
	return nil
}
