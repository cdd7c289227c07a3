package fabnet

import (
	"strings"
	"testing"

	"github.com/fabvote/fabvote/network/portplan"
)

// TestPlanHasNoClash enumerates every listener of every shipped stack (the
// largest profile, every chaincode slot, the CA servers and the services
// beside the network, in each of a stack's networks) and fails on any
// overlap, naming both owners. The stacks' ranges are apart, so any two
// of them, and so any two runs that make test starts side by side, are too.
func TestPlanHasNoClash(t *testing.T) {
	ls, err := PlanListeners(portplan.Shipped)
	if err != nil {
		t.Fatal(err)
	}
	// three-orgs: 3 orderers x 3, 3 peers x (3 + 7 services x 2), 4 CAs x 4.
	perNetwork := 9 + 3*(3+2*portplan.MaxChaincodes) + 16
	want := 0
	for _, s := range portplan.Shipped {
		want += max(s.Slots, 1)*perNetwork + len(s.Services(s.Base))
	}
	if len(ls) != want {
		t.Errorf("%d listeners, want %d", len(ls), want)
	}
}

// TestPlanFindsTheRegistrarClash: ea serve's default address before the
// plan owned it (127.0.0.1:7443) is the orderer org's TLS CA's operations
// endpoint of the default network; the check names both.
func TestPlanFindsTheRegistrarClash(t *testing.T) {
	def, err := portplan.Lookup("default")
	if err != nil {
		t.Fatal(err)
	}
	ls, err := StackListeners(def)
	if err != nil {
		t.Fatal(err)
	}
	old := portplan.Listener{Owner: "ea serve's former default --addr", Host: "127.0.0.1", Port: 7443}
	err = portplan.Check(append(ls, old))
	for _, w := range []string{"default: the orderer org's CAs (TLS CA operations)", "ea serve's former default --addr", "127.0.0.1:7443"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Fatalf("Check: %v, want it to name %q", err, w)
		}
	}
}

// TestPlanRefusesAStackMovedOntoAnother: a user's base that puts one stack
// over another is refused before any listener is counted.
func TestPlanRefusesAStackMovedOntoAnother(t *testing.T) {
	stacks := append([]portplan.Stack(nil), portplan.Shipped...)
	stacks[0] = stacks[0].WithBase(8300)
	_, err := PlanListeners(stacks)
	if err == nil || !strings.Contains(err.Error(), "overlap") || !strings.Contains(err.Error(), "E2E_BASE_PORT") {
		t.Fatalf("PlanListeners: %v, want the default and e2e stacks named as overlapping", err)
	}
}
