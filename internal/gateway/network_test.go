package gateway

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// goodNetwork is a two-org network description: ea with an admin identity
// and a relative TLS CA path, party1 with a peer and no identities.
const goodNetwork = `{"profile":"solo-org","channel":"fabvote","chaincodes":["ballot"],
	 "orgs":[{"name":"ea","mspID":"EAMSP","peers":[{"name":"peer0","endpoint":"127.0.0.1:7051","tlsCACert":"ca.pem"}],
	   "identities":{"admin":{"cert":"/abs/c.pem","key":"k.pem"}}},
	  {"name":"party1","mspID":"Party1MSP","peers":[{"name":"p1","endpoint":"127.0.0.1:8051"}]}]}`

// loadGoodNetwork writes goodNetwork into dir and loads it.
func loadGoodNetwork(t *testing.T, dir string) *Network {
	t.Helper()
	p := filepath.Join(dir, "net.json")
	os.WriteFile(p, []byte(goodNetwork), 0o644)
	n, err := LoadNetwork(p)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestLoadNetwork(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, data, want string
	}{
		{"no channel", `{"orgs":[]}`, "no channel"},
		{"no orgs", `{"channel":"c"}`, "no orgs"},
		{"no peers", `{"channel":"c","orgs":[{"name":"x","mspID":"X"}]}`, "has no peers"},
		{"bad json", `{`, "network"},
	}
	for _, tc := range tests {
		p := filepath.Join(dir, tc.name+".json")
		os.WriteFile(p, []byte(tc.data), 0o644)
		if _, err := LoadNetwork(p); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want mention of %q", tc.name, err, tc.want)
		}
	}
	n := loadGoodNetwork(t, dir)
	o, err := n.Org("party1msp")
	if err != nil || o.Name != "party1" {
		t.Fatalf("Org(party1msp) = %v, %v", o, err)
	}
	ea, _ := n.Org("")
	if ea.Peers[0].TLSCACert != filepath.Join(dir, "ca.pem") {
		t.Fatalf("relative path not resolved: %s", ea.Peers[0].TLSCACert)
	}
	if ea.Identities["admin"].Cert != "/abs/c.pem" {
		t.Fatalf("absolute path changed: %s", ea.Identities["admin"].Cert)
	}
	if _, err := n.Org("nope"); err == nil || !strings.Contains(err.Error(), "ea/EAMSP") {
		t.Fatalf("unknown org error %v should list the orgs", err)
	}
}
