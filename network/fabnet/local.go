package fabnet

import (
	"path/filepath"
	"slices"

	"gopkg.in/yaml.v3"

	"github.com/fabvote/fabvote/network/netjson"
	"github.com/fabvote/fabvote/network/portplan"
)

// The single-host networks (network/net.sh's native processes and the
// Docker network) keep every organisation's files under one crypto
// directory, in cryptogen's layout, which network/fabca writes too. The
// functions here generate their cryptogen configuration and their
// network.json from the topology.

// cryptogenConfig is cryptogen's crypto-config.yaml.
type cryptogenConfig struct {
	OrdererOrgs []cryptogenOrg `yaml:"OrdererOrgs"`
	PeerOrgs    []cryptogenOrg `yaml:"PeerOrgs"`
}

type cryptogenOrg struct {
	Name          string          `yaml:"Name"`
	Domain        string          `yaml:"Domain"`
	EnableNodeOUs bool            `yaml:"EnableNodeOUs"`
	Specs         []cryptogenSpec `yaml:"Specs"`
	Users         *cryptogenUsers `yaml:"Users,omitempty"`
}

type cryptogenSpec struct {
	Hostname string   `yaml:"Hostname"`
	SANS     []string `yaml:"SANS"`
}

type cryptogenUsers struct {
	Count int `yaml:"Count"`
}

// CryptogenConfig returns cryptogen's configuration for the topology: the
// orderers of the ordering organisation; for each peer organisation its
// peer, serviceHost (the TLS server identity of its chaincode services),
// an Admin, User1 and User2. Every node's certificate also names
// localhost, 127.0.0.1 and its host in the topology.
func CryptogenConfig(t *Topology, serviceHost string) ([]byte, error) {
	oo := t.OrdererOrg
	orderers := cryptogenOrg{Name: "Orderer", Domain: oo.Domain, EnableNodeOUs: true}
	for _, o := range oo.Orderers {
		orderers.Specs = append(orderers.Specs, cryptogenSpec{Hostname: o.Name, SANS: sans(oo.HostOf(o))})
	}
	c := cryptogenConfig{OrdererOrgs: []cryptogenOrg{orderers}}
	for _, o := range t.Orgs {
		org := cryptogenOrg{Name: o.MSPID, Domain: o.Domain, EnableNodeOUs: true, Users: &cryptogenUsers{Count: 2}}
		org.Specs = append(org.Specs, cryptogenSpec{Hostname: o.Peer.Name, SANS: sans(o.Host)})
		serviceSANs := sans("127.0.0.1")
		for _, s := range o.Peer.Services {
			if s.Host != "" && !slices.Contains(serviceSANs, s.Host) {
				serviceSANs = append(serviceSANs, s.Host)
			}
		}
		org.Specs = append(org.Specs, cryptogenSpec{Hostname: serviceHost, SANS: serviceSANs})
		c.PeerOrgs = append(c.PeerOrgs, org)
	}
	return yaml.Marshal(c)
}

func sans(host string) []string {
	s := []string{"localhost", "127.0.0.1"}
	if !slices.Contains(s, host) {
		s = append(s, host)
	}
	return s
}

// Layout names the files of a cryptogen output tree rooted at Dir.
type Layout struct{ Dir string }

func (l Layout) PeerOrgDir(domain string) string {
	return filepath.Join(l.Dir, "peerOrganizations", domain)
}

func (l Layout) OrdererOrgDir(domain string) string {
	return filepath.Join(l.Dir, "ordererOrganizations", domain)
}

// user is a user's directory in an organisation's directory.
func (l Layout) user(orgDir, name, domain string) string {
	return filepath.Join(orgDir, "users", name+"@"+domain)
}

// node is a node's directory of kind (peers, orderers) in an
// organisation's directory.
func (l Layout) node(orgDir, kind, name, domain string) string {
	return filepath.Join(orgDir, kind, name+"."+domain)
}

func (l Layout) tlsCA(orgDir, domain string) string {
	return filepath.Join(orgDir, "tlsca", "tlsca."+domain+"-cert.pem")
}

// LocalConnection describes, for network.json, a network whose
// organisations' files are all in one Layout.
type LocalConnection struct {
	Profile  string
	RunDir   string
	BasePort int
	Crypto   Layout
	// ServicesUnpublished: clients cannot reach the chaincode services'
	// gRPC ports (the Docker network publishes only their operations
	// ports), so network.json gives them no endpoint.
	ServicesUnpublished bool
}

