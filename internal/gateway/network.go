// Package gateway connects fabvote's CLI to a running network: it reads the
// description that `make network-up` writes (run/<profile>/network.json),
// opens a fabric-gateway connection as one of an org's identities, and
// submits transactions with a retry policy that separates transient failures
// (MVCC conflicts, the lockless gate's stale snapshot, unavailable peers)
// from the contract's definitive rejections, which are never retried.
package gateway

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Network is run/<profile>/network.json.
type Network struct {
	Profile    string    `json:"profile"`
	Channel    string    `json:"channel"`
	RunDir     string    `json:"runDir"`
	Chaincodes []string  `json:"chaincodes"`
	Orgs       []Org     `json:"orgs"`
	Orderers   []Orderer `json:"orderers"`
}

// Org is one peer organisation.
type Org struct {
	Name       string              `json:"name"`
	MSPID      string              `json:"mspID"`
	Domain     string              `json:"domain"`
	TLSCACert  string              `json:"tlsCACert"`
	Peers      []Peer              `json:"peers"`
	Identities map[string]Identity `json:"identities"`
}

// Peer is a gateway endpoint.
type Peer struct {
	Name               string `json:"name"`
	Endpoint           string `json:"endpoint"`
	TLSCACert          string `json:"tlsCACert"`
	ServerNameOverride string `json:"serverNameOverride"`
}

// Orderer is an ordering node (only listed; the gateway finds orderers itself).
type Orderer struct {
	Name     string `json:"name"`
	MSPID    string `json:"mspID"`
	Endpoint string `json:"endpoint"`
}

// Identity names an enrolled identity's certificate and key files.
type Identity struct {
	Cert string `json:"cert"`
	Key  string `json:"key"`
}

// LoadNetwork reads and checks a network description. Relative file paths in
// it are taken relative to the file's directory.
func LoadNetwork(path string) (*Network, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--network: %w (is the network up? `make network-up`)", err)
	}
	var n Network
	if err := json.Unmarshal(data, &n); err != nil {
		return nil, fmt.Errorf("--network %s: %w", path, err)
	}
	if n.Channel == "" {
		return nil, fmt.Errorf("--network %s: no channel", path)
	}
	if len(n.Orgs) == 0 {
		return nil, fmt.Errorf("--network %s: no orgs", path)
	}
	base := filepath.Dir(path)
	abs := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(base, p)
	}
	for i := range n.Orgs {
		o := &n.Orgs[i]
		if o.MSPID == "" || len(o.Peers) == 0 {
			return nil, fmt.Errorf("--network %s: org %q has no mspID or no peers", path, o.Name)
		}
		o.TLSCACert = abs(o.TLSCACert)
		for j := range o.Peers {
			o.Peers[j].TLSCACert = abs(o.Peers[j].TLSCACert)
		}
		for k, id := range o.Identities {
			o.Identities[k] = Identity{Cert: abs(id.Cert), Key: abs(id.Key)}
		}
	}
	return &n, nil
}

// Org finds an org by name or MSP id (case-insensitive); "" is the first org.
func (n *Network) Org(nameOrMSP string) (*Org, error) {
	if nameOrMSP == "" {
		return &n.Orgs[0], nil
	}
	var names []string
	for i := range n.Orgs {
		o := &n.Orgs[i]
		if strings.EqualFold(o.Name, nameOrMSP) || strings.EqualFold(o.MSPID, nameOrMSP) {
			return o, nil
		}
		names = append(names, o.Name+"/"+o.MSPID)
	}
	return nil, fmt.Errorf("--org %q: not in the network (orgs: %s)", nameOrMSP, strings.Join(names, ", "))
}

// HasChaincode reports whether name is deployed (an empty list means unknown: yes).
func (n *Network) HasChaincode(name string) bool {
	if len(n.Chaincodes) == 0 {
		return true
	}
	for _, c := range n.Chaincodes {
		if c == name {
			return true
		}
	}
	return false
}
