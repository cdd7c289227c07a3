package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"strconv"

	"github.com/fabvote/fabvote/network/fabnet"
	"github.com/fabvote/fabvote/network/portplan"
	"github.com/fabvote/fabvote/network/portprobe"
)

// portsCommand is `fabnet ports list|env|check`: the port plan
// (network/portplan) for the scripts, which ask it instead of writing
// port numbers of their own.
//
//	fabnet ports list                                      every stack's ports and what listens on each
//	fabnet ports env   --stack S [--base-port N] [--slot K]  shell assignments: BASE_PORT, EA_ADDR, ...
//	fabnet ports check --stack S [--base-port N] [--slot K] --profile P [--chaincodes N]
//	                   [--identities ca|cryptogen] [--registrar ADDR]
//	                   every port that run needs is free, else each taken one, its holder and its setting
func portsCommand(args []string) error {
	if len(args) == 0 {
		return errors.New("ports: want list, env or check")
	}
	switch args[0] {
	case "list":
		return portsList(args[1:])
	case "env":
		return portsEnv(args[1:])
	case "check":
		return portsCheck(args[1:])
	}
	return fmt.Errorf("ports: unknown command %q (list, env, check)", args[0])
}

func portsList(args []string) error {
	if len(args) > 0 {
		return fmt.Errorf("ports list: unexpected argument %q", args[0])
	}
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
	fs         *flag.FlagSet
	stack      string
	base, slot int
}

func newPlacement(name string) *placement {
	p := &placement{fs: flag.NewFlagSet("fabnet ports "+name, flag.ContinueOnError)}
	p.fs.StringVar(&p.stack, "stack", "default", "the stack (fabnet ports list)")
	p.fs.IntVar(&p.base, "base-port", 0, "the stack's base, when a user moved it (default: the plan's)")
	p.fs.IntVar(&p.slot, "slot", 0, "which network of a stack of several")
	return p
}

// resolve is the stack and the base of the network in its slot, refused
// when it meets another stack.
func (p *placement) resolve() (portplan.Stack, int, error) {
	if p.fs.NArg() > 0 {
		return portplan.Stack{}, 0, fmt.Errorf("unexpected argument %q", p.fs.Arg(0))
	}
	s, err := portplan.Lookup(p.stack)
	if err != nil {
		return s, 0, err
	}
	if p.slot < 0 || p.slot >= max(s.Slots, 1) {
		return s, 0, fmt.Errorf("--slot %d: stack %s has %d networks", p.slot, s.Name, max(s.Slots, 1))
	}
	if p.base != 0 {
		s = s.WithBase(p.base)
	}
	base := s.SlotBase(p.slot)
	return s, base, portplan.CheckPlacement(s.Name, base)
}

func portsEnv(args []string) error {
	p := newPlacement("env")
	if err := p.fs.Parse(args); err != nil {
		return err
	}
	s, base, err := p.resolve()
	if err != nil {
		return err
	}
	vars := [][2]string{{"BASE_PORT", fmt.Sprint(base)}}
	if s.Registrar {
		vars = append(vars, [2]string{"EA_ADDR", portplan.Registrar(base)}, [2]string{"EA_OPS_ADDR", portplan.RegistrarOps(base)})
	}
	if s.Prometheus {
		vars = append(vars, [2]string{"PROMETHEUS_ADDR", portplan.Prometheus(base)})
	}
	if s.Pprof {
		for _, n := range portplan.PprofNodes {
			vars = append(vars, [2]string{portplan.PprofVar(n), portplan.Pprof(base, n)})
		}
	}
	for _, v := range vars {
		fmt.Printf("%s=%s\n", v[0], v[1])
	}
	return nil
}

func portsCheck(args []string) error {
	p := newPlacement("check")
	profile := p.fs.String("profile", "solo-org", "the network's profile")
	chaincodes := p.fs.Int("chaincodes", 1, "its chaincode services (each with an operations endpoint)")
	identities := p.fs.String("identities", "ca", "ca (each organisation's CA servers run) or cryptogen")
	registrar := p.fs.String("registrar", "", "the registration service's address, when it runs beside the network")
	if err := p.fs.Parse(args); err != nil {
		return err
	}
	s, base, err := p.resolve()
	if err != nil {
		return err
	}
	if *chaincodes < 0 || *chaincodes > portplan.MaxChaincodes {
		return fmt.Errorf("--chaincodes %d: want 0 to %d", *chaincodes, portplan.MaxChaincodes)
	}
	ccs := make([]fabnet.Chaincode, *chaincodes)
	for k := range ccs {
		ccs[k] = fabnet.Chaincode{Name: fmt.Sprintf("cc%d", k), Version: "1", Ballot: true}
	}
	t, err := fabnet.Profile(*profile, base, nil, ccs)
	if err != nil {
		return err
	}
	ls := fabnet.NetworkListeners(t, s.Name, *identities == "ca")
	if *registrar != "" {
		l, err := registrarListener(s, *registrar)
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

func registrarListener(s portplan.Stack, addr string) (portplan.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	n, perr := strconv.Atoi(port)
	if err != nil || perr != nil {
		return portplan.Listener{}, fmt.Errorf("--registrar %q: want HOST:PORT", addr)
	}
	return s.RegistrarAt(host, n), nil
}
