package fabnet

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/fabvote/fabvote/internal/atomicfile"
	"github.com/fabvote/fabvote/network/portplan"
)

// Topology is the network every organisation agrees on.
type Topology struct {
	Channel string `json:"channel"`
	Batch   Batch  `json:"batch"`
	// Writers is the channel's /Channel/Writers policy: WritersImplicit
	// (empty) or WritersSignature.
	Writers    string      `json:"writers,omitempty"`
	OrdererOrg OrdererOrg  `json:"ordererOrg"`
	Orgs       []PeerOrg   `json:"orgs"`
	Chaincodes []Chaincode `json:"chaincodes"`
}

// The channel's /Channel/Writers policy. Fabric's default, an ImplicitMeta
// "ANY Writers" over the application's and the orderer's Writers, makes
// the orderer evaluate a transaction's signature once per sub-policy; the
// signature policy that names the same principals directly (every peer
// organisation's admins and clients, the orderer organisation's members)
// admits exactly the same signers and checks the signature once. Any
// operator can choose it: it is a channel setting, not a code change.
const (
	WritersImplicit  = ""
	WritersSignature = "signature"
)

// WritersName names the topology's Writers policy: "implicit" or
// "signature".
func (t *Topology) WritersName() string {
	if t.Writers == WritersImplicit {
		return "implicit"
	}
	return t.Writers
}

// Batch is the channel's block cutting.
type Batch struct {
	MaxMessageCount   int    `json:"maxMessageCount"`
	Timeout           string `json:"timeout"`
	PreferredMaxBytes string `json:"preferredMaxBytes"`
	AbsoluteMaxBytes  string `json:"absoluteMaxBytes"`
}

// OrdererOrg is the ordering organisation and its Raft orderers.
type OrdererOrg struct {
	Name   string `json:"name"`
	MSPID  string `json:"mspID"`
	Domain string `json:"domain"`
	// Host is the address other organisations dial the orderers at.
	Host     string    `json:"host"`
	CAPort   int       `json:"caPort"` // as PeerOrg.CAPort
	Orderers []Orderer `json:"orderers"`
}

// Orderer is one ordering node.
type Orderer struct {
	Name string `json:"name"`
	// Host, when set, is this orderer's own address (a machine or a
	// container of its own); empty, it is the ordering organisation's Host.
	Host      string `json:"host,omitempty"`
	Port      int    `json:"port"`
	AdminPort int    `json:"adminPort"`
	OpsPort   int    `json:"opsPort"`
}

// PeerOrg is an application organisation with its one peer.
type PeerOrg struct {
	Name   string `json:"name"`
	MSPID  string `json:"mspID"`
	Domain string `json:"domain"`
	Host   string `json:"host"`
	// CAPort is its MSP CA's port; the TLS CA listens on CAPort+1, and
	// their operations endpoints on +2 and +3. They bind the loopback of
	// the organisation's own host only.
	CAPort int  `json:"caPort"`
	Peer   Peer `json:"peer"`
}

// Peer is a peer and the chaincode services beside it.
type Peer struct {
	Name          string `json:"name"`
	Port          int    `json:"port"`
	ChaincodePort int    `json:"chaincodePort"`
	OpsPort       int    `json:"opsPort"`
	// Services holds one chaincode service per Topology.Chaincodes entry, in
	// the same order.
	Services []Service `json:"services"`
}

// Service is a chaincode service's gRPC port and its operations port
// (/metrics and /healthz, plain HTTP; 0 when it has none).
type Service struct {
	// Host, when set, is the service's own address (a container of its
	// own); empty, the service runs beside its peer on the peer's loopback.
	Host    string `json:"host,omitempty"`
	Port    int    `json:"port"`
	OpsPort int    `json:"opsPort"`
}

// HostOf is the address the others dial orderer o at.
func (oo *OrdererOrg) HostOf(o Orderer) string {
	if o.Host != "" {
		return o.Host
	}
	return oo.Host
}

// LocalNode is the name of the organisation's peer in a shared home, one
// that holds every organisation's nodes (peer0.ea).
func (o *PeerOrg) LocalNode() string { return o.Peer.Name + "." + o.Name }

// hostOf is where service s listens: its own host, or its peer's.
func (o *PeerOrg) hostOf(s Service) string {
	if s.Host != "" {
		return s.Host
	}
	return o.Host
}

