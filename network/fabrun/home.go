package fabrun

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/fabvote/fabvote/network/fabnet"
)

// Home is one organisation's directory on its own host. Everything the
// organisation holds is under it:
//
//	crypto/     its keys and certificates in cryptogen's layout, and its
//	            CA servers' homes and registrar secrets (crypto/fabric-ca)
//	bundle/     what it hands to the others: public certificates only
//	received/   the other organisations' bundles, one directory each
//	nodes/      each node's configuration and ledger
//	logs/ pids/ its processes
//	network.json  the connection description for its own clients
type Home struct {
	Dir string
	Org string
	// orgDirs is set in a home that holds every organisation of the
	// topology (LocalHome): each organisation's crypto directory by name.
	// Such a home needs no bundles: every file is at hand.
	orgDirs map[string]string
}

// homeRE are the paths fabnet writes into node configuration without
// quoting: no spaces, '#', ':' or quotes.
var homeRE = regexp.MustCompile(`^[A-Za-z0-9._/+-]+$`)

// HomePath is dir as an absolute path, checked to be one fabnet can
// write into node configuration.
func HomePath(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if !homeRE.MatchString(abs) {
		return "", fmt.Errorf("home %q: use letters, digits and . _ / + - only (the path goes into the nodes' configuration files)", abs)
	}
	return abs, nil
}

// NewHome makes the home's directory (0700: it holds private keys).
func NewHome(dir, org string) (Home, error) {
	abs, err := HomePath(dir)
	if err != nil {
		return Home{}, err
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return Home{}, err
	}
	if err := os.Chmod(abs, 0o700); err != nil {
		return Home{}, err
	}
	return Home{Dir: abs, Org: org}, nil
}

func (h Home) path(elem ...string) string { return filepath.Join(append([]string{h.Dir}, elem...)...) }

// Crypto is the organisation's crypto directory (fabca's Org.Dir).
func (h Home) Crypto() string {
	if d := h.orgDirs[h.Org]; d != "" {
		return d
	}
	return h.path("crypto")
}

// shared tells a home that holds every organisation (LocalHome).
func (h Home) shared() bool { return h.orgDirs != nil }

// as is the same home acting for another of the organisations it holds.
func (h Home) as(org string) Home { h.Org = org; return h }

// Bundle is the directory the organisation hands over.
func (h Home) Bundle() string { return h.path("bundle") }

// Received is where another organisation's bundle is kept.
func (h Home) Received(org string) string { return h.path("received", org) }

// Node is a node's directory.
func (h Home) Node(name string) string { return h.path("nodes", name) }

// NetworkJSON is the connection description for the org's clients.
func (h Home) NetworkJSON() string { return h.path("network.json") }

// nodeCrypto is the cryptogen-layout directory of a node of the org.
func (h Home) nodeCrypto(kind, node, domain string) string {
	return filepath.Join(h.Crypto(), kind, node+"."+domain)
}

func (h Home) user(name, domain string) string {
	return filepath.Join(h.Crypto(), "users", name+"@"+domain)
}

// tlsCA is the org's own TLS root certificate.
func (h Home) tlsCA(domain string) string {
	return filepath.Join(h.Crypto(), "tlsca", "tlsca."+domain+"-cert.pem")
}

// receivedTLSCA is another org's TLS root certificate from its bundle.
func (h Home) receivedTLSCA(org, domain string) string {
	return filepath.Join(h.Received(org), "msp", "tlscacerts", "tlsca."+domain+"-cert.pem")
}

// orgTLSCA is the TLS root of org: the home's own, or from org's bundle.
func (h Home) orgTLSCA(org, domain string) string {
	if org == h.Org || h.orgDirs[org] != "" {
		return h.as(org).tlsCA(domain)
	}
	return h.receivedTLSCA(org, domain)
}

// genesisBlock is the channel's genesis block as the home has it: made
// by the orderer org into its bundle, received by the others, or made
// once for every organisation of a shared home.
func (h Home) genesisBlock(t *fabnet.Topology) string {
	switch {
	case h.shared():
		return h.path("configtx", t.Channel+".block")
	case h.Org == t.OrdererOrg.Name:
		return filepath.Join(h.Bundle(), t.Channel+".block")
	}
	return filepath.Join(h.Received(t.OrdererOrg.Name), t.Channel+".block")
}

// peerNode and serviceNode name the org's peer and its chaincode
// services as processes of the home: a shared home holds every org's, so
// their names carry the org (peer0.ea, cc.ballot.peer0.ea).
func (h Home) peerNode(o *fabnet.PeerOrg) string {
	if h.shared() {
		return o.LocalNode()
	}
	return o.Peer.Name
}

func (h Home) serviceNode(o *fabnet.PeerOrg, cc fabnet.Chaincode) string {
	if h.shared() {
		return "cc." + cc.Name + "." + h.peerNode(o)
	}
	return "cc." + cc.Name
}

func (h Home) need(path, what string) error {
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("%s: %s is missing (%w)", h.Org, what, err)
	}
	return nil
}
