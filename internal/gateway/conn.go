package gateway

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/hyperledger/fabric-gateway/pkg/client"
	"github.com/hyperledger/fabric-gateway/pkg/hash"
	"github.com/hyperledger/fabric-gateway/pkg/identity"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
)

// Options select who connects and how.
type Options struct {
	Org       string // org name or MSP id; "" = first org
	Identity  string // identity name in network.json ("admin", "user1", …); "" = "user1"
	Chaincode string // "" = "ballot"
	Peer      int    // index of the peer to use as gateway, in PeerOrg (or Org)
	// PeerOrg, if set, is the org (name or MSP id) whose peer serves as the
	// gateway, while the client still signs as Identity of Org: a trustee
	// asks every org's own peer over TLS pinned to that org's CA, so that
	// no one peer answers for the others.
	PeerOrg string
	// Timeouts of each gateway call; zero picks defaults (evaluate 30 s,
	// endorse 60 s, submit 30 s, commit 60 s). They bound every attempt
	// even when the caller's context has no deadline: the *WithContext calls
	// of fabric-gateway ignore the client's default timeouts.
	// CommitTimeout bounds the wait for a submitted transaction's commit
	// status; when it expires the transaction's fate is unknown (see
	// ErrCommitStatusUnknown).
	EvaluateTimeout, EndorseTimeout, SubmitTimeout, CommitTimeout time.Duration
	// Retry policy; zero picks defaults (8 attempts, 50 ms base backoff,
	// doubling up to 64×, with ±50 % jitter).
	MaxAttempts int
	Backoff     time.Duration

	// CheckEndpoint, if set, vets the chosen peer's endpoint before any
	// connection is made (the load generator refuses non-loopback peers).
	CheckEndpoint func(endpoint string) error
	// DialOptions are added to this connection's gRPC dial options (each
	// Connect makes its own gRPC connection, so a load generator can open
	// several with different settings).
	DialOptions []grpc.DialOption
}

// Conn is a gateway connection bound to one chaincode.
type Conn struct {
	grpc     *grpc.ClientConn
	gw       *client.Gateway
	backend  backend
	qscc     backend // the query system chaincode, for reading blocks
	channel  string
	peerMSP  string // the MSP of the gateway peer's org
	MSPID    string
	Org      string
	opts     Options
	endpoint string
	fp       string
}

// Connect opens a gateway connection described by net and opts.
func Connect(net *Network, opts Options) (*Conn, error) {
	opts = opts.withDefaults()
	if !net.HasChaincode(opts.Chaincode) {
		return nil, fmt.Errorf("chaincode %q is not deployed on this network (deployed: %v)", opts.Chaincode, net.Chaincodes)
	}
	org, idFiles, err := clientIdentity(net, opts)
	if err != nil {
		return nil, err
	}
	peerOrg, p, err := gatewayPeer(net, org, opts)
	if err != nil {
		return nil, err
	}
	id, certPEM, sign, err := loadIdentity(org.MSPID, idFiles)
	if err != nil {
		return nil, err
	}
	caPEM, pool, err := peerTLSRoots(peerOrg, p)
	if err != nil {
		return nil, err
	}
	cc, err := dialPeer(p, pool, opts.DialOptions)
	if err != nil {
		return nil, err
	}
	gw, err := connectGateway(cc, id, sign, opts)
	if err != nil {
		cc.Close()
		return nil, fmt.Errorf("gateway at %s: %w", p.Endpoint, err)
	}
	return &Conn{
		grpc:     cc,
		gw:       gw,
		backend:  contractBackend{gw.GetNetwork(net.Channel).GetContract(opts.Chaincode)},
		qscc:     contractBackend{gw.GetNetwork(net.Channel).GetContract("qscc")},
		channel:  net.Channel,
		peerMSP:  peerOrg.MSPID,
		MSPID:    org.MSPID,
		Org:      org.Name,
		opts:     opts,
		endpoint: p.Endpoint,
		fp:       fingerprint(caPEM, certPEM, []byte(net.Channel), []byte(opts.Chaincode)),
	}, nil
}

// withDefaults fills the zero fields of opts with the defaults documented on
// Options.
func (opts Options) withDefaults() Options {
	if opts.Identity == "" {
		opts.Identity = "user1"
	}
	if opts.Chaincode == "" {
		opts.Chaincode = "ballot"
	}
	if opts.MaxAttempts <= 0 {
		opts.MaxAttempts = 8
	}
	if opts.Backoff <= 0 {
		opts.Backoff = 50 * time.Millisecond
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&opts.EvaluateTimeout, 30*time.Second)
	def(&opts.EndorseTimeout, 60*time.Second)
	def(&opts.SubmitTimeout, 30*time.Second)
	def(&opts.CommitTimeout, 60*time.Second)
	return opts
}

// clientIdentity finds the org the client signs for and the files of its
// identity opts.Identity.
func clientIdentity(net *Network, opts Options) (*Org, Identity, error) {
	org, err := net.Org(opts.Org)
	if err != nil {
		return nil, Identity{}, fmt.Errorf("--org: %w", err)
	}
	idFiles, ok := org.Identities[opts.Identity]
	if !ok {
		var names []string
		for k := range org.Identities {
			names = append(names, k)
		}
		sort.Strings(names)
		return nil, Identity{}, fmt.Errorf("--identity %q: org %s has no such identity (has: %s)", opts.Identity, org.Name, strings.Join(names, ", "))
	}
	return org, idFiles, nil
}

