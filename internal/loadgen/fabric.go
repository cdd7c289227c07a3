package loadgen

import (
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"time"

	"github.com/fabvote/fabvote/internal/gateway"
	"github.com/hyperledger/fabric-gateway/pkg/client"
	"github.com/hyperledger/fabric-gateway/pkg/hash"
	"github.com/hyperledger/fabric-gateway/pkg/identity"
	"github.com/hyperledger/fabric-protos-go-apiv2/peer"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
)

// Conn is a fabric-gateway connection for load generation. Unlike
// internal/gateway.Conn (the CLI's, with retries and typed results) it
// exposes the transaction's phases, never retries, and watches commits
// through one filtered-block stream instead of a commit-status call per
// transaction, so thousands of transactions can be in flight without
// holding as many gateway requests open.
type Conn struct {
	grpc     *grpc.ClientConn
	gw       *client.Gateway
	network  *client.Network
	contract *client.Contract
	// Fingerprint identifies the network instance (its TLS CA, the client
	// identity, the channel and chaincode): prepared transactions only
	// replay on the instance they were endorsed on.
	Fingerprint string
	Endpoint    string

	mu      sync.Mutex
	waiting map[string]chan commitEvent
	events  bool
	evErr   error
}

type commitEvent struct {
	code peer.TxValidationCode
	at   time.Time
	err  error
}

// DialOptions select the org, identity and chaincode.
type DialOptions struct {
	Org, Identity, Chaincode string
	Timeout                  time.Duration // per gateway call (endorse, submit); 0 = 60 s
}

// CheckLoopback refuses endpoints that are not on this host: the load
// generator is for the single-host benchmark network only.
func CheckLoopback(endpoint string) error {
	host, _, err := net.SplitHostPort(endpoint)
	if err != nil {
		return fmt.Errorf("peer endpoint %q: %w", endpoint, err)
	}
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("peer endpoint %q is not a loopback address: fabvote bench only loads a network on this host", endpoint)
	}
	return nil
}

// Dial connects to the gateway peer of opts.Org in the network description.
func Dial(netw *gateway.Network, opts DialOptions) (*Conn, error) {
	if opts.Identity == "" {
		opts.Identity = "user1"
	}
	if opts.Chaincode == "" {
		opts.Chaincode = "ballot"
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 60 * time.Second
	}
	if !netw.HasChaincode(opts.Chaincode) {
		return nil, fmt.Errorf("chaincode %q is not deployed on this network (deployed: %v)", opts.Chaincode, netw.Chaincodes)
	}
	org, err := netw.Org(opts.Org)
	if err != nil {
		return nil, err
	}
	idf, ok := org.Identities[opts.Identity]
	if !ok {
		return nil, fmt.Errorf("--identity %q: org %s has no such identity", opts.Identity, org.Name)
	}
	p := org.Peers[0]
	if err := CheckLoopback(p.Endpoint); err != nil {
		return nil, err
	}
	caFile := p.TLSCACert
	if caFile == "" {
		caFile = org.TLSCACert
	}
	caPEM, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("peer %s TLS CA: %w", p.Name, err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, fmt.Errorf("peer %s TLS CA %s: no PEM certificate", p.Name, caFile)
	}
	certPEM, err := os.ReadFile(idf.Cert)
	if err != nil {
		return nil, fmt.Errorf("identity %s certificate: %w", opts.Identity, err)
	}
	cert, err := identity.CertificateFromPEM(certPEM)
	if err != nil {
		return nil, fmt.Errorf("identity certificate %s: %w", idf.Cert, err)
	}
	id, err := identity.NewX509Identity(org.MSPID, cert)
	if err != nil {
		return nil, err
	}
	keyPEM, err := os.ReadFile(idf.Key)
	if err != nil {
		return nil, fmt.Errorf("identity %s key: %w", opts.Identity, err)
	}
	key, err := identity.PrivateKeyFromPEM(keyPEM)
	if err != nil {
		return nil, fmt.Errorf("identity key %s: %w", idf.Key, err)
	}
	sign, err := identity.NewPrivateKeySign(key)
	if err != nil {
		return nil, fmt.Errorf("identity key %s: %w", idf.Key, err)
	}
	cc, err := grpc.NewClient(p.Endpoint,
		grpc.WithTransportCredentials(credentials.NewClientTLSFromCert(pool, p.ServerNameOverride)),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(64<<20), grpc.MaxCallSendMsgSize(64<<20)))
	if err != nil {
		return nil, fmt.Errorf("peer %s at %s: %w", p.Name, p.Endpoint, err)
	}
	gw, err := client.Connect(id, client.WithSign(sign), client.WithHash(hash.SHA256), client.WithClientConnection(cc),
		client.WithEvaluateTimeout(opts.Timeout), client.WithEndorseTimeout(opts.Timeout),
		client.WithSubmitTimeout(opts.Timeout), client.WithCommitStatusTimeout(opts.Timeout))
	if err != nil {
		cc.Close()
		return nil, fmt.Errorf("gateway at %s: %w", p.Endpoint, err)
	}
	h := sha256.New()
	for _, part := range [][]byte{caPEM, certPEM, []byte(netw.Channel), []byte(opts.Chaincode)} {
		fmt.Fprintf(h, "%d:", len(part))
		h.Write(part)
	}
	nw := gw.GetNetwork(netw.Channel)
	return &Conn{
		grpc: cc, gw: gw, network: nw, contract: nw.GetContract(opts.Chaincode),
		Fingerprint: hex.EncodeToString(h.Sum(nil)), Endpoint: p.Endpoint,
		waiting: map[string]chan commitEvent{},
	}, nil
}

