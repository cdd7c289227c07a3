package fabnet

import (
	"encoding/json"
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

func TestWithOrg(t *testing.T) {
	config := json.RawMessage(`{"channel_group":{"groups":{"Application":{"groups":{"EAMSP":{"values":{}}},"mod_policy":"Admins"}},"version":"3"}}`)
	group := map[string]any{"values": map[string]any{"MSP": map[string]any{}}}
	updated, err := withOrg(config, "Party3MSP", group)
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]any
	if err := json.Unmarshal(updated, &c); err != nil {
		t.Fatal(err)
	}
	app, err := dig(c, "channel_group", "groups", "Application", "groups")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := app["Party3MSP"]; !ok {
		t.Errorf("Party3MSP not added: %s", updated)
	}
	if _, ok := app["EAMSP"]; !ok {
		t.Errorf("EAMSP lost: %s", updated)
	}
	if _, err := withOrg(config, "EAMSP", group); err == nil || !strings.Contains(err.Error(), "already on the channel") {
		t.Errorf("adding an org already there: %v", err)
	}
	if _, err := withOrg(json.RawMessage(`{"channel_group":{}}`), "Party3MSP", group); err == nil || !strings.Contains(err.Error(), "no groups") {
		t.Errorf("a config without Application groups: %v", err)
	}
}

func TestOrgTemplate(t *testing.T) {
	var b strings.Builder
	if err := orgTemplate.Execute(&b, configtxOrg{Anchor: "fabvote_new_org", MSPID: "Party3MSP", MSPDir: "/h/received/party3/msp", Host: "fd00::14", Port: 7180}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`Name: "Party3MSP"`, `MSPDir: "/h/received/party3/msp"`, `{Host: "fd00::14", Port: 7180}`, "OR('Party3MSP.admin')"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("configtx for -printOrg lacks %q:\n%s", want, b.String())
		}
	}
}