// gatewayPeer picks the peer that serves as the gateway: peer opts.Peer of
// opts.PeerOrg, or of the client's own org when no PeerOrg is given. It runs
// opts.CheckEndpoint before anything is dialled.
func gatewayPeer(net *Network, org *Org, opts Options) (*Org, Peer, error) {
	peerOrg := org
	if opts.PeerOrg != "" {
		var err error
		if peerOrg, err = net.Org(opts.PeerOrg); err != nil {
			return nil, Peer{}, fmt.Errorf("the gateway peer's org: %w", err)
		}
	}
	if opts.Peer < 0 || opts.Peer >= len(peerOrg.Peers) {
		return nil, Peer{}, fmt.Errorf("peer index %d: org %s has %d peer(s)", opts.Peer, peerOrg.Name, len(peerOrg.Peers))
	}
	p := peerOrg.Peers[opts.Peer]
	if opts.CheckEndpoint != nil {
		if err := opts.CheckEndpoint(p.Endpoint); err != nil {
			return nil, Peer{}, err
		}
	}
	return peerOrg, p, nil
}

// peerTLSRoots reads the CA that p's TLS certificate must chain to (the
// peer's own, else its org's), returning the PEM, which goes into the
// connection's fingerprint, and the pool that pins it.
func peerTLSRoots(peerOrg *Org, p Peer) ([]byte, *x509.CertPool, error) {
	caFile := p.TLSCACert
	if caFile == "" {
		caFile = peerOrg.TLSCACert
	}
	caPEM, err := os.ReadFile(caFile)
	if err != nil {
		return nil, nil, fmt.Errorf("peer %s TLS CA: %w", p.Name, err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, nil, fmt.Errorf("peer %s TLS CA %s: no PEM certificate", p.Name, caFile)
	}
	return caPEM, pool, nil
}

// dialPeer makes the gRPC connection to p over TLS pinned to pool, with
// message limits large enough for a block of ballots, and extra appended.
func dialPeer(p Peer, pool *x509.CertPool, extra []grpc.DialOption) (*grpc.ClientConn, error) {
	dialOpts := append([]grpc.DialOption{
		grpc.WithTransportCredentials(credentials.NewClientTLSFromCert(pool, p.ServerNameOverride)),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(64<<20), grpc.MaxCallSendMsgSize(64<<20)),
	}, extra...)
	cc, err := grpc.NewClient(p.Endpoint, dialOpts...)
	if err != nil {
		return nil, fmt.Errorf("peer %s at %s: %w", p.Name, p.Endpoint, err)
	}
	return cc, nil
}

// connectGateway opens the fabric-gateway client on cc, signing as id, with
// the timeouts of opts.
func connectGateway(cc *grpc.ClientConn, id *identity.X509Identity, sign identity.Sign, opts Options) (*client.Gateway, error) {
	return client.Connect(id,
		client.WithSign(sign),
		client.WithHash(hash.SHA256),
		client.WithClientConnection(cc),
		client.WithEvaluateTimeout(opts.EvaluateTimeout),
		client.WithEndorseTimeout(opts.EndorseTimeout),
		client.WithSubmitTimeout(opts.SubmitTimeout),
		client.WithCommitStatusTimeout(opts.CommitTimeout),
	)
}

// fingerprint hashes length-prefixed parts, so that no two part lists collide.
func fingerprint(parts ...[]byte) string {
	h := sha256.New()
	for _, part := range parts {
		fmt.Fprintf(h, "%d:", len(part))
		h.Write(part)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func loadIdentity(mspID string, f Identity) (*identity.X509Identity, []byte, identity.Sign, error) {
	certPEM, err := os.ReadFile(f.Cert)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("identity certificate: %w", err)
	}
	cert, err := identity.CertificateFromPEM(certPEM)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("identity certificate %s: %w", f.Cert, err)
	}
	id, err := identity.NewX509Identity(mspID, cert)
	if err != nil {
		return nil, nil, nil, err
	}
	keyPEM, err := os.ReadFile(f.Key)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("identity key: %w", err)
	}
	key, err := identity.PrivateKeyFromPEM(keyPEM)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("identity key %s: %w", f.Key, err)
	}
	sign, err := identity.NewPrivateKeySign(key)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("identity key %s: %w", f.Key, err)
	}
	return id, certPEM, sign, nil
}

// Close closes the gateway and its gRPC connection.
func (c *Conn) Close() error {
	c.gw.Close()
	return c.grpc.Close()
}

// Gateway is the underlying fabric-gateway client, for callers that drive
// the transaction phases themselves (internal/loadgen); it is closed by Close.
func (c *Conn) Gateway() *client.Gateway { return c.gw }

// Endpoint is the address of the gateway peer.
func (c *Conn) Endpoint() string { return c.endpoint }

// Fingerprint identifies the network instance this connection talks to: a
// hash of the peer's TLS CA, the client certificate, the channel and the
// chaincode. Prepared (endorsed) transactions only replay where it matches.
func (c *Conn) Fingerprint() string { return c.fp }

// Channel is the channel the connection is bound to.
func (c *Conn) Channel() string { return c.channel }

// PeerMSP is the MSP id of the gateway peer's org.
func (c *Conn) PeerMSP() string { return c.peerMSP }

// Chaincode is the name of the chaincode the connection calls (its state namespace).
func (c *Conn) Chaincode() string { return c.opts.Chaincode }
