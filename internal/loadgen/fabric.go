package loadgen

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"sync"
	"time"

	"github.com/fabvote/fabvote/internal/gateway"
	"github.com/hyperledger/fabric-gateway/pkg/client"
	"github.com/hyperledger/fabric-protos-go-apiv2/peer"
	"google.golang.org/grpc"
)

// Conn is a fabric-gateway connection for load generation. Unlike
// internal/gateway.Conn (the CLI's, with retries and typed results) it
// exposes the transaction's phases, never retries, and watches commits
// through one filtered-block stream instead of a commit-status call per
// transaction, so thousands of transactions can be in flight without
// holding as many gateway requests open.
type Conn struct {
	conn     *gateway.Conn
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
	blocks  []BlockCut // the blocks that committed transactions of this connection
}

type commitEvent struct {
	code peer.TxValidationCode
	at   time.Time
	err  error
}

// DialOptions select the org, identity and chaincode ("" picks
// gateway.Connect's defaults: the first org, user1, ballot).
type DialOptions struct {
	Org, Identity, Chaincode string
	Timeout                  time.Duration // per gateway call (endorse, submit); 0 = 60 s
	// GRPC options are added to this connection's own gRPC connection
	// (every Dial makes one; several Dials spread load over several).
	GRPC []grpc.DialOption
	// Remote lets the gateway peer be on another host. Without it Dial
	// refuses a non-loopback endpoint (CheckLoopback), so that a load run
	// meant for the benchmark network cannot reach a real election's.
	Remote bool
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

// Dial connects to the gateway peer of opts.Org in the network description
// through gateway.Connect (one gRPC connection per call), with every
// gateway call bounded by opts.Timeout.
func Dial(netw *gateway.Network, opts DialOptions) (*Conn, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = 60 * time.Second
	}
	check := CheckLoopback
	if opts.Remote {
		check = nil
	}
	gc, err := gateway.Connect(netw, gateway.Options{
		Org: opts.Org, Identity: opts.Identity, Chaincode: opts.Chaincode,
		EvaluateTimeout: opts.Timeout, EndorseTimeout: opts.Timeout,
		SubmitTimeout: opts.Timeout, CommitTimeout: opts.Timeout,
		CheckEndpoint: check, DialOptions: opts.GRPC,
	})
	if err != nil {
		return nil, err
	}
	chaincode := opts.Chaincode
	if chaincode == "" {
		chaincode = "ballot"
	}
	gw := gc.Gateway()
	nw := gw.GetNetwork(netw.Channel)
	return &Conn{
		conn: gc, gw: gw, network: nw, contract: nw.GetContract(chaincode),
		Fingerprint: gc.Fingerprint(), Endpoint: gc.Endpoint(),
		waiting: map[string]chan commitEvent{},
	}, nil
}

// Close closes the connection (and the block stream with it).
func (c *Conn) Close() error {
	return c.conn.Close()
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
			txs := b.GetFilteredTransactions()
			ours := false
			for _, tx := range txs {
				if w, ok := c.waiting[tx.GetTxid()]; ok {
					w <- commitEvent{code: tx.GetTxValidationCode(), at: now}
					delete(c.waiting, tx.GetTxid())
					ours = true
				}
			}
			if ours {
				c.blocks = append(c.blocks, BlockCut{Number: b.GetNumber(), Txs: len(txs)})
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

// Blocks returns the blocks that have committed transactions this
// connection waited for, in the order they arrived.
func (c *Conn) Blocks() []BlockCut {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.blocks)
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
	// (500 by default) with codes.Unknown "too many requests for …". Waiting for a slot is part of
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
	if t.Mode == Replay {
		tx, reason := t.prepared(payload)
		if reason != "" {
			return failed(s, reason)
		}
		return t.submitAndAwait(ctx, tx, s)
	}
	tx, reason := t.endorse(ctx, payload)
	if reason != "" {
		return failed(s, reason)
	}
	s.Endorsed = time.Now()
	if t.Mode == EndorseOnly {
		return t.keepEndorsed(index, tx, s)
	}
	return t.submitAndAwait(ctx, tx, s)
}

// failed ends s now with reason.
func failed(s Sample, reason string) Sample {
	s.Done = time.Now()
	s.Reason = reason
	return s
}

// prepared decodes a transaction endorsed earlier (Replay mode). It returns
// the failure reason, or "" on success.
func (t *FabricTarget) prepared(payload []byte) (*client.Transaction, string) {
	tx, err := t.Conn.gw.NewTransaction(payload)
	if err != nil {
		return nil, "replay: bad prepared transaction"
	}
	return tx, ""
}

// endorse has payload endorsed as t.Fn's argument, holding a gateway slot
// for the call. It returns the failure reason, or "" on success.
func (t *FabricTarget) endorse(ctx context.Context, payload []byte) (*client.Transaction, string) {
	prop, err := t.Conn.contract.NewProposal(t.Fn, client.WithBytesArguments(payload))
	if err != nil {
		return nil, "endorse: building proposal"
	}
	if !t.acquire(ctx) {
		return nil, ErrorReason("endorse", ctx.Err())
	}
	tx, err := prop.EndorseWithContext(ctx)
	t.release()
	if err != nil {
		return nil, ErrorReason("endorse", err)
	}
	return tx, ""
}

// keepEndorsed ends an EndorseOnly transaction: it hands tx to t.Keep, if
// set (for a Store), and the sample is done when the endorsement was.
func (t *FabricTarget) keepEndorsed(index int, tx *client.Transaction, s Sample) Sample {
	if t.Keep != nil {
		b, err := tx.Bytes()
		if err == nil {
			err = t.Keep(index, b)
		}
		if err != nil {
			return failed(s, "store: "+err.Error())
		}
	}
	s.Done, s.OK = s.Endorsed, true
	return s
}

// submitAndAwait sends tx for ordering and waits for its commit. The wait is
// registered before the submit, so that a commit event that comes quickly is
// not missed.
func (t *FabricTarget) submitAndAwait(ctx context.Context, tx *client.Transaction, s Sample) Sample {
	txID := tx.TransactionID()
	w, err := t.Conn.expect(txID)
	if err != nil {
		return failed(s, "commit: "+err.Error())
	}
	if reason := t.submit(ctx, tx); reason != "" {
		t.Conn.forget(txID)
		return failed(s, reason)
	}
	return t.awaitCommit(ctx, txID, w, s)
}

// submit sends tx for ordering, holding a gateway slot for the call. It
// returns the failure reason, or "" on success.
func (t *FabricTarget) submit(ctx context.Context, tx *client.Transaction) string {
	if !t.acquire(ctx) {
		return ErrorReason("submit", ctx.Err())
	}
	_, err := tx.SubmitWithContext(ctx)
	t.release()
	if err != nil {
		return ErrorReason("submit", err)
	}
	return ""
}

// awaitCommit waits for txID's commit event on w, for at most
// t.CommitTimeout; the sample is done when the block carrying it arrived.
func (t *FabricTarget) awaitCommit(ctx context.Context, txID string, w chan commitEvent, s Sample) Sample {
	to := t.CommitTimeout
	if to <= 0 {
		to = 2 * time.Minute
	}
	timer := time.NewTimer(to)
	defer timer.Stop()
	select {
	case ev := <-w:
		if ev.err != nil {
			return failed(s, "commit: "+ev.err.Error())
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
		return failed(s, "commit: timeout")
	case <-ctx.Done():
		t.Conn.forget(txID)
		return failed(s, ErrorReason("commit", ctx.Err()))
	}
}
