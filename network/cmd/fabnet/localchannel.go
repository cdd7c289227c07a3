package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/fabvote/fabvote/internal/cli"
	"github.com/fabvote/fabvote/network/fabnet"
	"github.com/fabvote/fabvote/network/fabrun"
)

// localChannelSynopsis is the usage line the local-channel steps share.
const localChannelSynopsis = "--topology T --home DIR"

// localChannelSetup is `fabnet local-channel verb`: the channel on nodes
// that another tool runs and that this host reaches at the topology's
// addresses (the single-host Docker network's containers, their ports
// published on the loopback), from a home that holds every organisation's
// files. join and deploy skip what is done already, so they run again on
// a network whose volumes were kept; deploy with the next sequence is an
// upgrade.
func localChannelSetup(verb string) func(fs *pflag.FlagSet) func([]string) error {
	return func(fs *pflag.FlagSet) func([]string) error {
		c := &localChannelCmd{verb: verb}
		fs.StringVar(&c.topology, "topology", "", "the topology file, with the addresses this host dials (required)")
		fs.StringVar(&c.home, "home", "", "the directory that holds every organisation's files (required)")
		fs.StringVar(&c.tools.Fabric, "bin", "bin", "directory of the peer CLI and osnadmin")
		fs.StringVar(&c.tools.ConfigSrc, "config-src", "build/config", "directory of upstream's core.yaml, for the peer CLI")
		fs.DurationVar(&c.wait, "wait", fabrun.DefaultWait, "bound of each wait: an active orderer, a peer's ledger, the approvals, a committed definition")
		switch verb {
		case "deploy":
			fs.StringVar(&c.deploy.Chaincode, "chaincode", "ballot", "the topology's chaincode")
			fs.StringVar(&c.deploy.Version, "version", "", "the definition's version (default: the topology's)")
			fs.IntVar(&c.deploy.Sequence, "sequence", 1, "the definition's sequence (the next one upgrades)")
			fs.StringVar(&c.packages, "packages", "", "directory of each organisation's package, CHAINCODE.ORG.tgz (required)")
		case "height":
			fs.StringVar(&c.org, "org", "", "the organisation whose peer answers (required)")
		}
		return func([]string) error { return c.run() }
	}
}

// localChannelCmd is a local-channel command and its flags.
type localChannelCmd struct {
	verb, topology, home, org, packages string
	wait                                time.Duration
	tools                               fabrun.Tools
	deploy                              fabrun.Deployment
}

func (c *localChannelCmd) run() error {
	if err := c.check(); err != nil {
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

// check refuses missing flags and completes the deployment.
func (c *localChannelCmd) check() error {
	switch {
	case c.topology == "" || c.home == "":
		return cli.Usagef("--topology and --home are required")
	case c.verb == "deploy" && c.packages == "":
		return cli.Usagef("--packages is required")
	case c.verb == "height" && c.org == "":
		return cli.Usagef("--org is required")
	}
	c.deploy.Package = func(org string) string { return filepath.Join(c.packages, c.deploy.Chaincode+"."+org+".tgz") }
	c.deploy.Log = logf
	return nil
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
