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
	"time"

	"github.com/fabvote/fabvote/network/fabnet"
	"github.com/fabvote/fabvote/network/fabrun"
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
	c, err := parseLocalChannel(args[0], args[1:])
	if err != nil {
		return err
	}
	t, err := fabnet.Load(c.topology)
	if err != nil {
		return err
	}
	if err := c.checkTools(); err != nil {
		return err
	}
	h, err := fabrun.OpenLocalHome(c.home, t)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx = fabrun.WithWait(ctx, c.wait)
	switch c.verb {
	case "join":
		err = fabrun.JoinChannel(ctx, t, h, c.tools, logf)
	case "deploy":
		err = fabrun.Deploy(ctx, t, h, c.tools, c.deploy)
	case "height":
		var n int
		if n, err = fabrun.Height(ctx, t, h, c.tools, c.org); err == nil {
			fmt.Println(n)
		}
	}
	if err != nil && ctx.Err() != nil {
		return interrupted{err} // fabnet exits 130
	}
	return err
}

// localChannelCmd is a parsed local-channel command.
type localChannelCmd struct {
	verb, topology, home, org string
	wait                      time.Duration
	tools                     fabrun.Tools
	deploy                    fabrun.Deployment
}

func parseLocalChannel(verb string, args []string) (localChannelCmd, error) {
	c := localChannelCmd{verb: verb}
	if verb != "join" && verb != "deploy" && verb != "height" {
		return c, fmt.Errorf("local-channel: unknown step %q (join, deploy or height)", verb)
	}
	fs := flag.NewFlagSet("fabnet local-channel "+verb, flag.ContinueOnError)
	fs.StringVar(&c.topology, "topology", "", "the topology file, with the addresses this host dials (required)")
	fs.StringVar(&c.home, "home", "", "the directory that holds every organisation's files (required)")
	fs.StringVar(&c.tools.Fabric, "bin", "bin", "directory of the peer CLI and osnadmin")
	fs.StringVar(&c.tools.ConfigSrc, "config-src", "build/config", "directory of upstream's core.yaml, for the peer CLI")
	fs.DurationVar(&c.wait, "wait", fabrun.DefaultWait, "bound of each wait: an active orderer, a peer's ledger, the approvals, a committed definition")
	fs.StringVar(&c.deploy.Chaincode, "chaincode", "ballot", "deploy: the topology's chaincode")
	fs.StringVar(&c.deploy.Version, "version", "", "deploy: the definition's version (default: the topology's)")
	fs.IntVar(&c.deploy.Sequence, "sequence", 1, "deploy: the definition's sequence (the next one upgrades)")
	packages := fs.String("packages", "", "deploy: directory of each organisation's package, CHAINCODE.ORG.tgz (required)")
	fs.StringVar(&c.org, "org", "", "height: the organisation whose peer answers (required)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	switch {
	case fs.NArg() > 0:
		return c, fmt.Errorf("local-channel %s: unexpected argument %q", verb, fs.Arg(0))
	case c.topology == "" || c.home == "":
		return c, errors.New("--topology and --home are required")
	case verb == "deploy" && *packages == "":
		return c, errors.New("deploy: --packages is required")
	case verb == "height" && c.org == "":
		return c, errors.New("height: --org is required")
	}
	c.deploy.Package = func(org string) string { return filepath.Join(*packages, c.deploy.Chaincode+"."+org+".tgz") }
	c.deploy.Log = logf
	return c, nil
}

// checkTools finds the host's peer CLI, osnadmin and upstream core.yaml.
func (c *localChannelCmd) checkTools() error {
	if err := absPaths(&c.tools.Fabric, &c.tools.ConfigSrc); err != nil {
		return err
	}
	for _, p := range []string{filepath.Join(c.tools.Fabric, "peer"), filepath.Join(c.tools.Fabric, "osnadmin"), filepath.Join(c.tools.ConfigSrc, "core.yaml")} {
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("%s not found: run 'make fabric', or point --bin and --config-src elsewhere", p)
		}
	}
	return nil
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
