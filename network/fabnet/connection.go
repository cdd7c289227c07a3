package fabnet

import (
	"net"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/fabvote/fabvote/network/netjson"
)

// OrgConnection describes, for network.json, the network as one
// organisation of a multi-host network sees it from its home: every
// organisation's peer and the orderers, verified with each organisation's
// TLS root, and the identities of this organisation only.
type OrgConnection struct {
	Org    string // the organisation whose clients read it
	RunDir string // its home
	Crypto string // its crypto directory, in cryptogen's layout of one organisation
	// TLSCA is every organisation's TLS root certificate, by name: its
	// own, and the others' from their bundles.
	TLSCA map[string]string
}

// Network returns the network.json content.
func (c OrgConnection) Network(t *Topology) netjson.Network {
	n := netjson.Network{Profile: "multi-host", Channel: t.Channel, RunDir: c.RunDir}
	for _, cc := range t.Chaincodes {
		n.Chaincodes = append(n.Chaincodes, cc.Name)
	}
	for i := range t.Orgs {
		n.Orgs = append(n.Orgs, c.org(t, &t.Orgs[i]))
	}
	oo := t.OrdererOrg
	n.Orderers = orderers(oo, c.TLSCA[oo.Name])
	if c.Org == oo.Name {
		n.OrdererAdmin = tlsClient(c.Crypto, "Admin", oo.Domain)
		n.OrdererAdmin.TLSCACert = c.TLSCA[oo.Name]
	}
	return n
}

func (c OrgConnection) org(t *Topology, o *PeerOrg) netjson.Org {
	ca := c.TLSCA[o.Name]
	org := netjson.Org{Name: o.Name, MSPID: o.MSPID, Domain: o.Domain, TLSCACert: ca,
		Peers: []netjson.Peer{{Name: o.Peer.Name + "." + o.Domain, Endpoint: o.PeerEndpoint(), TLSCACert: ca,
			ServerNameOverride: o.Peer.Name + "." + o.Domain, OperationsEndpoint: hostPort(o.Host, o.Peer.OpsPort)}},
		Identities: map[string]netjson.Identity{}}
	if o.Name != c.Org {
		return org
	}
	org.Identities = identities(c.Crypto, o.Domain)
	org.ChaincodeServices = chaincodeServices(t, o, true)
	org.MonitoringClient = tlsClient(c.Crypto, "User1", o.Domain)
	return org
}

// The functions below describe, for network.json, files in one
// organisation's crypto directory dir (cryptogen's layout of an
// organisation, which network/fabca writes too): an organisation's own
// crypto directory, or an organisation's directory in a Layout.

// identities are the organisation's users, by network.json's names.
func identities(dir, domain string) map[string]netjson.Identity {
	ids := map[string]netjson.Identity{}
	for _, u := range []string{"Admin", "User1", "User2"} {
		msp := filepath.Join(dir, "users", u+"@"+domain, "msp")
		ids[strings.ToLower(u)] = netjson.Identity{Cert: filepath.Join(msp, "signcerts", u+"@"+domain+"-cert.pem"),
			Key: filepath.Join(msp, "keystore", "priv_sk")}
	}
	return ids
}

// tlsClient is a user's TLS client pair.
func tlsClient(dir, user, domain string) netjson.TLSClient {
	tls := filepath.Join(dir, "users", user+"@"+domain, "tls")
	return netjson.TLSClient{Cert: filepath.Join(tls, "client.crt"), Key: filepath.Join(tls, "client.key")}
}

// orderers are the ordering organisation's orderers at their hosts,
// verified with the TLS root ca.
func orderers(oo OrdererOrg, ca string) []netjson.Orderer {
	var list []netjson.Orderer
	for _, o := range oo.Orderers {
		host := oo.HostOf(o)
		list = append(list, netjson.Orderer{Name: o.Name, MSPID: oo.MSPID, Endpoint: hostPort(host, o.Port), TLSCACert: ca,
			ServerNameOverride: o.Name + "." + oo.Domain, AdminEndpoint: hostPort(host, o.AdminPort), OperationsEndpoint: hostPort(host, o.OpsPort)})
	}
	return list
}

// chaincodeServices are the org's chaincode services: a service beside its
// peer listens on the peer's loopback, one with a host of its own (a
// container) there; only the ballot contract serves operations, on the
// service's host. Unpublished, clients get no gRPC endpoint.
func chaincodeServices(t *Topology, o *PeerOrg, published bool) []netjson.ChaincodeService {
	var list []netjson.ChaincodeService
	for k, cc := range t.Chaincodes {
		s := o.Peer.Services[k]
		svc := netjson.ChaincodeService{Name: cc.Name}
		if published {
			host := s.Host
			if host == "" {
				host = "127.0.0.1"
			}
			svc.Endpoint = hostPort(host, s.Port)
		}
		if cc.Ballot && s.OpsPort != 0 {
			svc.OperationsEndpoint = hostPort(o.hostOf(s), s.OpsPort)
		}
		list = append(list, svc)
	}
	return list
}

func hostPort(host string, port int) string { return net.JoinHostPort(host, strconv.Itoa(port)) }
