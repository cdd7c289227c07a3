package gateway

import (
	"errors"
	"strings"
	"testing"
)

// TestConnectChoices covers what Connect decides before it dials: the
// chaincode, the client identity and the gateway peer.
func TestConnectChoices(t *testing.T) {
	n := loadGoodNetwork(t, t.TempDir())
	if _, err := Connect(n, Options{Org: "ea", Identity: "user9"}); err == nil || !strings.Contains(err.Error(), "has: admin") {
		t.Fatalf("unknown identity error %v should list identities", err)
	}
	if _, err := Connect(n, Options{Chaincode: "other"}); err == nil || !strings.Contains(err.Error(), "not deployed") {
		t.Fatalf("unknown chaincode: %v", err)
	}
	// PeerOrg: the gateway is the other org's peer, while the client is
	// still the first org's identity (a trustee reading every org).
	stop := errors.New("stop before dialling")
	for _, tc := range []struct{ peerOrg, want string }{{"", "127.0.0.1:7051"}, {"Party1MSP", "127.0.0.1:8051"}} {
		var got string
		_, err := Connect(n, Options{Org: "ea", Identity: "admin", PeerOrg: tc.peerOrg,
			CheckEndpoint: func(ep string) error { got = ep; return stop }})
		if !errors.Is(err, stop) || got != tc.want {
			t.Errorf("PeerOrg %q: endpoint %q (%v), want %s", tc.peerOrg, got, err, tc.want)
		}
	}
	if _, err := Connect(n, Options{Org: "ea", Identity: "admin", PeerOrg: "nope"}); err == nil || !strings.Contains(err.Error(), "ea/EAMSP") {
		t.Fatalf("unknown PeerOrg: %v, want an error listing the orgs", err)
	}
}
