// Package netjson reads the connection description that `make network-up`
// writes to run/<profile>/network.json and opens Fabric Gateway connections
// from it.
//
// network/net.sh writes the file (bash, no JSON library); this package is the
// one Go definition of its fields, used by the network's readiness probe and
// tests, and available to any client that wants a gateway from the file.
package netjson

import (
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/hyperledger/fabric-gateway/pkg/client"
	"github.com/hyperledger/fabric-gateway/pkg/identity"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
)

// Network is the content of network.json.
type Network struct {
	Profile    string    `json:"profile"`
	Channel    string    `json:"channel"`
	RunDir     string    `json:"runDir"`
	BasePort   int       `json:"basePort"`
	Chaincodes []string  `json:"chaincodes"`
	Orgs       []Org     `json:"orgs"`
	Orderers   []Orderer `json:"orderers"`
	// OrdererAdmin is the orderer organisation's TLS client pair: the
	// channel participation API and the orderers' /metrics accept it.
	OrdererAdmin TLSClient `json:"ordererAdmin"`
}

// TLSClient names the PEM files of a TLS client certificate and key, and
// the CA that verifies the servers it talks to.
type TLSClient struct {
	Cert      string `json:"cert"`
	Key       string `json:"key"`
	TLSCACert string `json:"tlsCACert,omitempty"`
}

// ChaincodeService is a chaincode run as a service for one org's peer.
type ChaincodeService struct {
	Name     string `json:"name"`
	Endpoint string `json:"endpoint"`
	// OperationsEndpoint serves /metrics and /healthz over plain HTTP;
	// empty when the chaincode has none.
	OperationsEndpoint string `json:"operationsEndpoint"`
}

// Org is one application organisation.
type Org struct {
	Name       string              `json:"name"`
	MSPID      string              `json:"mspID"`
	Domain     string              `json:"domain"`
	TLSCACert  string              `json:"tlsCACert"`
	Peers      []Peer              `json:"peers"`
	Identities map[string]Identity `json:"identities"`
	// ChaincodeServices are the org's chaincode services, in port order.
	ChaincodeServices []ChaincodeService `json:"chaincodeServices"`
	// MonitoringClient is a TLS client pair from the org's TLS CA, which
	// the org's peers accept on their operations endpoint's /metrics.
	MonitoringClient TLSClient `json:"monitoringClient"`
}

// Peer is a peer's gateway endpoint.
type Peer struct {
	Name               string `json:"name"`
	Endpoint           string `json:"endpoint"`
	TLSCACert          string `json:"tlsCACert"`
	ServerNameOverride string `json:"serverNameOverride"`
	OperationsEndpoint string `json:"operationsEndpoint"`
}

// Identity names the PEM files of an X.509 identity.
type Identity struct {
	Cert string `json:"cert"`
	Key  string `json:"key"`
}

// Orderer is an ordering node.
type Orderer struct {
	Name               string `json:"name"`
	MSPID              string `json:"mspID"`
	Endpoint           string `json:"endpoint"`
	TLSCACert          string `json:"tlsCACert"`
	ServerNameOverride string `json:"serverNameOverride"`
	AdminEndpoint      string `json:"adminEndpoint"`
	OperationsEndpoint string `json:"operationsEndpoint"`
}

// Load reads and checks a network.json; errors name the missing field.
func Load(path string) (*Network, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var n Network
	if err := json.Unmarshal(b, &n); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if n.Channel == "" {
		return nil, fmt.Errorf("%s: channel is empty", path)
	}
	if len(n.Orgs) == 0 {
		return nil, fmt.Errorf("%s: orgs is empty", path)
	}
	for i, o := range n.Orgs {
		if o.MSPID == "" {
			return nil, fmt.Errorf("%s: orgs[%d].mspID is empty", path, i)
		}
		if len(o.Peers) == 0 {
			return nil, fmt.Errorf("%s: orgs[%d].peers is empty", path, i)
		}
		for j, p := range o.Peers {
			if p.Endpoint == "" || p.TLSCACert == "" {
				return nil, fmt.Errorf("%s: orgs[%d].peers[%d]: endpoint or tlsCACert is empty", path, i, j)
			}
		}
	}
	return &n, nil
}

// Org returns the organisation with the given name ("ea", "party1", ...).
func (n *Network) Org(name string) (*Org, error) {
	for i := range n.Orgs {
		if n.Orgs[i].Name == name {
			return &n.Orgs[i], nil
		}
	}
	return nil, fmt.Errorf("network.json: no org %q", name)
}

// Connect opens a gateway to the org's first peer as the named identity
// ("admin", "user1", ...). Close the returned gateway, then the connection.
func (o *Org) Connect(identityName string, timeout time.Duration) (*client.Gateway, *grpc.ClientConn, error) {
	if len(o.Peers) == 0 {
		return nil, nil, fmt.Errorf("org %s has no peers", o.Name)
	}
	p := o.Peers[0]
	idFiles, ok := o.Identities[identityName]
	if !ok {
		return nil, nil, fmt.Errorf("org %s has no identity %q", o.Name, identityName)
	}
	caPEM, err := os.ReadFile(p.TLSCACert)
	if err != nil {
		return nil, nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, nil, fmt.Errorf("%s: no PEM certificate", p.TLSCACert)
	}
	certPEM, err := os.ReadFile(idFiles.Cert)
	if err != nil {
		return nil, nil, err
	}
	cert, err := identity.CertificateFromPEM(certPEM)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", idFiles.Cert, err)
	}
	id, err := identity.NewX509Identity(o.MSPID, cert)
	if err != nil {
		return nil, nil, err
	}
	keyPEM, err := os.ReadFile(idFiles.Key)
	if err != nil {
		return nil, nil, err
	}
	key, err := identity.PrivateKeyFromPEM(keyPEM)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", idFiles.Key, err)
	}
	sign, err := identity.NewPrivateKeySign(key)
	if err != nil {
		return nil, nil, err
	}
	conn, err := grpc.NewClient(p.Endpoint, grpc.WithTransportCredentials(credentials.NewClientTLSFromCert(pool, p.ServerNameOverride)))
	if err != nil {
		return nil, nil, err
	}
	gw, err := client.Connect(id, client.WithSign(sign), client.WithClientConnection(conn),
		client.WithEvaluateTimeout(timeout), client.WithEndorseTimeout(timeout),
		client.WithSubmitTimeout(timeout), client.WithCommitStatusTimeout(2*timeout))
	if err != nil {
		return nil, nil, errors.Join(err, conn.Close())
	}
	return gw, conn, nil
}
