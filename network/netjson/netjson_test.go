package netjson

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoad(t *testing.T) {
	good := `{"profile":"solo-org","channel":"fabvote","chaincodes":["kv"],
	  "orgs":[{"name":"ea","mspID":"EAMSP","peers":[{"name":"peer0.ea","endpoint":"127.0.0.1:7150","tlsCACert":"/ca.pem"}],
	    "identities":{"user1":{"cert":"/c","key":"/k"}}}],
	  "orderers":[{"name":"orderer0","endpoint":"127.0.0.1:7050","tlsCACert":"/o.pem","adminEndpoint":"127.0.0.1:7051"}]}`
	tests := []struct {
		name, body, wantErr string
	}{
		{"complete", good, ""},
		{"no channel", strings.Replace(good, `"channel":"fabvote"`, `"channel":""`, 1), "channel"},
		{"no orgs", `{"channel":"c","orgs":[]}`, "orgs"},
		{"no msp id", strings.Replace(good, `"mspID":"EAMSP"`, `"mspID":""`, 1), "has no mspID"},
		{"no peers", `{"channel":"c","orgs":[{"name":"ea","mspID":"X","peers":[]}]}`, "has no peers"},
		{"peer without endpoint", strings.Replace(good, `"endpoint":"127.0.0.1:7150",`, ``, 1), "endpoint"},
		{"not json", `{`, "unexpected end of JSON"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "network.json")
			if err := os.WriteFile(path, []byte(tc.body), 0o644); err != nil {
				t.Fatal(err)
			}
			n, err := Load(path)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want one naming %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			org, err := n.Org("ea")
			if err != nil || org.Peers[0].Endpoint != "127.0.0.1:7150" || n.Orderers[0].AdminEndpoint != "127.0.0.1:7051" {
				t.Fatalf("org = %+v, %v; orderers = %+v", org, err, n.Orderers)
			}
			if _, err := n.Org("party9"); err == nil {
				t.Fatal("Org(party9) succeeded")
			}
			if _, _, err := org.Connect("nobody", 0); err == nil || !strings.Contains(err.Error(), `"nobody"`) {
				t.Fatalf("Connect with an unknown identity: error = %v, want one naming it", err)
			}
		})
	}
}

// Relative paths, in every field that names a file, are taken relative to
// the file's directory; absolute ones are kept.
func TestLoadResolvesRelativePaths(t *testing.T) {
	dir := t.TempDir()
	body := `{"channel":"c","ordererAdmin":{"cert":"oa.crt","key":"/abs/oa.key","tlsCACert":"oca.pem"},
	  "orderers":[{"name":"o0","endpoint":"x","tlsCACert":"o.pem"}],
	  "orgs":[{"name":"ea","mspID":"EAMSP","tlsCACert":"ca.pem","peers":[{"endpoint":"x","tlsCACert":"p.pem"}],
	    "identities":{"user1":{"cert":"u.crt","key":"/abs/u.key"}},"monitoringClient":{"cert":"m.crt","key":"m.key"}}]}`
	path := filepath.Join(dir, "network.json")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	n, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	o := n.Orgs[0]
	for got, want := range map[string]string{
		n.OrdererAdmin.Cert: "oa.crt", n.OrdererAdmin.Key: "/abs/oa.key", n.OrdererAdmin.TLSCACert: "oca.pem",
		n.Orderers[0].TLSCACert: "o.pem", o.TLSCACert: "ca.pem", o.Peers[0].TLSCACert: "p.pem",
		o.Identities["user1"].Cert: "u.crt", o.Identities["user1"].Key: "/abs/u.key",
		o.MonitoringClient.Cert: "m.crt", o.MonitoringClient.Key: "m.key",
	} {
		if !filepath.IsAbs(want) {
			want = filepath.Join(dir, want)
		}
		if got != want {
			t.Errorf("path %q, want %q", got, want)
		}
	}
	if org, err := n.Org("eamsp"); err != nil || org.Name != "ea" {
		t.Errorf("Org(eamsp) = %v, %v; want ea by its MSP id, ignoring case", org, err)
	}
}
