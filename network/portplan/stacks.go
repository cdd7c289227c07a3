package portplan

import (
	"fmt"
	"slices"
	"strings"
)

// Stack is one network and the services beside it, from its base port.
type Stack struct {
	// Name is how scripts ask for it: fabnet ports env --stack NAME.
	Name string
	// Base is its first port; the stack owns [Base, Base+Span).
	Base int
	// BaseVar is the setting that moves the whole stack.
	BaseVar string
	// Runs says which commands start it.
	Runs string
	// The services beside the network that this stack starts.
	Registrar, Box, Relay, Prometheus, Pprof bool
	// Slots is how many networks of this shape run from one base, each
	// SlotStep ports above the last (the reliability tests' and the
	// network test's networks); 0 means 1.
	Slots int
}

// SlotStep is the distance between two networks of one stack.
const SlotStep = 1000

// Shipped is every stack the repository starts by default. The bases stay
// below 32768, where Linux's ephemeral ports begin, so that no outgoing
// connection and no test listener on port 0 takes one of them.
var Shipped = []Stack{
	{Name: "default", Base: 7050, BaseVar: "BASE_PORT", Registrar: true, Box: true, Relay: true, Prometheus: true,
		Runs: "make demo, make network-up, README's steps by hand (make readme-test)"},
	{Name: "e2e", Base: 8050, BaseVar: "E2E_BASE_PORT", Relay: true, Runs: "make e2e-test"},
	{Name: "e2e-o4", Base: 9050, BaseVar: "E2E_O4_BASE_PORT", Runs: "make e2e-test-o4"},
	{Name: "bench", Base: 11050, BaseVar: "BENCH_BASE_PORT", Box: true, Relay: true, Pprof: true, Runs: "make bench, make bench-smoke, make bench-box, make caliper"},
	{Name: "docker", Base: 17050, BaseVar: "FABVOTE_PORT_PREFIX", Runs: "make docker-up (host ports)"},
	{Name: "docker-test", Base: 19050, BaseVar: "FABVOTE_PORT_PREFIX", Prometheus: true, Runs: "make docker-test (host ports)"},
	{Name: "reliability", Base: 20050, BaseVar: "REL_BASE_PORT", Slots: 6, Runs: "make reliability (one network a test)"},
	{Name: "network-test", Base: 27050, BaseVar: "NET_TEST_BASE_PORT", Slots: 3, Runs: "make network-test"},
}

// Lookup finds a shipped stack by name.
func Lookup(name string) (Stack, error) {
	i := slices.IndexFunc(Shipped, func(s Stack) bool { return s.Name == name })
	if i < 0 {
		names := make([]string, len(Shipped))
		for j, s := range Shipped {
			names[j] = s.Name
		}
		return Stack{}, fmt.Errorf("no stack %q in the port plan (stacks: %s)", name, strings.Join(names, ", "))
	}
	return Shipped[i], nil
}

// MustBase is a shipped stack's base, for the packages that publish it.
func MustBase(name string) int {
	s, err := Lookup(name)
	if err != nil {
		panic(err)
	}
	return s.Base
}

// WithBase is s moved to base; a stack of several slots keeps them.
func (s Stack) WithBase(base int) Stack {
	s.Base = base
	return s
}

// End is the first port past the stack's range.
func (s Stack) End() int { return s.Base + max(s.Slots, 1)*SlotStep - (SlotStep - Span) }

// SlotBase is the base of the stack's network number slot.
func (s Stack) SlotBase(slot int) int { return s.Base + SlotStep*slot }

// Services lists the listeners beside the network in the slot whose base
// is base.
func (s Stack) Services(base int) []Listener {
	var ls []Listener
	add := func(what, address, variable string) {
		host, port := splitAddr(address)
		ls = append(ls, Listener{Owner: s.Name + ": " + what, Host: host, Port: port, Var: variable})
	}
	if s.Registrar {
		host, port := splitAddr(Registrar(base))
		ls = append(ls, s.RegistrarAt(host, port))
		add("registration service's operations", RegistrarOps(base), "EA_OPS_ADDR, or "+s.BaseVar)
	}
	if s.Box {
		host, port := splitAddr(Box(base))
		ls = append(ls, s.BoxAt(host, port))
		add("ballot box's operations", BoxOps(base), "BOX_OPS_ADDR, or "+s.BaseVar)
	}
	if s.Relay {
		add("key ceremony's relay (ceremony relay)", Relay(base), "ceremony relay --listen, or "+s.BaseVar)
	}
	if s.Prometheus {
		add("Prometheus", Prometheus(base), s.BaseVar)
	}
	if s.Pprof {
		for _, n := range PprofNodes {
			add(n+"'s profiling endpoint", Pprof(base, n), "BENCH_"+PprofVar(n)+", or "+s.BaseVar)
		}
	}
	return ls
}

