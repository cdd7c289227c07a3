package fabnet

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/network/portplan"
)

// registerForTest registers s for the test and removes it after.
func registerForTest(t *testing.T, s ProfileSpec) {
	t.Helper()
	RegisterProfile(s)
	t.Cleanup(func() { delete(profiles, s.Name) })
}

func TestShippedProfiles(t *testing.T) {
	if got, want := Profiles(), []string{"solo-org", "three-orgs"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Profiles() = %v, want %v", got, want)
	}
}

// TestRegisteredProfile: a profile registered from this package is what
// Profile builds, on the port plan's slots, and Profiles lists it.
func TestRegisteredProfile(t *testing.T) {
	registerForTest(t, ProfileSpec{Name: "two-orgs", Orgs: []string{"ea", "auditor"}, Orderers: 2})
	if !slices.Contains(Profiles(), "two-orgs") {
		t.Fatalf("Profiles() = %v, want two-orgs among them", Profiles())
	}
	top, err := Profile("two-orgs", 7050, nil, testChaincodes())
	if err != nil {
		t.Fatal(err)
	}
	auditor := mustPeerOrg(t, top, "auditor")
	peer, _, _ := portplan.Peer(7050, 1)
	orderer1, _, _ := portplan.Orderer(7050, 1)
	tests := []struct {
		name      string
		got, want any
	}{
		{"orderers", len(top.OrdererOrg.Orderers), 2},
		{"orderer1 port", top.OrdererOrg.Orderers[1].Port, orderer1},
		{"orgs", len(top.Orgs), 2},
		{"auditor's MSP id", auditor.MSPID, "AuditorMSP"},
		{"auditor's domain", auditor.Domain, "auditor.fabvote.local"},
		{"auditor's peer port (slot 1)", auditor.Peer.Port, peer},
		{"channel", top.Channel, "fabvote"},
		{"batch", top.Batch, DefaultBatch},
	}
	for _, tc := range tests {
		if !reflect.DeepEqual(tc.got, tc.want) {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
}

func TestUnknownProfileListsRegistered(t *testing.T) {
	registerForTest(t, ProfileSpec{Name: "two-orgs", Orgs: []string{"ea", "auditor"}, Orderers: 1})
	_, err := Profile("four-orgs", 7050, nil, nil)
	if err == nil || !strings.Contains(err.Error(), `profile "four-orgs": want one of solo-org, three-orgs, two-orgs`) {
		t.Fatalf("Profile(four-orgs): %v, want the registered profiles listed", err)
	}
}

func TestProfileSpecRefused(t *testing.T) {
	many := make([]string, portplan.MaxPeerOrgs+1)
	for j := range many {
		many[j] = "org" + string(rune('a'+j))
	}
	tests := []struct {
		name string
		spec ProfileSpec
		want string
	}{
		{"name not a label", ProfileSpec{Name: "Two_Orgs", Orgs: []string{"ea"}, Orderers: 1}, `profile "Two_Orgs"`},
		{"no organisation", ProfileSpec{Name: "none", Orderers: 1}, "0 peer organisations"},
		{"more organisations than the plan holds", ProfileSpec{Name: "many", Orgs: many, Orderers: 1}, "want 1 to"},
		{"no orderer", ProfileSpec{Name: "p", Orgs: []string{"ea"}}, "0 orderers"},
		{"more orderers than the plan holds", ProfileSpec{Name: "p", Orgs: []string{"ea"}, Orderers: portplan.MaxOrderers + 1}, "orderers, want 1 to"},
		{"organisation not a label", ProfileSpec{Name: "p", Orgs: []string{"ea", "../x"}, Orderers: 1}, `"../x" is not a DNS label`},
		{"organisation twice", ProfileSpec{Name: "p", Orgs: []string{"ea", "ea"}, Orderers: 1}, `"ea" appears twice`},
		{"organisation named as the orderer org", ProfileSpec{Name: "p", Orgs: []string{"orderer"}, Orderers: 1}, `"orderer" appears twice`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.spec.check()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("check: %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestRegisterProfilePanics(t *testing.T) {
	tests := []struct {
		name string
		spec ProfileSpec
		want string
	}{
		{"a name taken", ProfileSpec{Name: "solo-org", Orgs: []string{"ea"}, Orderers: 1}, `"solo-org" is registered twice`},
		{"an invalid spec", ProfileSpec{Name: "p", Orgs: []string{"ea"}}, "0 orderers"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if s, _ := r.(string); !strings.Contains(s, tc.want) {
					t.Fatalf("RegisterProfile panicked with %v, want %q", r, tc.want)
				}
			}()
			RegisterProfile(tc.spec)
			delete(profiles, tc.spec.Name)
		})
	}
}

// TestStacksReserveTheLargestShape: a registered profile with more
// organisations than any other widens what every stack reserves.
func TestStacksReserveTheLargestShape(t *testing.T) {
	def, err := portplan.Lookup("default")
	if err != nil {
		t.Fatal(err)
	}
	before, err := StackListeners(def)
	if err != nil {
		t.Fatal(err)
	}
	registerForTest(t, ProfileSpec{Name: "four-orgs", Orgs: []string{"ea", "a", "b", "c"}, Orderers: 1})
	after, err := StackListeners(def)
	if err != nil {
		t.Fatal(err)
	}
	// A fourth peer: its 3 ports, 7 chaincode services with operations, 4 CA ports.
	if got, want := len(after)-len(before), 3+2*portplan.MaxChaincodes+4; got != want {
		t.Errorf("the fourth organisation adds %d listeners, want %d", got, want)
	}
}
