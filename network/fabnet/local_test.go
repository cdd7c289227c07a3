package fabnet

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/fabvote/fabvote/network/netjson"
	"github.com/fabvote/fabvote/network/portplan"
)

func TestCryptogenConfig(t *testing.T) {
	containers, err := Containers("three-orgs", testChaincodes())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, serviceHost string
		top               *Topology
		ordererSANs       [][]string // per orderer
		peerSANs          []string   // of ea's peer
		serviceSANs       []string   // of ea's service identity
	}{
		{"three-orgs on this host", "ccaas0", threeOrgs(t, nil),
			[][]string{{"localhost", "127.0.0.1"}, {"localhost", "127.0.0.1"}, {"localhost", "127.0.0.1"}},
			[]string{"localhost", "127.0.0.1"}, []string{"localhost", "127.0.0.1"}},
		{"three-orgs as containers", "ballot-cc", containers,
			[][]string{{"localhost", "127.0.0.1", "orderer0.orderer.fabvote.local"}, {"localhost", "127.0.0.1", "orderer1.orderer.fabvote.local"},
				{"localhost", "127.0.0.1", "orderer2.orderer.fabvote.local"}},
			[]string{"localhost", "127.0.0.1", "peer0.ea.fabvote.local"},
			[]string{"localhost", "127.0.0.1", "ballot-cc.ea.fabvote.local", "registry-cc.ea.fabvote.local"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			text, err := CryptogenConfig(tc.top, tc.serviceHost)
			if err != nil {
				t.Fatal(err)
			}
			var c cryptogenConfig
			if err := yaml.Unmarshal(text, &c); err != nil {
				t.Fatalf("does not parse: %v\n%s", err, text)
			}
			if len(c.OrdererOrgs) != 1 || c.OrdererOrgs[0].Domain != "orderer.fabvote.local" || !c.OrdererOrgs[0].EnableNodeOUs {
				t.Fatalf("orderer orgs %+v", c.OrdererOrgs)
			}
			for i, s := range c.OrdererOrgs[0].Specs {
				if s.Hostname != tc.top.OrdererOrg.Orderers[i].Name || !reflect.DeepEqual(s.SANS, tc.ordererSANs[i]) {
					t.Errorf("orderer spec %d: %+v, want SANs %v", i, s, tc.ordererSANs[i])
				}
			}
			if len(c.PeerOrgs) != len(tc.top.Orgs) {
				t.Fatalf("%d peer orgs, want %d", len(c.PeerOrgs), len(tc.top.Orgs))
			}
			ea := c.PeerOrgs[0]
			if ea.Name != "EAMSP" || ea.Domain != "ea.fabvote.local" || ea.Users == nil || ea.Users.Count != 2 || len(ea.Specs) != 2 {
				t.Fatalf("ea: %+v", ea)
			}
			if ea.Specs[0].Hostname != "peer0" || !reflect.DeepEqual(ea.Specs[0].SANS, tc.peerSANs) {
				t.Errorf("ea's peer spec %+v, want SANs %v", ea.Specs[0], tc.peerSANs)
			}
			if ea.Specs[1].Hostname != tc.serviceHost || !reflect.DeepEqual(ea.Specs[1].SANS, tc.serviceSANs) {
				t.Errorf("ea's service spec %+v, want %s with SANs %v", ea.Specs[1], tc.serviceHost, tc.serviceSANs)
			}
		})
	}
}

func TestLayoutConfigtxFiles(t *testing.T) {
	top := threeOrgs(t, nil)
	f := Layout{Dir: "/r/crypto"}.ConfigtxFiles(top)
	if f.OrdererMSP != "/r/crypto/ordererOrganizations/orderer.fabvote.local/msp" {
		t.Errorf("orderer MSP %s", f.OrdererMSP)
	}
	if got := f.MSP["party1"]; got != "/r/crypto/peerOrganizations/party1.fabvote.local/msp" {
		t.Errorf("party1 MSP %s", got)
	}
	if got := f.ConsenterCert["orderer2"]; got != "/r/crypto/ordererOrganizations/orderer.fabvote.local/orderers/orderer2.orderer.fabvote.local/tls/server.crt" {
		t.Errorf("orderer2 certificate %s", got)
	}
	if len(f.MSP) != 3 || len(f.ConsenterCert) != 3 {
		t.Errorf("%d MSPs and %d certificates, want 3 and 3", len(f.MSP), len(f.ConsenterCert))
	}
}