// RegistrarAt is the stack's registration service (ea serve) listening on
// host:port, wherever its address was moved to.
func (s Stack) RegistrarAt(host string, port int) Listener {
	return Listener{Owner: s.Name + ": registration service (ea serve)", Host: host, Port: port, Var: "EA_ADDR, or " + s.BaseVar}
}

// BoxAt is the stack's ballot box (box serve) listening on host:port,
// wherever its address was moved to.
func (s Stack) BoxAt(host string, port int) Listener {
	return Listener{Owner: s.Name + ": ballot box (box serve)", Host: host, Port: port, Var: "BOX_ADDR, or " + s.BaseVar}
}

// PprofNodes are the nodes a benchmark profiles.
var PprofNodes = []string{"peer", "orderer", "chaincode"}

// PprofVar names the variable of a node's profiling endpoint.
func PprofVar(node string) string {
	if node == "chaincode" {
		return "PPROF_CC"
	}
	return "PPROF_" + strings.ToUpper(node)
}

// CheckRanges refuses a stack outside the port range, a stack base that
// leaves no room for its layout, and two stacks whose ranges overlap,
// naming both.
func CheckRanges(stacks []Stack) error {
	for i, s := range stacks {
		if s.Base < 1024 || s.End()-1 > 65535 {
			return fmt.Errorf("stack %s: ports %d-%d: want them within 1024-65535 (set %s)", s.Name, s.Base, s.End()-1, s.BaseVar)
		}
		for _, o := range stacks[:i] {
			if s.Base < o.End() && o.Base < s.End() {
				return fmt.Errorf("stacks %s (ports %d-%d, %s) and %s (ports %d-%d, %s) overlap",
					o.Name, o.Base, o.End()-1, o.BaseVar, s.Name, s.Base, s.End()-1, s.BaseVar)
			}
		}
	}
	return nil
}

// Within refuses a listener outside its stack's range.
func (s Stack) Within(ls []Listener) error {
	for _, l := range ls {
		if l.Port < s.Base || l.Port >= s.End() {
			return fmt.Errorf("%s is outside stack %s's ports %d-%d", l, s.Name, s.Base, s.End()-1)
		}
	}
	return nil
}

func splitAddr(address string) (string, int) {
	i := strings.LastIndexByte(address, ':')
	var port int
	fmt.Sscan(address[i+1:], &port)
	return address[:i], port
}

// isSlotBase reports whether base is where the plan puts one of the stack's networks.
func (s Stack) isSlotBase(base int) bool {
	for k := range max(s.Slots, 1) {
		if s.SlotBase(k) == base {
			return true
		}
	}
	return false
}

// CheckPlacement refuses a network of stack name at base whose ports meet
// another shipped stack's range, naming both stacks and what moves each:
// two commands that each start a network could then take each other's
// ports.
func CheckPlacement(name string, base int) error {
	s, err := Lookup(name)
	if err != nil {
		return err
	}
	end := base + Span
	if base < 1024 || end-1 > 65535 {
		return fmt.Errorf("%s=%d: the %s network's ports %d-%d are outside 1024-65535", s.BaseVar, base, name, base, end-1)
	}
	for _, o := range Shipped {
		// A network of the stack at one of its own slot bases is the plan;
		// moved anywhere else, it must meet no stack, its own included: a
		// second demo at base+300 would take the first one's registrar.
		if o.Name == name && s.isSlotBase(base) {
			continue
		}
		if base < o.End() && o.Base < end {
			return fmt.Errorf("%s=%d puts the %s network's ports %d-%d over stack %s's %d-%d (%s; moved by %s): choose a base whose ports meet no other stack (fabnet ports list)",
				s.BaseVar, base, name, base, end-1, o.Name, o.Base, o.End()-1, o.Runs, o.BaseVar)
		}
	}
	return nil
}
