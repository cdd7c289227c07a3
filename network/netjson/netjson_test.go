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
		{"no msp id", strings.Replace(good, `"mspID":"EAMSP"`, `"mspID":""`, 1), "mspID"},
		{"no peers", `{"channel":"c","orgs":[{"name":"ea","mspID":"X","peers":[]}]}`, "peers"},
		{"peer without endpoint", strings.Replace(good, `"endpoint":"127.0.0.1:7150",`, ``, 1), "endpoint"},
		{"not json", `{`, "network.json"},
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
