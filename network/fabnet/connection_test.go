package fabnet

import (
	"testing"
)

// TestOrgConnection: one organisation's network.json names every peer and
// orderer with its organisation's TLS root, and the identities, chaincode
// services and orderer admin of that organisation only.
func TestOrgConnection(t *testing.T) {
	top := threeOrgs(t, map[string]string{"party1": "10.0.0.2"})
	roots := map[string]string{"orderer": "/o/ca.pem", "ea": "/e/ca.pem", "party1": "/p1/ca.pem", "party2": "/p2/ca.pem"}
	tests := []struct {
		org        string
		own        int // index of the organisation in n.Orgs; -1 for the orderer org
		admin      bool
		wantAdmins string
	}{
		{"party1", 1, false, ""},
		{"orderer", -1, true, "/home/crypto/users/Admin@orderer.fabvote.local/tls/client.crt"},
	}
	for _, tc := range tests {
		t.Run(tc.org, func(t *testing.T) {
			n := OrgConnection{Org: tc.org, RunDir: "/home", Crypto: "/home/crypto", TLSCA: roots}.Network(top)
			if n.Profile != "multi-host" || n.RunDir != "/home" || len(n.Orgs) != 3 || len(n.Orderers) != 3 {
				t.Fatalf("network %+v", n)
			}
			for i, o := range n.Orgs {
				if o.TLSCACert != roots[o.Name] || o.Peers[0].TLSCACert != roots[o.Name] {
					t.Errorf("%s verified with %s, want its own root %s", o.Name, o.TLSCACert, roots[o.Name])
				}
				if own := i == tc.own; own != (len(o.Identities) == 3) || own != (len(o.ChaincodeServices) == 2) {
					t.Errorf("%s: %d identities, %d services; only %s's are given", o.Name, len(o.Identities), len(o.ChaincodeServices), tc.org)
				}
			}
			if p1 := n.Orgs[1].Peers[0]; p1.Endpoint != "10.0.0.2:7160" || p1.OperationsEndpoint != "10.0.0.2:7162" {
				t.Errorf("party1's peer at %s (operations %s), want its topology address", p1.Endpoint, p1.OperationsEndpoint)
			}
			if n.Orderers[0].TLSCACert != "/o/ca.pem" {
				t.Errorf("orderer verified with %s", n.Orderers[0].TLSCACert)
			}
			if n.OrdererAdmin.Cert != tc.wantAdmins || (n.OrdererAdmin.TLSCACert != "") != tc.admin {
				t.Errorf("orderer admin %+v, want %q", n.OrdererAdmin, tc.wantAdmins)
			}
		})
	}
}