// Network returns the network.json content: every organisation with its
// peer, chaincode services and identities, and the orderers, at the
// addresses of the topology.
func (c LocalConnection) Network(t *Topology) netjson.Network {
	b := t.Batch
	n := netjson.Network{Profile: c.Profile, Channel: t.Channel, RunDir: c.RunDir, BasePort: c.BasePort,
		Batch:   &netjson.Batch{MaxMessageCount: b.MaxMessageCount, Timeout: b.Timeout, PreferredMaxBytes: b.PreferredMaxBytes},
		Writers: t.WritersName()}
	for _, cc := range t.Chaincodes {
		n.Chaincodes = append(n.Chaincodes, cc.Name)
	}
	for i := range t.Orgs {
		n.Orgs = append(n.Orgs, c.org(t, &t.Orgs[i]))
	}
	oo := t.OrdererOrg
	dir := c.Crypto.OrdererOrgDir(oo.Domain)
	ca := c.Crypto.tlsCA(dir, oo.Domain)
	n.Orderers = orderers(oo, ca)
	n.OrdererAdmin = tlsClient(dir, "Admin", oo.Domain)
	n.OrdererAdmin.TLSCACert = ca
	return n
}

func (c LocalConnection) org(t *Topology, o *PeerOrg) netjson.Org {
	dir := c.Crypto.PeerOrgDir(o.Domain)
	ca := c.Crypto.tlsCA(dir, o.Domain)
	org := netjson.Org{Name: o.Name, MSPID: o.MSPID, Domain: o.Domain, TLSCACert: ca,
		Peers: []netjson.Peer{{Name: o.Peer.Name + "." + o.Name, Endpoint: hostPort(o.Host, o.Peer.Port), TLSCACert: ca,
			ServerNameOverride: o.Peer.Name + "." + o.Domain, OperationsEndpoint: hostPort(o.Host, o.Peer.OpsPort)}},
		Identities: identities(dir, o.Domain), ChaincodeServices: chaincodeServices(t, o, !c.ServicesUnpublished),
		MonitoringClient: tlsClient(dir, "User1", o.Domain)}
	return org
}

// ConfigtxFiles are the channel configuration's files in the layout: the
// ordering organisation's MSP, each peer organisation's MSP and each
// orderer's TLS certificate.
func (l Layout) ConfigtxFiles(t *Topology) ConfigtxFiles {
	oo := t.OrdererOrg
	dir := l.OrdererOrgDir(oo.Domain)
	f := ConfigtxFiles{OrdererMSP: filepath.Join(dir, "msp"), MSP: map[string]string{}, ConsenterCert: map[string]string{}}
	for _, o := range oo.Orderers {
		f.ConsenterCert[o.Name] = filepath.Join(dir, "orderers", o.Name+"."+oo.Domain, "tls", "server.crt")
	}
	for _, o := range t.Orgs {
		f.MSP[o.Name] = filepath.Join(l.PeerOrgDir(o.Domain), "msp")
	}
	return f
}

// Containers returns the named profile as the Docker network runs it:
// every node a container of its own, reached by its DNS name on the
// compose network, with Fabric's usual container ports: orderers on 7050
// (admin 7053), peers on 7051 (chaincode callback 7052), operations on
// 9443, and each chaincode service in a container <chaincode>-cc.<domain>
// on 9999. The Docker network runs no CA server: its identities are
// enrolled before it starts, from CA servers on the host that makes them
// (fabnet local-identities, with ports of its own), so the CA ports here
// (portplan.ContainerCA on the organisation's host) are unused.
func Containers(name string, chaincodes []Chaincode) (*Topology, error) {
	t, err := Profile(name, portplan.ContainerOrderer, nil, chaincodes)
	if err != nil {
		return nil, err
	}
	oo := &t.OrdererOrg
	oo.Host, oo.CAPort = oo.Domain, portplan.ContainerCA
	for i := range oo.Orderers {
		o := &oo.Orderers[i]
		o.Host, o.Port, o.AdminPort, o.OpsPort = o.Name+"."+oo.Domain, portplan.ContainerOrderer, portplan.ContainerOrdererAdmin, portplan.ContainerOps
	}
	for j := range t.Orgs {
		o := &t.Orgs[j]
		o.Host, o.CAPort = o.Peer.Name+"."+o.Domain, portplan.ContainerCA
		o.Peer.Port, o.Peer.ChaincodePort, o.Peer.OpsPort = portplan.ContainerPeer, portplan.ContainerPeerCC, portplan.ContainerOps
		for k, cc := range chaincodes {
			s := Service{Host: cc.Name + "-cc." + o.Domain, Port: portplan.ContainerService}
			if cc.Ballot {
				s.OpsPort = portplan.ContainerOps
			}
			o.Peer.Services[k] = s
		}
	}
	return t, t.Check()
}
