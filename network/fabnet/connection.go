package fabnet

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fabvote/fabvote/internal/atomicfile"
	"github.com/fabvote/fabvote/network/netjson"
)

// WriteConnection writes the org's network.json: every org's peer at its
// topology address with the TLS root from its bundle, the orderers, and
// the identities of this org only.
func WriteConnection(t *Topology, h Home) error {
	n := netjson.Network{Profile: "multi-host", Channel: t.Channel, RunDir: h.Dir}
	for _, cc := range t.Chaincodes {
		n.Chaincodes = append(n.Chaincodes, cc.Name)
	}
	for i := range t.Orgs {
		n.Orgs = append(n.Orgs, h.connectionOrg(t, &t.Orgs[i]))
	}
	oo := t.OrdererOrg
	n.Orderers = orderers(oo, h.orgTLSCA(oo.Name, oo.Domain))
	if h.Org == oo.Name {
		n.OrdererAdmin = tlsClient(h.Crypto(), "Admin", oo.Domain)
		n.OrdererAdmin.TLSCACert = h.tlsCA(oo.Domain)
	}
	b, err := json.MarshalIndent(n, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(h.NetworkJSON(), append(b, '\n'), 0o600)
}

func (h Home) connectionOrg(t *Topology, o *PeerOrg) netjson.Org {
	ca := h.orgTLSCA(o.Name, o.Domain)
	org := netjson.Org{Name: o.Name, MSPID: o.MSPID, Domain: o.Domain, TLSCACert: ca,
		Peers: []netjson.Peer{{Name: o.Peer.Name + "." + o.Domain, Endpoint: o.peerEndpoint(), TLSCACert: ca,
			ServerNameOverride: o.Peer.Name + "." + o.Domain,
			OperationsEndpoint: net.JoinHostPort(o.Host, strconv.Itoa(o.Peer.OpsPort))}},
		Identities: map[string]netjson.Identity{}}
	if o.Name != h.Org {
		return org
	}
	org.Identities = identities(h.Crypto(), o.Domain)
	org.ChaincodeServices = chaincodeServices(t, o, true)
	org.MonitoringClient = tlsClient(h.Crypto(), "User1", o.Domain)
	return org
}

// The functions below describe, for network.json, files in one
// organisation's crypto directory dir (cryptogen's layout of an
// organisation, which network/fabca writes too): a Home's crypto
// directory, or an organisation's directory in a Layout.

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

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// WaitGateway waits until the org's gateway, with the org's network.json,
// can gather endorsements for every chaincode, so that its clients can
// submit at once (net.sh up waits the same way, with netready).
func WaitGateway(ctx context.Context, h Home) error {
	n, err := netjson.Load(h.NetworkJSON())
	if err != nil {
		return err
	}
	timeout := 2 * time.Minute
	if d, ok := ctx.Deadline(); ok {
		timeout = time.Until(d)
	}
	for i := range n.Orgs {
		if n.Orgs[i].Name == h.Org {
			return n.WaitEndorsable(&n.Orgs[i], timeout)
		}
	}
	return fmt.Errorf("%s: no organisation %s in %s", h.Org, h.Org, h.NetworkJSON())
}
