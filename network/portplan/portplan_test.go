package portplan

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	l := func(owner, host string, port int) Listener { return Listener{Owner: owner, Host: host, Port: port} }
	tests := []struct {
		name string
		ls   []Listener
		want []string // nil: no error
	}{
		{"distinct ports", []Listener{l("a", Loopback, 7050), l("b", Loopback, 7051)}, nil},
		{"one port on two hosts", []Listener{l("a", "10.0.0.1", 7050), l("b", "10.0.0.2", 7050)}, nil},
		{"one port on one host", []Listener{l("a", Loopback, 7050), l("b", Loopback, 7050)}, []string{"a and b both listen on 127.0.0.1:7050"}},
		{"every address meets the loopback", []Listener{l("a", "0.0.0.0", 7050), l("b", Loopback, 7050)}, []string{"a", "b", "7050"}},
		{"port 0", []Listener{l("a", Loopback, 0)}, []string{"a: port 0 out of range"}},
		{"port past 65535", []Listener{l("a", Loopback, 65536)}, []string{"a: port 65536 out of range"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check(tt.ls)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Check: %v, want nil", err)
				}
				return
			}
			for _, w := range tt.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Fatalf("Check: %v, want it to name %q", err, w)
				}
			}
		})
	}
}

func TestShippedStacksApart(t *testing.T) {
	if err := CheckRanges(Shipped); err != nil {
		t.Fatal(err)
	}
	for _, s := range Shipped {
		// Linux hands out ephemeral ports from 32768: a test listener on
		// port 0 or an outgoing connection must never take a planned port.
		if s.End() > 32768 {
			t.Errorf("stack %s ends at %d, inside the ephemeral range", s.Name, s.End()-1)
		}
		if s.Base%1000 != 50 {
			t.Errorf("stack %s: base %d; the Docker network's prefix scheme wants bases ending in 050", s.Name, s.Base)
		}
	}
}

// TestCheckRangesFindsOldPlans: the plans that the scripts wrote on their
// own before this package overlapped; the check finds them.
func TestCheckRangesFindsOldPlans(t *testing.T) {
	old := []Stack{
		{Name: "docker", Base: 17050, BaseVar: "FABVOTE_PORT_PREFIX"},
		{Name: "reliability", Base: 13050, BaseVar: "REL_BASE_PORT", Slots: 6},
	}
	err := CheckRanges(old)
	for _, w := range []string{"docker (ports 17050-17549, FABVOTE_PORT_PREFIX)", "reliability (ports 13050-18549, REL_BASE_PORT)", "overlap"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Fatalf("CheckRanges: %v, want it to name %q", err, w)
		}
	}
}

func TestCheckPlacement(t *testing.T) {
	tests := []struct {
		stack string
		base  int
		want  []string // nil: placed
	}{
		{"default", 7050, nil},
		{"default", 30050, nil},
		{"reliability", Shipped[6].SlotBase(5), nil}, // its own last network
		{"default", 7350, []string{"BASE_PORT=7350", "over stack default's 7050-7549"}},
		{"reliability", Shipped[6].SlotBase(2) + 100, []string{"over stack reliability's"}},
		{"default", 8100, []string{"BASE_PORT=8100", "8100-8599", "over stack e2e's 8050-8549", "E2E_BASE_PORT"}},
		{"e2e", 7300, []string{"E2E_BASE_PORT=7300", "stack default's 7050-7549"}},
		{"bench", 65300, []string{"BENCH_BASE_PORT=65300", "outside 1024-65535"}},
		{"bench", 80, []string{"outside 1024-65535"}},
		{"nope", 7050, []string{`no stack "nope"`, "default, e2e"}},
	}
	for _, tt := range tests {
		err := CheckPlacement(tt.stack, tt.base)
		if tt.want == nil {
			if err != nil {
				t.Errorf("%s at %d: %v", tt.stack, tt.base, err)
			}
			continue
		}
		for _, w := range tt.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s at %d: %v, want it to name %q", tt.stack, tt.base, err, w)
			}
		}
	}
}

func TestLayoutStaysInItsSlots(t *testing.T) {
	base := 7050
	last := PeerOrgCA(base, MaxPeerOrgs-1) + 3
	if last >= OrdererOrgCA(base) {
		t.Errorf("peer org %d's CAs end at %d, past the orderer org's %d", MaxPeerOrgs-1, last, OrdererOrgCA(base))
	}
	if ChaincodeService(base, 0, MaxChaincodes-1) >= base+peerOffset+10 {
		t.Errorf("chaincode service %d of peer 0 spills into peer 1's slot", MaxChaincodes-1)
	}
	if _, _, ops := Orderer(base, MaxOrderers-1); ops >= base+peerOffset {
		t.Errorf("orderer %d spills into the peers' range", MaxOrderers-1)
	}
	for _, a := range []string{Registrar(base), RegistrarOps(base), Prometheus(base), Pprof(base, "chaincode")} {
		_, p := splitAddr(a)
		if p <= OrdererOrgCA(base)+3 || p >= base+Span {
			t.Errorf("%s is outside the services' part of the stack", a)
		}
	}
}

// TestREADMEListsThePlan: network/README.md's table of stacks names every
// shipped stack with its base and the variable that moves it.
func TestREADMEListsThePlan(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Split(l, "|"); len(f) > 4 {
			for _, name := range strings.Split(f[1], ",") {
				rows[strings.TrimSpace(name)] = l
			}
		}
	}
	for _, s := range Shipped {
		row, ok := rows[s.Name]
		if !ok || !strings.Contains(row, fmt.Sprint(s.Base)) || !strings.Contains(row, "`"+s.BaseVar+"`") {
			t.Errorf("network/README.md: no row for stack %s with base %d and %s (got %q)", s.Name, s.Base, s.BaseVar, row)
		}
	}
}