// Chaincode is a chaincode every organisation runs as a service.
type Chaincode struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	// Ballot marks the ballot contract: its service serves operations, and
	// its definition may name the fork's ballot validation plugin.
	Ballot bool `json:"ballot,omitempty"`
	// ValidationPlugin is the definition's validation plugin ("" for Fabric's default).
	ValidationPlugin string `json:"validationPlugin,omitempty"`
}

// The names and settings every profile shares.
const (
	channelName    = "fabvote"
	ordererOrgName = "orderer"
	domainSuffix   = ".fabvote.local"
)

// DefaultBatch is the channel's block cutting unless a network sets its
// own: a block closes at 500 transactions, at 4 MB, or 250 ms after its
// first transaction, whichever comes first.
var DefaultBatch = Batch{MaxMessageCount: 500, Timeout: "250ms", PreferredMaxBytes: "4 MB", AbsoluteMaxBytes: "10 MB"}

// Profile returns a registered topology (RegisterProfile; Profiles lists
// them) with the port plan's layout from basePort (network/portplan:
// orderers, peers, chaincode services, CA servers each at their offset).
// hosts gives an organisation's address by name; the default is
// 127.0.0.1.
func Profile(name string, basePort int, hosts map[string]string, chaincodes []Chaincode) (*Topology, error) {
	spec, err := LookupProfile(name)
	if err != nil {
		return nil, err
	}
	return spec.topology(basePort, hosts, chaincodes)
}

// topology is the spec's network from basePort: every organisation gets
// its MSP id and domain from its name, peer organisation j and orderer i
// the ports of their slots.
func (s ProfileSpec) topology(basePort int, hosts map[string]string, chaincodes []Chaincode) (*Topology, error) {
	host := func(org string) string {
		if h := hosts[org]; h != "" {
			return h
		}
		return portplan.Loopback
	}
	t := &Topology{
		Channel: channelName,
		Batch:   DefaultBatch,
		OrdererOrg: OrdererOrg{Name: ordererOrgName, MSPID: mspID(ordererOrgName), Domain: ordererOrgName + domainSuffix,
			Host: host(ordererOrgName), CAPort: portplan.OrdererOrgCA(basePort)},
		Chaincodes: chaincodes,
	}
	if len(chaincodes) > portplan.MaxChaincodes {
		return nil, fmt.Errorf("%d chaincodes: a peer's ports hold at most %d chaincode services", len(chaincodes), portplan.MaxChaincodes)
	}
	for i := range s.Orderers {
		p, admin, ops := portplan.Orderer(basePort, i)
		t.OrdererOrg.Orderers = append(t.OrdererOrg.Orderers, Orderer{Name: fmt.Sprintf("orderer%d", i), Port: p, AdminPort: admin, OpsPort: ops})
	}
	for j, o := range s.Orgs {
		t.Orgs = append(t.Orgs, newPeerOrg(o, host(o), basePort, j, chaincodes))
	}
	return t, t.Check()
}

// newPeerOrg is peer organisation name in slot j of the port plan from
// basePort, with one chaincode service per chaincode.
func newPeerOrg(name, host string, basePort, j int, chaincodes []Chaincode) PeerOrg {
	p, callback, ops := portplan.Peer(basePort, j)
	peer := Peer{Name: "peer0", Port: p, ChaincodePort: callback, OpsPort: ops}
	for k, cc := range chaincodes {
		s := Service{Port: portplan.ChaincodeService(basePort, j, k)}
		if cc.Ballot {
			s.OpsPort = portplan.ChaincodeOps(basePort, j, k)
		}
		peer.Services = append(peer.Services, s)
	}
	return PeerOrg{Name: name, MSPID: mspID(name), Domain: name + domainSuffix, Host: host,
		CAPort: portplan.PeerOrgCA(basePort, j), Peer: peer}
}

// mspID is the organisation's MSP id: the name capitalised (party1 ->
// Party1MSP, orderer -> OrdererMSP), and EAMSP for the election authority.
func mspID(org string) string {
	if org == "ea" {
		return "EAMSP"
	}
	return strings.ToUpper(org[:1]) + org[1:] + "MSP"
}

