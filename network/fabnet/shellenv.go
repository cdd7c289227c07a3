package fabnet

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// EnvContext is what ShellEnv says besides the topology, each when set:
// the profile the topology was made from (PROFILE), and the port plan's
// base it was placed at (BASE_PORT, and PORT_PREFIX its thousands: the
// Docker stacks' FABVOTE_PORT_PREFIX).
type EnvContext struct {
	Profile  string
	BasePort int
}

// ShellEnv is the topology for the scripts, one NAME=VALUE line each, in
// a form they read without evaluating it (`fabnet topology env`;
// scripts/topology.sh). A list is written NAME=(a b c), its items in the
// order of ORGS, ORDERERS or, for the CC_*_k lists (chaincode k of
// CHAINCODES, one item per organisation), of ORGS. Paths are relative to
// the network's crypto directory, in cryptogen's layout (Layout). Every
// value is made of letters, digits, spaces (scalars only) and @._:/-.
func ShellEnv(t *Topology, c EnvContext) (string, error) {
	if err := t.Check(); err != nil {
		return "", err
	}
	var e shellEnv
	if c.Profile != "" {
		e.scalar("PROFILE", c.Profile)
	}
	if c.BasePort != 0 {
		e.scalar("BASE_PORT", strconv.Itoa(c.BasePort))
		e.scalar("PORT_PREFIX", strconv.Itoa(c.BasePort/1000))
	}
	e.scalar("CHANNEL", t.Channel)
	e.scalar("WRITERS", t.Writers)
	e.scalar("BATCH_SIZE", strconv.Itoa(t.Batch.MaxMessageCount))
	e.scalar("BATCH_TIMEOUT", t.Batch.Timeout)
	e.scalar("BATCH_PREFERRED_BYTES", t.Batch.PreferredMaxBytes)
	e.scalar("BATCH_ABSOLUTE_BYTES", t.Batch.AbsoluteMaxBytes)
	e.ordererOrg(&t.OrdererOrg)
	e.peerOrgs(t.Orgs)
	e.chaincodes(t)
	return e.b.String(), e.err
}

// ordererOrg writes the ordering organisation and its orderers (lists in
// the order of ORDERERS).
func (e *shellEnv) ordererOrg(oo *OrdererOrg) {
	var l Layout
	dir := l.OrdererOrgDir(oo.Domain)
	admin := l.user(dir, "Admin", oo.Domain)
	e.scalar("ORDERER_ORG", oo.Name)
	e.scalar("ORDERER_MSPID", oo.MSPID)
	e.scalar("ORDERER_DOMAIN", oo.Domain)
	e.scalar("ORDERER_HOST", oo.Host)
	e.scalar("ORDERER_CA_PORT", strconv.Itoa(oo.CAPort))
	e.scalar("ORDERER_TLSCA", l.tlsCA(dir, oo.Domain))
	e.scalar("ORDERER_ADMIN_MSP", filepath.Join(admin, "msp"))
	e.scalar("ORDERER_ADMIN_TLS", filepath.Join(admin, "tls"))
	ords := oo.Orderers
	e.list("ORDERERS", each(ords, func(o Orderer) string { return o.Name }))
	e.list("ORDERER_HOSTS", each(ords, oo.HostOf))
	e.list("ORDERER_PORTS", each(ords, func(o Orderer) string { return strconv.Itoa(o.Port) }))
	e.list("ORDERER_ADMIN_PORTS", each(ords, func(o Orderer) string { return strconv.Itoa(o.AdminPort) }))
	e.list("ORDERER_OPS_PORTS", each(ords, func(o Orderer) string { return strconv.Itoa(o.OpsPort) }))
}

