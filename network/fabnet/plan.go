package fabnet

import (
	"fmt"

	"github.com/fabvote/fabvote/network/portplan"
	"github.com/fabvote/fabvote/network/portprobe"
)

// StackListeners is every port stack s may listen on, in each of its
// slots: the largest shape of the registered profiles (largestShape),
// which a stack reserves whichever profile runs in it, with a chaincode
// service (and its operations endpoint) in every chaincode slot, its CA
// servers, and the services beside the network.
func StackListeners(s portplan.Stack) ([]portplan.Listener, error) {
	shape, err := largestShape()
	if err != nil {
		return nil, err
	}
	ccs := make([]Chaincode, portplan.MaxChaincodes)
	for k := range ccs {
		ccs[k] = Chaincode{Name: fmt.Sprintf("cc%d", k), Version: "1", Ballot: true}
	}
	var ls []portplan.Listener
	for slot := range max(s.Slots, 1) {
		base := s.SlotBase(slot)
		t, err := shape.topology(base, nil, ccs)
		if err != nil {
			return nil, fmt.Errorf("stack %s: %w", s.Name, err)
		}
		name := s.Name
		if s.Slots > 1 {
			name = fmt.Sprintf("%s network %d", s.Name, slot)
		}
		for _, l := range t.Listeners(name + ": ") {
			l.Var = s.BaseVar
			ls = append(ls, l)
		}
		ls = append(ls, s.Services(base)...)
	}
	return ls, nil
}

// PlanListeners is every port of every shipped stack. It refuses stacks
// whose ranges overlap, a listener outside its stack's range and two
// listeners on one port, naming both owners.
func PlanListeners(stacks []portplan.Stack) ([]portplan.Listener, error) {
	if err := portplan.CheckRanges(stacks); err != nil {
		return nil, err
	}
	var all []portplan.Listener
	for _, s := range stacks {
		ls, err := StackListeners(s)
		if err != nil {
			return nil, err
		}
		if err := s.Within(ls); err != nil {
			return nil, err
		}
		all = append(all, ls...)
	}
	return all, portplan.Check(all)
}

// NetworkListeners is what t's nodes listen on, named after stack; with
// withCAs, the organisations' CA servers too.
func NetworkListeners(t *Topology, stack string, withCAs bool) []portplan.Listener {
	if withCAs {
		return t.Listeners(stack + ": ")
	}
	return t.NodeListeners(stack + ": ")
}

// CheckPortsFree refuses to start t when something already listens on
// one of its ports on this host, naming each port, what holds it and the
// setting that moves it.
func CheckPortsFree(t *Topology, stack string, withCAs bool) error {
	if err := portprobe.Free(NetworkListeners(t, stack, withCAs)); err != nil {
		return fmt.Errorf("the %s network's ports are not free:\n%w", stack, err)
	}
	return nil
}
