// Package netjson reads the connection description that `make network-up`
// writes to run/<profile>/network.json and opens Fabric Gateway connections
// from it.
//
// This package is the one Go definition of its fields: network/fabnet
// fills them in and network/cmd/fabnet and network/fabrun write the file
// (for net.sh's network, the Docker network and each host of a multi-host
// network); the CLI's gateway client (internal/gateway), the readiness
// probe, the monitoring configuration and the tests read it.
package netjson

import (
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hyperledger/fabric-gateway/pkg/client"
	"github.com/hyperledger/fabric-gateway/pkg/identity"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
)

// Network is the content of network.json.
type Network struct {
	Profile  string `json:"profile"`
	Channel  string `json:"channel"`
	RunDir   string `json:"runDir"`
	BasePort int    `json:"basePort"`
	Batch    *Batch `json:"batch,omitempty"`
	// Writers is the channel's /Channel/Writers policy as its genesis
	// block set it: "implicit" (Fabric's ImplicitMeta default) or
	// "signature"; empty in files written before it was recorded.
	Writers    string    `json:"writers,omitempty"`
	Chaincodes []string  `json:"chaincodes"`
	Orgs       []Org     `json:"orgs"`
	Orderers   []Orderer `json:"orderers"`
	// OrdererAdmin is the orderer organisation's TLS client pair: the
	// channel participation API and the orderers' /metrics accept it.
	OrdererAdmin TLSClient `json:"ordererAdmin"`
}

// Batch is the channel's block cutting, as its genesis block set it.
type Batch struct {
	MaxMessageCount   int    `json:"maxMessageCount"`
	Timeout           string `json:"timeout"`
	PreferredMaxBytes string `json:"preferredMaxBytes"`
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

// Load reads and checks a network.json; errors name the file and the
// missing field. Relative file paths in it are taken relative to the file's
// directory.
func Load(path string) (*Network, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var n Network
	if err := json.Unmarshal(b, &n); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := n.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	n.resolve(filepath.Dir(path))
	return &n, nil
}

func (n *Network) check() error {
	if n.Channel == "" {
		return errors.New("no channel")
	}
	if len(n.Orgs) == 0 {
		return errors.New("no orgs")
	}
	for i, o := range n.Orgs {
		if o.MSPID == "" {
			return fmt.Errorf("orgs[%d] (%q) has no mspID", i, o.Name)
		}
		if len(o.Peers) == 0 {
			return fmt.Errorf("orgs[%d] (%q) has no peers", i, o.Name)
		}
		for j, p := range o.Peers {
			if p.Endpoint == "" {
				return fmt.Errorf("orgs[%d].peers[%d] has no endpoint", i, j)
			}
		}
	}
	return nil
}

// resolve makes every relative file path absolute against base.
func (n *Network) resolve(base string) {
	abs := func(p *string) {
		if *p != "" && !filepath.IsAbs(*p) {
			*p = filepath.Join(base, *p)
		}
	}
	pair := func(c *TLSClient) { abs(&c.Cert); abs(&c.Key); abs(&c.TLSCACert) }
	pair(&n.OrdererAdmin)
	for i := range n.Orderers {
		abs(&n.Orderers[i].TLSCACert)
	}
	for i := range n.Orgs {
		o := &n.Orgs[i]
		abs(&o.TLSCACert)
		pair(&o.MonitoringClient)
		for j := range o.Peers {
			abs(&o.Peers[j].TLSCACert)
		}
		for k, id := range o.Identities {
			abs(&id.Cert)
			abs(&id.Key)
			o.Identities[k] = id
		}
	}
}

// Org finds an org by name or MSP id, ignoring case; "" is the first org.
func (n *Network) Org(nameOrMSP string) (*Org, error) {
	if nameOrMSP == "" && len(n.Orgs) > 0 {
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
	return nil, fmt.Errorf("org %q is not in the network (orgs: %s)", nameOrMSP, strings.Join(names, ", "))
}

// HasChaincode reports whether name is deployed (an empty list means
// unknown: yes).
func (n *Network) HasChaincode(name string) bool {
	return len(n.Chaincodes) == 0 || slices.Contains(n.Chaincodes, name)
}

// Connect opens a gateway to the org's first peer as the named identity
// ("admin", "user1", ...). Close the returned gateway, then the connection.
func (o *Org) Connect(identityName string, timeout time.Duration) (*client.Gateway, *grpc.ClientConn, error) {
	if len(o.Peers) == 0 {
		return nil, nil, fmt.Errorf("org %s has no peers", o.Name)
	}
	p := o.Peers[0]
	if p.TLSCACert == "" { // the peer's TLS CA is its org's unless it names one
		p.TLSCACert = o.TLSCACert
	}
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