var (
	labelRE   = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)
	domainRE  = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$`)
	mspRE     = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9.-]{0,63}$`)
	ccRE      = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)
	versionRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}$`)
	// bytesRE is configtxgen's size syntax: a number and an optional unit.
	bytesRE = regexp.MustCompile(`^[0-9]+ ?(KB|MB)?$`)
)

// Check refuses a topology with a name that could leave a directory, an
// address that is neither an IP nor a DNS name, or two listeners on the
// same host and port.
func (t *Topology) Check() error {
	if !labelRE.MatchString(t.Channel) {
		return fmt.Errorf("channel %q: want lower-case letters, digits and '-'", t.Channel)
	}
	if err := t.Batch.check(); err != nil {
		return err
	}
	if t.Writers != WritersImplicit && t.Writers != WritersSignature {
		return fmt.Errorf("writers policy %q: want %q or %q", t.Writers, WritersImplicit, WritersSignature)
	}
	if len(t.Orgs) == 0 || len(t.OrdererOrg.Orderers) == 0 {
		return errors.New("the topology needs at least one peer organisation and one orderer")
	}
	oo := t.OrdererOrg
	if err := checkOrg(oo.Name, oo.MSPID, oo.Domain, oo.Host); err != nil {
		return err
	}
	orderers := map[string]bool{}
	for _, o := range oo.Orderers {
		if !labelRE.MatchString(o.Name) {
			return fmt.Errorf("orderer %q: not a DNS label", o.Name)
		}
		if orderers[o.Name] {
			return fmt.Errorf("orderer %q appears twice", o.Name)
		}
		orderers[o.Name] = true
		if err := checkHost(o.Name, oo.HostOf(o)); err != nil {
			return err
		}
	}
	if err := t.checkPeerOrgs(); err != nil {
		return err
	}
	return portplan.Check(t.Listeners(""))
}

// Listeners is every port the topology's nodes listen on: its CA servers'
// and its network nodes', each named by its owner (after prefix) and by
// BASE_PORT, the setting that moves it.
func (t *Topology) Listeners(prefix string) []portplan.Listener {
	return append(t.CAListeners(prefix), t.NodeListeners(prefix)...)
}

// CAListeners is the organisations' CA servers' ports: each MSP CA, TLS CA
// and their operations endpoints.
func (t *Topology) CAListeners(prefix string) []portplan.Listener {
	kinds := []string{"MSP CA", "TLS CA", "MSP CA operations", "TLS CA operations"}
	ls := listenersOf(prefix+"the orderer org's CAs", t.OrdererOrg.Host, caPorts(t.OrdererOrg.CAPort), kinds...)
	for _, o := range t.Orgs {
		ls = append(ls, listenersOf(prefix+o.Name+"'s CAs", o.Host, caPorts(o.CAPort), kinds...)...)
	}
	return ls
}

// NodeListeners is the orderers', the peers' and the chaincode services' ports.
func (t *Topology) NodeListeners(prefix string) []portplan.Listener {
	var ls []portplan.Listener
	oo := t.OrdererOrg
	for _, o := range oo.Orderers {
		ls = append(ls, listenersOf(prefix+o.Name, oo.HostOf(o), []int{o.Port, o.AdminPort, o.OpsPort}, "gRPC", "admin", "operations")...)
	}
	for _, o := range t.Orgs {
		ls = append(ls, listenersOf(prefix+o.Name+"'s peer", o.Host, []int{o.Peer.Port, o.Peer.ChaincodePort, o.Peer.OpsPort}, "gRPC", "chaincode callback", "operations")...)
		for k, s := range o.Peer.Services {
			what := fmt.Sprintf("%s%s's chaincode service %d", prefix, o.Name, k)
			ls = append(ls, listenersOf(what, o.hostOf(s), []int{s.Port}, "gRPC")...)
			if s.OpsPort != 0 {
				ls = append(ls, listenersOf(what, o.hostOf(s), []int{s.OpsPort}, "operations")...)
			}
		}
	}
	return ls
}

// caPorts is a CA pair's four ports from the MSP CA's.
func caPorts(p int) []int { return []int{p, p + 1, p + 2, p + 3} }

func listenersOf(owner, host string, ports []int, kinds ...string) []portplan.Listener {
	ls := make([]portplan.Listener, len(ports))
	for i, p := range ports {
		ls[i] = portplan.Listener{Owner: owner + " (" + kinds[i] + ")", Host: host, Port: p, Var: "BASE_PORT"}
	}
	return ls
}

func (t *Topology) checkPeerOrgs() error {
	names, ccs := map[string]bool{t.OrdererOrg.Name: true}, map[string]bool{}
	// Two organisations with one MSP id would be one organisation on the
	// channel, with the roots of whichever came last.
	msps, domains := map[string]bool{t.OrdererOrg.MSPID: true}, map[string]bool{t.OrdererOrg.Domain: true}
	for _, cc := range t.Chaincodes {
		if !ccRE.MatchString(cc.Name) || !versionRE.MatchString(cc.Version) {
			return fmt.Errorf("chaincode %q (version %q): want a lower-case name and a version of letters, digits and _.+-", cc.Name, cc.Version)
		}
		if ccs[cc.Name] {
			return fmt.Errorf("chaincode %q appears twice", cc.Name)
		}
		ccs[cc.Name] = true
	}
	for _, o := range t.Orgs {
		if err := checkOrg(o.Name, o.MSPID, o.Domain, o.Host); err != nil {
			return err
		}
		if names[o.Name] {
			return fmt.Errorf("organisation %q appears twice", o.Name)
		}
		names[o.Name] = true
		if msps[o.MSPID] || domains[o.Domain] {
			return fmt.Errorf("org %s: MSP id %q or domain %q is another organisation's", o.Name, o.MSPID, o.Domain)
		}
		msps[o.MSPID], domains[o.Domain] = true, true
		if !labelRE.MatchString(o.Peer.Name) || o.Peer.Name == "ccaas0" {
			return fmt.Errorf("org %s: peer name %q: want a DNS label other than ccaas0", o.Name, o.Peer.Name)
		}
		if len(o.Peer.Services) != len(t.Chaincodes) {
			return fmt.Errorf("org %s: %d chaincode services for %d chaincodes", o.Name, len(o.Peer.Services), len(t.Chaincodes))
		}
		for k, s := range o.Peer.Services {
			if err := checkHost(fmt.Sprintf("%s's chaincode service %d", o.Name, k), o.hostOf(s)); err != nil {
				return err
			}
		}
	}
	return nil
}

func (b Batch) check() error {
	if b.MaxMessageCount <= 0 {
		return fmt.Errorf("batch: maxMessageCount %d: want at least 1", b.MaxMessageCount)
	}
	if d, err := time.ParseDuration(b.Timeout); err != nil || d <= 0 {
		return fmt.Errorf("batch: timeout %q: want a positive duration", b.Timeout)
	}
	for _, v := range []struct{ name, value string }{{"preferredMaxBytes", b.PreferredMaxBytes}, {"absoluteMaxBytes", b.AbsoluteMaxBytes}} {
		if !bytesRE.MatchString(v.value) {
			return fmt.Errorf("batch: %s %q: want a size such as \"4 MB\"", v.name, v.value)
		}
	}
	return nil
}

func checkOrg(name, msp, domain, host string) error {
	switch {
	case !labelRE.MatchString(name):
		return fmt.Errorf("organisation %q: not a DNS label", name)
	case !mspRE.MatchString(msp):
		return fmt.Errorf("organisation %s: MSP id %q", name, msp)
	case !domainRE.MatchString(domain):
		return fmt.Errorf("organisation %s: domain %q is not a DNS name", name, domain)
	}
	return checkHost("organisation "+name, host)
}

// checkHost refuses an address that is neither an IPv4 address nor a DNS name.
func checkHost(what, host string) error {
	switch {
	case net.ParseIP(host) == nil && !domainRE.MatchString(host):
		return fmt.Errorf("%s: host %q is neither an IP address nor a DNS name", what, host)
	case strings.Contains(host, ":"):
		// The nodes' configuration joins host and port as host:port.
		return fmt.Errorf("%s: host %q: IPv6 addresses are not supported; give a DNS name", what, host)
	}
	return nil
}

// PeerOrg returns the peer organisation called name.
func (t *Topology) PeerOrg(name string) (*PeerOrg, error) {
	for i := range t.Orgs {
		if t.Orgs[i].Name == name {
			return &t.Orgs[i], nil
		}
	}
	return nil, fmt.Errorf("no organisation %q in the topology", name)
}

// Load reads and checks a topology file.
func Load(path string) (*Topology, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var t Topology
	if err := json.Unmarshal(b, &t); err != nil { // one JSON value, nothing after it
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields() // a misspelt field is an error, not a default
	if err := dec.Decode(&Topology{}); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := t.Check(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &t, nil
}

// Save writes the topology atomically.
func (t *Topology) Save(path string) error {
	b, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(b, '\n'), 0o644)
}