// Close closes the connection (and the block stream with it).
func (c *Conn) Close() error {
	c.gw.Close()
	return c.grpc.Close()
}

// WatchCommits opens the filtered-block stream that reports commits; it
// runs until ctx ends. Call it once before the first Do that waits for commits.
func (c *Conn) WatchCommits(ctx context.Context) error {
	ch, err := c.network.FilteredBlockEvents(ctx)
	if err != nil {
		return fmt.Errorf("opening the block event stream: %w", err)
	}
	c.mu.Lock()
	c.events = true
	c.mu.Unlock()
	go func() {
		for b := range ch {
			now := time.Now()
			c.mu.Lock()
			for _, tx := range b.GetFilteredTransactions() {
				if w, ok := c.waiting[tx.GetTxid()]; ok {
					w <- commitEvent{code: tx.GetTxValidationCode(), at: now}
					delete(c.waiting, tx.GetTxid())
				}
			}
			c.mu.Unlock()
		}
		// The stream ended: whoever still waits will not hear of its commit.
		c.mu.Lock()
		c.evErr = errors.New("block event stream closed")
		for id, w := range c.waiting {
			w <- commitEvent{err: c.evErr}
			delete(c.waiting, id)
		}
		c.mu.Unlock()
	}()
	return nil
}

func (c *Conn) expect(txID string) (chan commitEvent, error) {
	w := make(chan commitEvent, 1)
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.events {
		return nil, errors.New("WatchCommits was not called")
	}
	if c.evErr != nil {
		return nil, c.evErr
	}
	c.waiting[txID] = w
	return w, nil
}

func (c *Conn) forget(txID string) {
	c.mu.Lock()
	delete(c.waiting, txID)
	c.mu.Unlock()
}

// Mode selects which phases a transaction goes through.
type Mode int

const (
	// Full: endorse, submit to ordering, wait for the commit.
	Full Mode = iota
	// EndorseOnly: endorse and stop (the thesis's skip-commit); with a
	// Store, the endorsed transaction is kept for Replay.
	EndorseOnly
	// Replay: submit a prepared, already endorsed transaction and wait for
	// its commit (the thesis's skip-endorsement).
	Replay
)