// peerOrgs writes the peer organisations and their peers (lists in the
// order of ORGS). PEER_NODES are the peers' node names in a home that
// holds every organisation (network/net.sh's run dir: peer0.ea).
func (e *shellEnv) peerOrgs(orgs []PeerOrg) {
	var l Layout
	dir := func(o PeerOrg) string { return l.PeerOrgDir(o.Domain) }
	e.list("ORGS", each(orgs, func(o PeerOrg) string { return o.Name }))
	e.list("ORG_MSPIDS", each(orgs, func(o PeerOrg) string { return o.MSPID }))
	e.list("ORG_DOMAINS", each(orgs, func(o PeerOrg) string { return o.Domain }))
	e.list("ORG_HOSTS", each(orgs, func(o PeerOrg) string { return o.Host }))
	e.list("ORG_CA_PORTS", each(orgs, func(o PeerOrg) string { return strconv.Itoa(o.CAPort) }))
	e.list("ORG_TLSCAS", each(orgs, func(o PeerOrg) string { return l.tlsCA(dir(o), o.Domain) }))
	e.list("ORG_ADMIN_MSPS", each(orgs, func(o PeerOrg) string { return filepath.Join(l.user(dir(o), "Admin", o.Domain), "msp") }))
	// The TLS client pair that reads the org's operations endpoints
	// (network.json's monitoringClient).
	e.list("ORG_CLIENT_TLS", each(orgs, func(o PeerOrg) string { return filepath.Join(l.user(dir(o), "User1", o.Domain), "tls") }))
	e.list("PEERS", each(orgs, func(o PeerOrg) string { return o.Peer.Name }))
	e.list("PEER_NODES", each(orgs, func(o PeerOrg) string { return o.LocalNode() }))
	e.list("PEER_TLS", each(orgs, func(o PeerOrg) string { return filepath.Join(l.node(dir(o), "peers", o.Peer.Name, o.Domain), "tls") }))
	e.list("PEER_PORTS", each(orgs, func(o PeerOrg) string { return strconv.Itoa(o.Peer.Port) }))
	e.list("PEER_CC_PORTS", each(orgs, func(o PeerOrg) string { return strconv.Itoa(o.Peer.ChaincodePort) }))
	e.list("PEER_OPS_PORTS", each(orgs, func(o PeerOrg) string { return strconv.Itoa(o.Peer.OpsPort) }))
}

// chaincodes writes the chaincodes' names and, for chaincode k, its
// services' hosts and ports in each organisation (an operations port of 0:
// the service has none).
func (e *shellEnv) chaincodes(t *Topology) {
	e.list("CHAINCODES", each(t.Chaincodes, func(cc Chaincode) string { return cc.Name }))
	for k := range t.Chaincodes {
		e.list(fmt.Sprintf("CC_HOSTS_%d", k), each(t.Orgs, func(o PeerOrg) string { return o.hostOf(o.Peer.Services[k]) }))
		e.list(fmt.Sprintf("CC_PORTS_%d", k), each(t.Orgs, func(o PeerOrg) string { return strconv.Itoa(o.Peer.Services[k].Port) }))
		e.list(fmt.Sprintf("CC_OPS_PORTS_%d", k), each(t.Orgs, func(o PeerOrg) string { return strconv.Itoa(o.Peer.Services[k].OpsPort) }))
	}
}

var (
	// The characters a script may receive: nothing a shell would expand,
	// split (but a scalar's spaces) or end a line with.
	shellNameRE   = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)
	shellScalarRE = regexp.MustCompile(`^[A-Za-z0-9@._:/ -]*$`)
	shellItemRE   = regexp.MustCompile(`^[A-Za-z0-9@._:/-]+$`)
)

// shellEnv writes NAME=VALUE lines; the first value it cannot write is
// its error.
type shellEnv struct {
	b   strings.Builder
	err error
}

func (e *shellEnv) scalar(name, v string) {
	if e.check(name, v, shellScalarRE) {
		fmt.Fprintf(&e.b, "%s=%s\n", name, v)
	}
}

func (e *shellEnv) list(name string, items []string) {
	for _, v := range items {
		if !e.check(name, v, shellItemRE) {
			return
		}
	}
	fmt.Fprintf(&e.b, "%s=(%s)\n", name, strings.Join(items, " "))
}

func (e *shellEnv) check(name, v string, re *regexp.Regexp) bool {
	switch {
	case e.err != nil:
		return false
	case !shellNameRE.MatchString(name):
		e.err = fmt.Errorf("topology env: %q is not a variable name", name)
	case !re.MatchString(v):
		e.err = fmt.Errorf("topology env: %s: %q holds a character the scripts do not take", name, v)
	}
	return e.err == nil
}

func each[T any](xs []T, f func(T) string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}
