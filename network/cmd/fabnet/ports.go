package main

import (
	"fmt"
	"net"
	"os"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/fabvote/fabvote/internal/cli"
	"github.com/fabvote/fabvote/network/fabnet"
	"github.com/fabvote/fabvote/network/portplan"
	"github.com/fabvote/fabvote/network/portprobe"
)

// portsCommands are `fabnet ports list|env|check`: the port plan
// (network/portplan) for the scripts, which ask it instead of writing port
// numbers of their own.
var portsCommands = []command{
	{name: "ports list", synopsis: "", summary: "every stack's ports and what listens on each", setup: func(*pflag.FlagSet) func([]string) error { return portsList }},
	{name: "ports env", synopsis: "--stack S [--base-port N] [--slot K]", summary: "shell assignments of the stack's addresses: BASE_PORT, EA_ADDR, ...", setup: portsEnvSetup},
	{name: "ports check", synopsis: "--stack S [--base-port N] [--slot K] --profile P [--chaincodes N] [--identities ca|cryptogen] [--registrar ADDR] [--box ADDR]",
		summary: "every port the network needs is free, else each taken one, its holder and its setting", setup: portsCheckSetup},
}

func portsList([]string) error {
	ls, err := fabnet.PlanListeners(portplan.Shipped)
	if err != nil {
		return err
	}
	for _, s := range portplan.Shipped {
		fmt.Printf("%-13s ports %5d-%5d  moved by %-20s %s\n", s.Name, s.Base, s.End()-1, s.BaseVar, s.Runs)
	}
	fmt.Println()
	fmt.Print(portplan.Describe(ls))
	return nil
}

// placement is the flags that put one network on the plan.
type placement struct {
	stack      string
	base, slot int
}

func newPlacement(fs *pflag.FlagSet) *placement {
	p := &placement{}
	fs.StringVar(&p.stack, "stack", "default", "the stack (fabnet ports list)")
	fs.IntVar(&p.base, "base-port", 0, "the stack's base, when a user moved it (default: the plan's)")
	fs.IntVar(&p.slot, "slot", 0, "which network of a stack of several")
	return p
}

// resolve is the stack and the base of the network in its slot, refused
// when it meets another stack.
func (p *placement) resolve() (portplan.Stack, int, error) {
	s, err := portplan.Lookup(p.stack)
	if err != nil {
		return s, 0, err
	}
	if p.slot < 0 || p.slot >= max(s.Slots, 1) {
		return s, 0, cli.Usagef("--slot %d: stack %s has %d networks", p.slot, s.Name, max(s.Slots, 1))
	}
	if p.base != 0 {
		s = s.WithBase(p.base)
	}
	base := s.SlotBase(p.slot)
	return s, base, portplan.CheckPlacement(s.Name, base)
}

func portsEnvSetup(fs *pflag.FlagSet) func([]string) error {
	p := newPlacement(fs)
	return func([]string) error {
		s, base, err := p.resolve()
		if err != nil {
			return err
		}
		for _, v := range stackVars(s, base) {
			fmt.Printf("%s=%s\n", v[0], v[1])
		}
		return nil
	}
}

// stackVars are the shell variables of stack s's network at base.
func stackVars(s portplan.Stack, base int) [][2]string {
	vars := [][2]string{{"BASE_PORT", fmt.Sprint(base)}}
	if s.Registrar {
		vars = append(vars, [2]string{"EA_ADDR", portplan.Registrar(base)}, [2]string{"EA_OPS_ADDR", portplan.RegistrarOps(base)})
	}
	if s.Box {
		vars = append(vars, [2]string{"BOX_ADDR", portplan.Box(base)}, [2]string{"BOX_OPS_ADDR", portplan.BoxOps(base)})
	}
	if s.Prometheus {
		vars = append(vars, [2]string{"PROMETHEUS_ADDR", portplan.Prometheus(base)})
	}
	if s.Pprof {
		for _, n := range portplan.PprofNodes {
			vars = append(vars, [2]string{portplan.PprofVar(n), portplan.Pprof(base, n)})
		}
	}
	return vars
}

// portsCheck is the flags of fabnet ports check.
type portsCheck struct {
	p                                   *placement
	profile, identities, registrar, box string
	chaincodes                          int
}

func portsCheckSetup(fs *pflag.FlagSet) func([]string) error {
	c := &portsCheck{p: newPlacement(fs)}
	fs.StringVar(&c.profile, "profile", "solo-org", "the network's profile")
	fs.IntVar(&c.chaincodes, "chaincodes", 1, "its chaincode services (each with an operations endpoint)")
	fs.StringVar(&c.identities, "identities", "ca", "ca (each organisation's CA servers run) or cryptogen")
	fs.StringVar(&c.registrar, "registrar", "", "the registration service's address, when it runs beside the network")
	fs.StringVar(&c.box, "box", "", "the ballot box's address, when it runs beside the network")
	return func([]string) error { return c.run() }
}

func (c *portsCheck) run() error {
	s, base, err := c.p.resolve()
	if err != nil {
		return err
	}
	if c.chaincodes < 0 || c.chaincodes > portplan.MaxChaincodes {
		return cli.Usagef("--chaincodes %d: want 0 to %d", c.chaincodes, portplan.MaxChaincodes)
	}
	ccs := make([]fabnet.Chaincode, c.chaincodes)
	for k := range ccs {
		ccs[k] = fabnet.Chaincode{Name: fmt.Sprintf("cc%d", k), Version: "1", Ballot: true}
	}
	t, err := fabnet.Profile(c.profile, base, nil, ccs)
	if err != nil {
		return err
	}
	ls := fabnet.NetworkListeners(t, s.Name, c.identities == "ca")
	for _, beside := range []struct {
		flag, addr string
		at         func(string, int) portplan.Listener
	}{{"--registrar", c.registrar, s.RegistrarAt}, {"--box", c.box, s.BoxAt}} {
		if beside.addr == "" {
			continue
		}
		l, err := listenerAt(beside.flag, beside.addr, beside.at)
		if err != nil {
			return err
		}
		ls = append(ls, l)
	}
	if err := portplan.Check(ls); err != nil {
		return err
	}
	if err := portprobe.Free(ls); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return fmt.Errorf("the %s stack's ports are not free; nothing was started", s.Name)
	}
	return nil
}

// listenerAt is the service of flag (a registrar or a box) at addr.
func listenerAt(flag, addr string, at func(string, int) portplan.Listener) (portplan.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	n, perr := strconv.Atoi(port)
	if err != nil || perr != nil {
		return portplan.Listener{}, cli.Usagef("%s %q: want HOST:PORT", flag, addr)
	}
	return at(host, n), nil
}
