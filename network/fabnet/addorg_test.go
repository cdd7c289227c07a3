package fabnet

import (
	"strings"
	"testing"
)

func TestAddOrg(t *testing.T) {
	top := threeOrgs(t, nil)
	if err := top.AddOrg("party3", "10.0.0.14", 7050); err != nil {
		t.Fatal(err)
	}
	p3 := mustPeerOrg(t, top, "party3")
	if p3.MSPID != "Party3MSP" || p3.Domain != "party3.fabvote.local" || p3.Host != "10.0.0.14" {
		t.Errorf("party3: %+v", p3)
	}
	// The next slot of the port plan: j = 3.
	if p3.Peer.Port != 7180 || p3.CAPort != 7380 || p3.Peer.Services[0].Port != 7183 || p3.Peer.Services[0].OpsPort != 7280 {
		t.Errorf("party3 ports: peer %d, CA %d, services %+v", p3.Peer.Port, p3.CAPort, p3.Peer.Services)
	}
	if len(p3.Peer.Services) != len(top.Chaincodes) {
		t.Errorf("%d services for %d chaincodes", len(p3.Peer.Services), len(top.Chaincodes))
	}
	for _, bad := range []struct{ name, host, want string }{
		{"party3", "10.0.0.15", "twice"},
		{"Party/4", "10.0.0.15", "DNS label"},
		{"", "10.0.0.15", "DNS label"},
		{"party4", "10.0.0.15,x", "neither an IP address"},
	} {
		n := len(top.Orgs)
		if err := top.AddOrg(bad.name, bad.host, 7050); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("AddOrg(%q, %q) = %v, want an error containing %q", bad.name, bad.host, err, bad.want)
		}
		if len(top.Orgs) != n {
			t.Errorf("a refused AddOrg(%q) changed the topology", bad.name)
		}
	}
}

func TestOrgConfigtx(t *testing.T) {
	o := &PeerOrg{MSPID: "Party3MSP", Host: "fd00::14", Peer: Peer{Port: 7180}}
	b, err := OrgConfigtx(o, "/h/received/party3/msp")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`Name: "Party3MSP"`, `MSPDir: "/h/received/party3/msp"`, `{Host: "fd00::14", Port: 7180}`, "OR('Party3MSP.admin')"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("configtx for -printOrg lacks %q:\n%s", want, b)
		}
	}
}

// TestAddOrgRefusedUnderSignatureWriters: an organisation added to a
// channel whose Writers names each organisation would be no writer; fabnet
// refuses instead of leaving it so.
func TestAddOrgRefusedUnderSignatureWriters(t *testing.T) {
	top := threeOrgs(t, nil)
	top.Writers = WritersSignature
	n := len(top.Orgs)
	if err := top.AddOrg("party3", "", 7050); err == nil || !strings.Contains(err.Error(), "signature policy") {
		t.Fatalf("AddOrg under the signature Writers policy: %v", err)
	}
	if len(top.Orgs) != n {
		t.Fatalf("a refused AddOrg left %d organisations, want %d", len(top.Orgs), n)
	}
}