func (m Mode) String() string {
	switch m {
	case Full:
		return "full"
	case EndorseOnly:
		return "skip-commit"
	case Replay:
		return "skip-endorsement"
	}
	return fmt.Sprintf("mode(%d)", int(m))
}

// FabricTarget runs transactions of one chaincode function.
type FabricTarget struct {
	Conn          *Conn
	Mode          Mode
	Fn            string        // chaincode function, e.g. CastBallot
	CommitTimeout time.Duration // Full and Replay: how long to wait for a commit (0 = 2 min)
	// Keep, in EndorseOnly mode, receives each endorsed transaction (for a Store).
	Keep func(index int, tx []byte) error
	// Slots, if not nil, bounds the gateway calls (endorse, submit) in
	// flight: a peer refuses more than peer.limits.concurrency.gatewayService
	// (500 by default) with ResourceExhausted. Waiting for a slot is part of
	// the transaction's latency, as a queue in front of the peer would be.
	Slots chan struct{}
}

// NewSlots makes a Slots semaphore of size n (nil for n ≤ 0: no bound).
func NewSlots(n int) chan struct{} {
	if n <= 0 {
		return nil
	}
	return make(chan struct{}, n)
}

func (t *FabricTarget) acquire(ctx context.Context) bool {
	if t.Slots == nil {
		return true
	}
	select {
	case t.Slots <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

func (t *FabricTarget) release() {
	if t.Slots != nil {
		<-t.Slots
	}
}

// Do implements Target.
func (t *FabricTarget) Do(ctx context.Context, index int, payload []byte) Sample {
	s := Sample{Start: time.Now()}
	fail := func(reason string) Sample {
		s.Done = time.Now()
		s.Reason = reason
		return s
	}
	var tx *client.Transaction
	if t.Mode == Replay {
		var err error
		if tx, err = t.Conn.gw.NewTransaction(payload); err != nil {
			return fail("replay: bad prepared transaction")
		}
	} else {
		prop, err := t.Conn.contract.NewProposal(t.Fn, client.WithBytesArguments(payload))
		if err != nil {
			return fail("endorse: building proposal")
		}
		if !t.acquire(ctx) {
			return fail(ErrorReason("endorse", ctx.Err()))
		}
		tx, err = prop.EndorseWithContext(ctx)
		t.release()
		if err != nil {
			return fail(ErrorReason("endorse", err))
		}
		s.Endorsed = time.Now()
		if t.Mode == EndorseOnly {
			if t.Keep != nil {
				b, err := tx.Bytes()
				if err == nil {
					err = t.Keep(index, b)
				}
				if err != nil {
					return fail("store: " + err.Error())
				}
			}
			s.Done, s.OK = s.Endorsed, true
			return s
		}
	}
	txID := tx.TransactionID()
	w, err := t.Conn.expect(txID)
	if err != nil {
		return fail("commit: " + err.Error())
	}
	if !t.acquire(ctx) {
		t.Conn.forget(txID)
		return fail(ErrorReason("submit", ctx.Err()))
	}
	_, err = tx.SubmitWithContext(ctx)
	t.release()
	if err != nil {
		t.Conn.forget(txID)
		return fail(ErrorReason("submit", err))
	}
	to := t.CommitTimeout
	if to <= 0 {
		to = 2 * time.Minute
	}
	timer := time.NewTimer(to)
	defer timer.Stop()
	select {
	case ev := <-w:
		if ev.err != nil {
			return fail("commit: " + ev.err.Error())
		}
		s.Done = ev.at
		if ev.code != peer.TxValidationCode_VALID {
			s.Reason = CommitReason(ev.code)
			return s
		}
		s.OK = true
		return s
	case <-timer.C:
		t.Conn.forget(txID)
		return fail("commit: timeout")
	case <-ctx.Done():
		t.Conn.forget(txID)
		return fail(ErrorReason("commit", ctx.Err()))
	}
}
