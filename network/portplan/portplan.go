// Package portplan is the one owner of every TCP port that fabvote starts a
// listener on by default.
//
// A stack is one network with what runs beside it (the demo's registration
// service, a benchmark's profiling endpoints, a Prometheus). Each stack owns
// the Span ports from its base; inside it, every listener sits at a fixed
// offset (the layout below), so that a stack moves as a whole when its base
// moves. Shipped lists every stack the repository starts (the demo, the
// end-to-end, network, reliability, benchmark and Docker networks), and
// Check refuses stacks whose ranges overlap or whose listeners collide,
// naming both owners.
//
// The package is pure: it computes and checks numbers. Who holds a port on
// this machine is network/portprobe's job.
package portplan

import (
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
)

// Span is the number of ports a stack owns from its base.
const Span = 500

// Loopback is where every single-host stack listens.
const Loopback = "127.0.0.1"

// The layout of a stack from its base. Orderer i, peer org j and chaincode
// k each take the port of its slot; the ranges below never meet.
const (
	// ordererSlots orderers at base+10i: gRPC, +1 admin (channel
	// participation), +2 operations.
	ordererSlots = 10
	// peer org j's peer at base+100+10j: gRPC (and gateway), +1 chaincode
	// callback, +2 operations, +3.. one chaincode service per chaincode.
	peerOffset = 100
	// MaxChaincodes is the number of chaincode services a peer's slot holds.
	MaxChaincodes = 7
	// chaincode k of peer org j serves operations at base+200+10j+k.
	ccOpsOffset = 200
	// peer org j's two Fabric CA servers at base+300+10j (MSP CA), +1 (TLS
	// CA), +2 and +3 (their operations endpoints); the orderer org's at +390.
	peerCAOffset    = 300
	ordererCAOffset = 390
	// MaxPeerOrgs is the number of peer organisations a stack holds: their
	// CA slots end where the orderer org's begins.
	MaxPeerOrgs = (ordererCAOffset - peerCAOffset) / 10
	// MaxOrderers is the number of orderers a stack holds.
	MaxOrderers = peerOffset / 10
	// The services beside the network: the registration service (ea serve)
	// and its operations endpoint, the ballot box and its operations
	// endpoint, the key ceremony's relay (ceremony relay), Prometheus, and
	// the profiling endpoints of a benchmark's peer, orderer and chaincode.
	registrarOffset    = 400
	registrarOpsOffset = 401
	boxOffset          = 402
	boxOpsOffset       = 403
	relayOffset        = 404
	prometheusOffset   = 420
	pprofOffset        = 430
)

// Orderer is orderer i's gRPC, admin and operations ports.
func Orderer(base, i int) (grpc, admin, ops int) {
	p := base + ordererSlots*i
	return p, p + 1, p + 2
}

// Peer is peer org j's peer: gRPC, chaincode callback and operations ports.
func Peer(base, j int) (grpc, chaincode, ops int) {
	p := base + peerOffset + 10*j
	return p, p + 1, p + 2
}

// ChaincodeService is the gRPC port of peer org j's chaincode service k.
func ChaincodeService(base, j, k int) int { return base + peerOffset + 10*j + 3 + k }

// ChaincodeOps is the operations port of peer org j's chaincode service k.
func ChaincodeOps(base, j, k int) int { return base + ccOpsOffset + 10*j + k }

// PeerOrgCA is the MSP CA port of peer org j; its TLS CA and their
// operations endpoints follow at +1, +2, +3.
func PeerOrgCA(base, j int) int { return base + peerCAOffset + 10*j }

// OrdererOrgCA is the orderer org's MSP CA port, laid out as PeerOrgCA.
func OrdererOrgCA(base int) int { return base + ordererCAOffset }

// Registrar is the registration service's (fabvote ea serve) address.
func Registrar(base int) string { return addr(base + registrarOffset) }

// RegistrarOps is the registration service's operations endpoint.
func RegistrarOps(base int) string { return addr(base + registrarOpsOffset) }

// Box is the ballot box's (fabvote box serve) address.
func Box(base int) string { return addr(base + boxOffset) }

// BoxOps is the ballot box's operations endpoint.
func BoxOps(base int) string { return addr(base + boxOpsOffset) }

// Relay is the key ceremony's relay's (fabvote ceremony relay) address.
func Relay(base int) string { return addr(base + relayOffset) }

// Prometheus is the address the monitoring's Prometheus serves on.
func Prometheus(base int) string { return addr(base + prometheusOffset) }

// Pprof is the profiling endpoint of a benchmark's node: "peer",
// "orderer" or "chaincode".
func Pprof(base int, node string) string {
	i := slices.Index(PprofNodes, node)
	if i < 0 {
		panic("portplan: no profiling endpoint for " + node)
	}
	return addr(base + pprofOffset + i)
}

func addr(port int) string { return net.JoinHostPort(Loopback, strconv.Itoa(port)) }

// Listener is one port a stack listens on.
type Listener struct {
	// Owner names what listens: "demo: orderer0's admin".
	Owner string
	Host  string
	Port  int
	// Var is the setting that moves it (a variable, or a flag).
	Var string
}

// Address is host:port.
func (l Listener) Address() string { return net.JoinHostPort(l.Host, strconv.Itoa(l.Port)) }

func (l Listener) String() string { return fmt.Sprintf("%s (%s)", l.Address(), l.Owner) }

// Check refuses a port outside 1..65535 and two listeners on one address
// (a listener on 0.0.0.0 meets every address of its port), naming both.
func Check(ls []Listener) error {
	seen := map[int][]Listener{}
	for _, l := range ls {
		if l.Port <= 0 || l.Port > 65535 {
			return fmt.Errorf("%s: port %d out of range", l.Owner, l.Port)
		}
		for _, o := range seen[l.Port] {
			if o.Host == l.Host || o.Host == "0.0.0.0" || l.Host == "0.0.0.0" {
				return fmt.Errorf("%s and %s both listen on %s", o.Owner, l.Owner, l.Address())
			}
		}
		seen[l.Port] = append(seen[l.Port], l)
	}
	return nil
}

// Describe lists the listeners one a line, for a person.
func Describe(ls []Listener) string {
	var b strings.Builder
	for _, l := range ls {
		fmt.Fprintf(&b, "%-22s %-58s %s\n", l.Address(), l.Owner, l.Var)
	}
	return b.String()
}

// The ports inside the Docker network's containers: each node has an
// address of its own there, so they repeat from node to node (Fabric's
// customary ones). The host reaches them through the stack docker's ports.
const (
	ContainerOrderer      = 7050
	ContainerOrdererAdmin = 7053
	ContainerPeer         = 7051
	ContainerPeerCC       = 7052
	ContainerOps          = 9443
	ContainerCA           = 7054
	ContainerService      = 9999
)
