package fabnet

import (
	"encoding/json"
	"net"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

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
	for _, o := range oo.Orderers {
		n.Orderers = append(n.Orderers, netjson.Orderer{Name: o.Name, MSPID: oo.MSPID,
			Endpoint:  net.JoinHostPort(oo.HostOf(o), strconv.Itoa(o.Port)),
			TLSCACert: h.orgTLSCA(oo.Name, oo.Domain), ServerNameOverride: o.Name + "." + oo.Domain,
			AdminEndpoint:      net.JoinHostPort(oo.HostOf(o), strconv.Itoa(o.AdminPort)),
			OperationsEndpoint: net.JoinHostPort(oo.HostOf(o), strconv.Itoa(o.OpsPort))})
	}
	if h.Org == oo.Name {
		admin := filepath.Join(h.user("Admin", oo.Domain), "tls")
		n.OrdererAdmin = netjson.TLSClient{Cert: filepath.Join(admin, "client.crt"), Key: filepath.Join(admin, "client.key"), TLSCACert: h.tlsCA(oo.Domain)}
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
	for _, u := range []string{"Admin", "User1", "User2"} {
		msp := filepath.Join(h.user(u, o.Domain), "msp")
		org.Identities[strings.ToLower(u)] = netjson.Identity{Cert: filepath.Join(msp, "signcerts", u+"@"+o.Domain+"-cert.pem"),
			Key: filepath.Join(msp, "keystore", "priv_sk")}
	}
	for k, cc := range t.Chaincodes {
		s := o.Peer.Services[k]
		svc := netjson.ChaincodeService{Name: cc.Name, Endpoint: net.JoinHostPort("127.0.0.1", strconv.Itoa(s.Port))}
		if cc.Ballot && s.OpsPort != 0 {
			svc.OperationsEndpoint = net.JoinHostPort(o.Host, strconv.Itoa(s.OpsPort))
		}
		org.ChaincodeServices = append(org.ChaincodeServices, svc)
	}
	user1 := filepath.Join(h.user("User1", o.Domain), "tls")
	org.MonitoringClient = netjson.TLSClient{Cert: filepath.Join(user1, "client.crt"), Key: filepath.Join(user1, "client.key")}
	return org
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