func TestLocalConnection(t *testing.T) {
	c := LocalConnection{Profile: "three-orgs", RunDir: "/r", BasePort: 7050, Crypto: Layout{Dir: "/r/crypto"}}
	n := c.Network(threeOrgs(t, nil))
	if n.Profile != "three-orgs" || n.Channel != "fabvote" || n.RunDir != "/r" || n.BasePort != 7050 {
		t.Errorf("header %+v", n)
	}
	if n.Batch == nil || n.Batch.MaxMessageCount != 500 || n.Batch.Timeout != "250ms" {
		t.Errorf("batch %+v", n.Batch)
	}
	if !reflect.DeepEqual(n.Chaincodes, []string{"ballot", "registry"}) {
		t.Errorf("chaincodes %v", n.Chaincodes)
	}
	party1 := n.Orgs[1]
	ca := "/r/crypto/peerOrganizations/party1.fabvote.local/tlsca/tlsca.party1.fabvote.local-cert.pem"
	wantPeer := netjson.Peer{Name: "peer0.party1", Endpoint: "127.0.0.1:7160", TLSCACert: ca,
		ServerNameOverride: "peer0.party1.fabvote.local", OperationsEndpoint: "127.0.0.1:7162"}
	if party1.MSPID != "Party1MSP" || party1.TLSCACert != ca || len(party1.Peers) != 1 || party1.Peers[0] != wantPeer {
		t.Errorf("party1 %+v, want peer %+v", party1, wantPeer)
	}
	users := "/r/crypto/peerOrganizations/party1.fabvote.local/users/"
	wantAdmin := netjson.Identity{Cert: users + "Admin@party1.fabvote.local/msp/signcerts/Admin@party1.fabvote.local-cert.pem",
		Key: users + "Admin@party1.fabvote.local/msp/keystore/priv_sk"}
	if party1.Identities["admin"] != wantAdmin || len(party1.Identities) != 3 {
		t.Errorf("party1 identities %+v", party1.Identities)
	}
	wantServices := []netjson.ChaincodeService{{Name: "ballot", Endpoint: "127.0.0.1:7163", OperationsEndpoint: "127.0.0.1:7260"},
		{Name: "registry", Endpoint: "127.0.0.1:7164"}}
	if !reflect.DeepEqual(party1.ChaincodeServices, wantServices) {
		t.Errorf("party1 services %+v, want %+v", party1.ChaincodeServices, wantServices)
	}
	if party1.MonitoringClient.Cert != users+"User1@party1.fabvote.local/tls/client.crt" {
		t.Errorf("monitoring client %+v", party1.MonitoringClient)
	}
	o2 := n.Orderers[2]
	if o2.Endpoint != "127.0.0.1:7070" || o2.AdminEndpoint != "127.0.0.1:7071" || o2.OperationsEndpoint != "127.0.0.1:7072" ||
		o2.ServerNameOverride != "orderer2.orderer.fabvote.local" || o2.MSPID != "OrdererMSP" {
		t.Errorf("orderer2 %+v", o2)
	}
	admin := "/r/crypto/ordererOrganizations/orderer.fabvote.local/users/Admin@orderer.fabvote.local/tls/"
	if n.OrdererAdmin.Cert != admin+"client.crt" || n.OrdererAdmin.Key != admin+"client.key" || n.OrdererAdmin.TLSCACert != o2.TLSCACert {
		t.Errorf("orderer admin %+v", n.OrdererAdmin)
	}
}

// The Docker network's two views: from the host, published ports on
// 127.0.0.1 and no chaincode gRPC endpoint; from the tools container,
// every node by its container name.
func TestLocalConnectionViews(t *testing.T) {
	host := LocalConnection{Profile: "docker", Crypto: Layout{Dir: "/d/crypto"}, ServicesUnpublished: true}.Network(threeOrgs(t, nil))
	if s := host.Orgs[0].ChaincodeServices[0]; s.Endpoint != "" || s.OperationsEndpoint != "127.0.0.1:7250" {
		t.Errorf("host view: ea's ballot service %+v", s)
	}
	containers, err := Containers("three-orgs", testChaincodes())
	if err != nil {
		t.Fatal(err)
	}
	in := LocalConnection{Profile: "docker", Crypto: Layout{Dir: "/etc/fabvote/crypto"}}.Network(containers)
	ea := in.Orgs[0]
	if ea.Peers[0].Endpoint != "peer0.ea.fabvote.local:7051" || ea.Peers[0].OperationsEndpoint != "peer0.ea.fabvote.local:9443" {
		t.Errorf("container view: ea's peer %+v", ea.Peers[0])
	}
	if s := ea.ChaincodeServices[0]; s.Endpoint != "ballot-cc.ea.fabvote.local:9999" || s.OperationsEndpoint != "ballot-cc.ea.fabvote.local:9443" {
		t.Errorf("container view: ea's ballot service %+v", s)
	}
	var endpoints []string
	for _, o := range in.Orderers {
		endpoints = append(endpoints, o.Endpoint, o.AdminEndpoint)
	}
	want := []string{"orderer0.orderer.fabvote.local:7050", "orderer0.orderer.fabvote.local:7053", "orderer1.orderer.fabvote.local:7050",
		"orderer1.orderer.fabvote.local:7053", "orderer2.orderer.fabvote.local:7050", "orderer2.orderer.fabvote.local:7053"}
	if !slices.Equal(endpoints, want) {
		t.Errorf("container view: orderers %v, want %v", endpoints, want)
	}
	if !filepath.IsAbs(ea.Identities["user1"].Key) {
		t.Errorf("container view: user1 key %q", ea.Identities["user1"].Key)
	}
}

// TestCheckPortsFree names a port of the plan that something listens on,
// the process that holds it and BASE_PORT, and only that port.
func TestCheckPortsFree(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	top, err := Profile("solo-org", port-portplan.OrdererOrgCA(0), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckPortsFree(top, "demo", false); err != nil {
		t.Errorf("without CAs: %v, want none taken", err)
	}
	err = CheckPortsFree(top, "demo", true)
	want := []string{fmt.Sprintf("127.0.0.1:%d", port), "demo: the orderer org's CAs (MSP CA)", fmt.Sprintf("pid %d", os.Getpid()), "set BASE_PORT"}
	for _, w := range want {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Fatalf("with CAs: %v; want it to name %q", err, w)
		}
	}
	if n := strings.Count(err.Error(), "is taken by"); n != 1 {
		t.Errorf("with CAs: %d ports named, want 1:\n%v", n, err)
	}
}
