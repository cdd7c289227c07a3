package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/fabvote/fabvote/internal/cli"
	"github.com/fabvote/fabvote/network/compose"
	"github.com/fabvote/fabvote/network/fabnet"
	"github.com/fabvote/fabvote/network/portplan"
)

// topologyEnvCommand is `fabnet topology env`, a subcommand of the
// topology command (topologyfile.go): the topology as the scripts read it.
var topologyEnvCommand = command{name: "topology env",
	synopsis: "--profile P [--stack S] [--slot N] [--base-port B | --port-prefix P] [--chaincode NAME[:ballot] ...]\n" +
		"       fabnet topology env --profile P --containers [--chaincode ...]\n" +
		"       fabnet topology env --docker [--containers | --stack S ...]\n" +
		"       fabnet topology env --home DIR",
	summary: "shell assignments of a topology for the scripts (scripts/topology.sh): a profile placed on a stack, the containers', the Docker network's or a network's own",
	setup:   topologyEnvSetup}

// envFlags are the flags of `fabnet topology env`.
type envFlags struct {
	fs                 *pflag.FlagSet
	profile, home      string
	stack              string
	slot, base, prefix int
	containers, docker bool
	chaincodes         []string
}

// topologyEnvSetup defines the flags of `fabnet topology env`, which
// prints a topology as the scripts read it (fabnet.ShellEnv,
// scripts/topology.sh): a profile placed on a stack of the port plan,
// every node a container (--containers, fabnet.Containers), the Docker
// network's (--docker, network/compose) or a network's own topology.json
// (--home).
func topologyEnvSetup(fs *pflag.FlagSet) func([]string) error {
	f := &envFlags{fs: fs}
	fs.StringVar(&f.profile, "profile", "solo-org", "a registered profile: "+strings.Join(fabnet.Profiles(), ", "))
	fs.StringVar(&f.home, "home", "", "a network's run directory: its topology.json, instead of a profile")
	fs.StringVar(&f.stack, "stack", "default", "the port plan's stack the network belongs to (fabnet ports list)")
	fs.IntVar(&f.slot, "slot", 0, "which network of a stack of several")
	fs.IntVar(&f.base, "base-port", 0, "the stack's base, when a user moved it (default: the plan's)")
	fs.IntVar(&f.prefix, "port-prefix", 0, "the stack's base as its thousands, the Docker stacks' FABVOTE_PORT_PREFIX (17: 17050)")
	fs.BoolVar(&f.containers, "containers", false, "the Docker network's containers: every node by its container name and port (fabnet.Containers)")
	fs.StringArrayVar(&f.chaincodes, "chaincode", nil, "NAME[:ballot] of a chaincode every organisation runs (repeatable)")
	fs.BoolVar(&f.docker, "docker", false, "the single-host Docker network's profile and chaincodes (network/compose), instead of --profile and --chaincode")
	return func([]string) error { return f.print() }
}

// print prints the topology the flags name as shell assignments.
func (f *envFlags) print() error {
	t, c, err := f.topology()
	if err != nil {
		return err
	}
	text, err := fabnet.ShellEnv(t, c)
	if err != nil {
		return err
	}
	fmt.Print(text)
	return nil
}

// topology is the topology the flags name, with its profile and the port
// plan's base it was placed at (none for a network's own file; no base
// for the containers).
func (f *envFlags) topology() (*fabnet.Topology, fabnet.EnvContext, error) {
	var c fabnet.EnvContext
	set := map[string]bool{}
	f.fs.Visit(func(fl *pflag.Flag) { set[fl.Name] = true })
	placed := set["stack"] || set["slot"] || set["base-port"] || set["port-prefix"]
	ccs := chaincodes(f.chaincodes)
	switch {
	case f.home != "":
		for name := range set {
			if name != "home" {
				return nil, c, cli.Usagef("--%s does not apply with --home: the network's topology.json decides it", name)
			}
		}
		t, err := fabnet.Load(filepath.Join(f.home, "topology.json"))
		return t, c, err
	case f.docker && (set["profile"] || set["chaincode"]):
		return nil, c, cli.Usagef("--docker: the Docker network's profile and chaincodes are network/compose's; no --profile or --chaincode")
	case f.docker:
		f.profile, ccs = compose.Profile, compose.Chaincodes()
	}
	c.Profile = f.profile
	if f.containers {
		if placed {
			return nil, c, cli.Usagef("--containers: the containers' ports are Fabric's own, not the port plan's; no --stack, --slot, --base-port or --port-prefix")
		}
		t, err := fabnet.Containers(f.profile, ccs)
		return t, c, err
	}
	base, err := f.placement()
	if err != nil {
		return nil, c, err
	}
	c.BasePort = base
	t, err := fabnet.Profile(f.profile, base, nil, ccs)
	return t, c, err
}

// placement is the base of the network in its slot of the stack, refused
// when it meets another stack.
func (f *envFlags) placement() (int, error) {
	s, err := portplan.Lookup(f.stack)
	if err != nil {
		return 0, err
	}
	if f.slot < 0 || f.slot >= max(s.Slots, 1) {
		return 0, cli.Usagef("--slot %d: stack %s has %d networks", f.slot, s.Name, max(s.Slots, 1))
	}
	switch {
	case f.base != 0 && f.prefix != 0:
		return 0, cli.Usagef("--base-port and --port-prefix both move the stack: give one")
	case f.base != 0:
		s = s.WithBase(f.base)
	case f.prefix != 0:
		if f.prefix < 1 || f.prefix > 64 {
			return 0, cli.Usagef("--port-prefix %d: want the thousands of a port, 1 to 64", f.prefix)
		}
		s = s.WithBase(f.prefix*1000 + s.Base%1000)
	}
	base := s.SlotBase(f.slot)
	return base, portplan.CheckPlacement(s.Name, base)
}
