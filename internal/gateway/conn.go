package gateway

import (
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hyperledger/fabric-gateway/pkg/client"
	"github.com/hyperledger/fabric-gateway/pkg/hash"
	"github.com/hyperledger/fabric-gateway/pkg/identity"
	"github.com/hyperledger/fabric-protos-go-apiv2/common"
	"github.com/hyperledger/fabric-protos-go-apiv2/peer"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
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

// ErrCommitStatusUnknown marks a transaction that was submitted for ordering
// but whose commit was not confirmed within Options.CommitTimeout (or whose
// submission timed out): it may still commit. Submit retries it as a new
// transaction, which is safe for fabvote's contract: every transaction that
// writes a voter's ballot (or an election, or a result) reads that key first,
// so at most one of two copies commits (the other meets DUPLICATE, or EXISTS,
// at endorsement, or MVCC_READ_CONFLICT at validation). ledger.CastBallot
// turns a DUPLICATE met on a retry (RejectError.Attempts > 1) into success
// once the stored ballot is byte-identical, so a ballot whose first copy did
// commit counts as committed. If the attempts run out, the error still wraps
// this value, so callers can report "commit status unknown", not "failed".
var ErrCommitStatusUnknown = errors.New("commit status unknown")

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

	if !net.HasChaincode(opts.Chaincode) {
		return nil, fmt.Errorf("chaincode %q is not deployed on this network (deployed: %v)", opts.Chaincode, net.Chaincodes)
	}
	org, err := net.Org(opts.Org)
	if err != nil {
		return nil, err
	}
	idFiles, ok := org.Identities[opts.Identity]
	if !ok {
		var names []string
		for k := range org.Identities {
			names = append(names, k)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("--identity %q: org %s has no such identity (has: %s)", opts.Identity, org.Name, strings.Join(names, ", "))
	}
	peerOrg := org
	if opts.PeerOrg != "" {
		if peerOrg, err = net.Org(opts.PeerOrg); err != nil {
			return nil, err
		}
	}
	if opts.Peer < 0 || opts.Peer >= len(peerOrg.Peers) {
		return nil, fmt.Errorf("peer index %d: org %s has %d peer(s)", opts.Peer, peerOrg.Name, len(peerOrg.Peers))
	}
	p := peerOrg.Peers[opts.Peer]
	if opts.CheckEndpoint != nil {
		if err := opts.CheckEndpoint(p.Endpoint); err != nil {
			return nil, err
		}
	}
	id, certPEM, sign, err := loadIdentity(org.MSPID, idFiles)
	if err != nil {
		return nil, err
	}
	caFile := p.TLSCACert
	if caFile == "" {
		caFile = peerOrg.TLSCACert
	}
	caPEM, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("peer %s TLS CA: %w", p.Name, err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, fmt.Errorf("peer %s TLS CA %s: no PEM certificate", p.Name, caFile)
	}
	dialOpts := append([]grpc.DialOption{
		grpc.WithTransportCredentials(credentials.NewClientTLSFromCert(pool, p.ServerNameOverride)),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(64<<20), grpc.MaxCallSendMsgSize(64<<20)),
	}, opts.DialOptions...)
	cc, err := grpc.NewClient(p.Endpoint, dialOpts...)
	if err != nil {
		return nil, fmt.Errorf("peer %s at %s: %w", p.Name, p.Endpoint, err)
	}
	gw, err := client.Connect(id,
		client.WithSign(sign),
		client.WithHash(hash.SHA256),
		client.WithClientConnection(cc),
		client.WithEvaluateTimeout(opts.EvaluateTimeout),
		client.WithEndorseTimeout(opts.EndorseTimeout),
		client.WithSubmitTimeout(opts.SubmitTimeout),
		client.WithCommitStatusTimeout(opts.CommitTimeout),
	)
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

// Receipt is what a committed transaction gives back.
type Receipt struct {
	TxID     string
	Block    uint64
	Result   []byte
	Attempts int
}

// Evaluate runs a query on one peer (no ledger write).
func (c *Conn) Evaluate(ctx context.Context, fn string, args ...[]byte) ([]byte, error) {
	return c.evaluate(ctx, c.backend, fn, args)
}

// EvaluateInOwnOrg runs a query on a peer of the gateway peer's own org
// only (fabric-gateway's target organisations), never one the gateway picks
// elsewhere: the answer is that org's.
func (c *Conn) EvaluateInOwnOrg(ctx context.Context, fn string, args ...[]byte) ([]byte, error) {
	return c.evaluate(ctx, orgBackend{c.backend, c.peerMSP}, fn, args)
}

// Channel is the channel the connection is bound to.
func (c *Conn) Channel() string { return c.channel }

// PeerMSP is the MSP id of the gateway peer's org.
func (c *Conn) PeerMSP() string { return c.peerMSP }

// Chaincode is the name of the chaincode the connection calls (its state namespace).
func (c *Conn) Chaincode() string { return c.opts.Chaincode }

// Height returns the number of blocks on the channel (qscc GetChainInfo).
func (c *Conn) Height(ctx context.Context) (uint64, error) { return c.height(ctx, c.qscc) }

// Block returns block number n, marshalled (qscc GetBlockByNumber).
func (c *Conn) Block(ctx context.Context, n uint64) ([]byte, error) { return c.block(ctx, c.qscc, n) }

// HeightInOwnOrg and BlockInOwnOrg are Height and Block answered by a peer
// of the gateway peer's own org only. The gateway otherwise falls back to
// another org's peer when its own org's cannot answer, and a block's
// transactions filter is the answering peer's own validation: reading each
// org's verdicts needs each org's peer.
func (c *Conn) HeightInOwnOrg(ctx context.Context) (uint64, error) {
	return c.height(ctx, orgBackend{c.qscc, c.peerMSP})
}

// BlockInOwnOrg: see HeightInOwnOrg.
func (c *Conn) BlockInOwnOrg(ctx context.Context, n uint64) ([]byte, error) {
	return c.block(ctx, orgBackend{c.qscc, c.peerMSP}, n)
}

func (c *Conn) height(ctx context.Context, qscc backend) (uint64, error) {
	out, err := c.evaluate(ctx, qscc, "GetChainInfo", [][]byte{[]byte(c.channel)})
	if err != nil {
		return 0, err
	}
	var info common.BlockchainInfo
	if err := proto.Unmarshal(out, &info); err != nil {
		return 0, fmt.Errorf("GetChainInfo: reply does not decode: %w", err)
	}
	return info.Height, nil
}

func (c *Conn) block(ctx context.Context, qscc backend, n uint64) ([]byte, error) {
	return c.evaluate(ctx, qscc, "GetBlockByNumber", [][]byte{[]byte(c.channel), []byte(strconv.FormatUint(n, 10))})
}

func (c *Conn) evaluate(ctx context.Context, b backend, fn string, args [][]byte) ([]byte, error) {
	var lastErr error
	for attempt := 1; attempt <= c.opts.MaxAttempts; attempt++ {
		call, cancel := context.WithTimeout(ctx, c.opts.EvaluateTimeout)
		res, err := b.evaluate(call, fn, args)
		cancel()
		if err == nil {
			return res, nil
		}
		lastErr = classify(fn, err)
		if !IsRetryable(lastErr) || ctx.Err() != nil {
			return nil, lastErr
		}
		c.sleep(ctx, attempt)
	}
	return nil, lastErr
}

// Submit endorses, orders and waits for the commit of fn(args), retrying
// transient failures with exponential backoff and jitter. A contract rejection
// (*RejectError) or an invalid commit other than a read conflict returns at
// once. If any attempt ended with its commit status unknown and no later
// attempt settled the matter, the error wraps ErrCommitStatusUnknown: that
// transaction may have committed, so the call is not known to have failed.
func (c *Conn) Submit(ctx context.Context, fn string, args ...[]byte) (*Receipt, error) {
	var lastErr, unknown error
	for attempt := 1; attempt <= c.opts.MaxAttempts; attempt++ {
		r, err := c.submitOnce(ctx, fn, args)
		if err == nil {
			r.Attempts = attempt
			return r, nil
		}
		lastErr = err
		if errors.Is(err, ErrCommitStatusUnknown) {
			unknown = err
		}
		if !IsRetryable(err) || ctx.Err() != nil {
			if re := (*RejectError)(nil); errors.As(err, &re) {
				// A DUPLICATE here after an unknown attempt is that
				// attempt's commit: the caller reconciles it (Attempts > 1).
				re.Attempts = attempt
				return nil, err
			}
			return nil, stillUnknown(fn, attempt, err, unknown)
		}
		c.sleep(ctx, attempt)
	}
	if unknown != nil {
		return nil, stillUnknown(fn, c.opts.MaxAttempts, lastErr, unknown)
	}
	return nil, fmt.Errorf("%s: gave up after %d attempts: %w", fn, c.opts.MaxAttempts, lastErr)
}

// stillUnknown reports a Submit that ended in err after attempts while an
// earlier attempt's fate (unknownErr, nil if none) is still open: its text
// starts with "FN: commit status unknown", so a summary keyed by message
// prefix shows it apart from failures, and it wraps ErrCommitStatusUnknown.
func stillUnknown(fn string, attempts int, err, unknownErr error) error {
	if unknownErr == nil {
		return err
	}
	if err == unknownErr {
		return fmt.Errorf("%s: %w after %d attempt(s), the transaction may still commit (check the ledger before submitting again): %w", fn, ErrCommitStatusUnknown, attempts, err)
	}
	return fmt.Errorf("%s: %w after %d attempt(s), an earlier one may still commit (%v); last attempt: %w", fn, ErrCommitStatusUnknown, attempts, unknownErr, err)
}

func (c *Conn) sleep(ctx context.Context, attempt int) {
	d := c.opts.Backoff << min(attempt-1, 6)
	d = d/2 + time.Duration(rand.Int64N(int64(d)))
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

func (c *Conn) submitOnce(ctx context.Context, fn string, args [][]byte) (*Receipt, error) {
	// Each phase runs under its own deadline as well as the caller's.
	call, cancel := context.WithTimeout(ctx, c.opts.EndorseTimeout)
	tx, err := c.backend.endorse(call, fn, args)
	cancel()
	if err != nil {
		// Nothing was sent for ordering: any retry is a clean one.
		return nil, classify(fn, err)
	}
	call, cancel = context.WithTimeout(ctx, c.opts.SubmitTimeout)
	commit, err := tx.submit(call)
	cancel()
	if err != nil {
		if ctx.Err() == nil && call.Err() != nil {
			// Our deadline, not the caller's: the orderer may have the
			// transaction all the same.
			return nil, &TransientError{Fn: fn, Err: fmt.Errorf("%w: transaction %s: no answer from the orderer within %v: %v", ErrCommitStatusUnknown, tx.TransactionID(), c.opts.SubmitTimeout, err)}
		}
		return nil, classify(fn, err)
	}
	// Wait for the commit under its own deadline: a transaction the orderer
	// lost (say, a Raft leader killed before replicating it) never commits,
	// and waiting on the caller's context alone would hang forever.
	wait, cancel := context.WithTimeout(ctx, c.opts.CommitTimeout)
	defer cancel()
	st, err := commit.StatusWithContext(wait)
	if err != nil {
		if ctx.Err() == nil && wait.Err() != nil {
			// Our deadline, not the caller's: the transaction may still
			// commit. Submit retries it; see ErrCommitStatusUnknown for why
			// that is safe.
			return nil, &TransientError{Fn: fn, Err: fmt.Errorf("%w: transaction %s not committed within %v (it may still commit): %v", ErrCommitStatusUnknown, tx.TransactionID(), c.opts.CommitTimeout, err)}
		}
		if ctx.Err() != nil {
			// The caller gave up while the transaction was being ordered:
			// final, but not a failure either.
			return nil, fmt.Errorf("%s: %w: transaction %s: wait interrupted: %w", fn, ErrCommitStatusUnknown, tx.TransactionID(), ctx.Err())
		}
		return nil, classify(fn, err)
	}
	if !st.Successful {
		return nil, &CommitError{Fn: fn, TxID: st.TransactionID, Code: st.Code}
	}
	return &Receipt{TxID: st.TransactionID, Block: st.BlockNumber, Result: tx.Result()}, nil
}

// RejectError is a definitive rejection by the contract: "fabvote CODE: msg".
type RejectError struct {
	Fn       string
	Code     string // protocol code, e.g. DUPLICATE
	Msg      string // the contract's message, "fabvote CODE: …"
	Attempts int
}

func (e *RejectError) Error() string { return fmt.Sprintf("%s rejected: %s", e.Fn, e.Msg) }

// CommitError is a transaction that was ordered but committed as invalid.
type CommitError struct {
	Fn   string
	TxID string
	Code peer.TxValidationCode
}

func (e *CommitError) Error() string {
	return fmt.Sprintf("%s: transaction %s committed as invalid: %s", e.Fn, e.TxID, e.Code)
}

// TransientError is a failure worth retrying.
type TransientError struct {
	Fn  string
	Err error
}

func (e *TransientError) Error() string { return fmt.Sprintf("%s: transient failure: %v", e.Fn, e.Err) }
func (e *TransientError) Unwrap() error { return e.Err }

// staleSnapshot is the lockless gate's retryable error text (txmgr/lockless.ErrStaleSnapshot).
const staleSnapshot = "simulation overlapped a ledger commit"

// The peer's gRPC concurrency limiter (peer.limits.concurrency.*, Fabric's
// internal/peer/node/grpc_limiters.go) refuses a call with a plain error,
// which gRPC delivers as codes.Unknown, not ResourceExhausted:
// "too many requests for /gateway.Gateway, exceeding concurrency limit (500)".
// The refusal comes before the call is handled, so nothing was endorsed or
// ordered and a retry after a backoff is safe; it is the one Unknown error we
// retry. It is matched narrowly (code Unknown, the message starting with the
// limiter's prefix and naming the limit) so that a chaincode error or a peer
// detail that merely quotes the words stays final.
const (
	overloadPrefix = "too many requests for "
	overloadLimit  = "exceeding concurrency limit ("
)

// isPeerOverloaded reports whether err is the limiter's refusal.
func isPeerOverloaded(err error) bool {
	// The status itself, not status.FromError's view of a wrapped error,
	// whose message would be the whole wrapped text.
	var gs interface{ GRPCStatus() *status.Status }
	if !errors.As(err, &gs) || gs.GRPCStatus().Code() != codes.Unknown {
		return false
	}
	msg := gs.GRPCStatus().Message()
	return strings.HasPrefix(msg, overloadPrefix) && strings.Contains(msg, overloadLimit)
}

// IsRetryable reports whether err is worth another attempt.
func IsRetryable(err error) bool {
	var te *TransientError
	if errors.As(err, &te) {
		return true
	}
	var ce *CommitError
	if errors.As(err, &ce) {
		return ce.Code == peer.TxValidationCode_MVCC_READ_CONFLICT || ce.Code == peer.TxValidationCode_PHANTOM_READ_CONFLICT
	}
	return false
}

// classify turns a gateway error into RejectError, TransientError or a plain error.
func classify(fn string, err error) error {
	text := errorText(err)
	if code, msg := contractCode(text); code != "" {
		return &RejectError{Fn: fn, Code: code, Msg: msg}
	}
	if strings.Contains(text, staleSnapshot) || strings.Contains(text, "MVCC_READ_CONFLICT") ||
		isPeerOverloaded(err) {
		return &TransientError{Fn: fn, Err: err}
	}
	var cse *client.CommitStatusError
	if errors.As(err, &cse) {
		// The commit-status call failed: the transaction may or may not have
		// committed. A retry meets a DUPLICATE the caller reconciles through
		// a query (see ErrCommitStatusUnknown).
		return &TransientError{Fn: fn, Err: fmt.Errorf("%w: transaction %s: %w", ErrCommitStatusUnknown, cse.TransactionID, err)}
	}
	switch status.Code(err) {
	case codes.Unavailable, codes.DeadlineExceeded, codes.ResourceExhausted, codes.Aborted:
		return &TransientError{Fn: fn, Err: err}
	}
	return fmt.Errorf("%s: %s", fn, text)
}

// errorText flattens a gateway error with its per-peer details.
func errorText(err error) string {
	var b strings.Builder
	b.WriteString(err.Error())
	if st, ok := status.FromError(err); ok {
		for _, d := range st.Details() {
			if ed, ok := d.(interface {
				GetAddress() string
				GetMspId() string
				GetMessage() string
			}); ok {
				fmt.Fprintf(&b, "; peer %s (%s): %s", ed.GetAddress(), ed.GetMspId(), ed.GetMessage())
			}
		}
	}
	return b.String()
}

// contractCode finds "fabvote CODE: message" in text.
func contractCode(text string) (code, msg string) {
	i := strings.Index(text, "fabvote ")
	for i >= 0 {
		rest := text[i+len("fabvote "):]
		j := strings.IndexByte(rest, ':')
		if j > 0 && isCode(rest[:j]) {
			m := text[i:]
			if k := strings.Index(m, "; peer "); k > 0 {
				m = m[:k]
			}
			return rest[:j], m
		}
		k := strings.Index(rest, "fabvote ")
		if k < 0 {
			break
		}
		i += len("fabvote ") + k
	}
	return "", ""
}

func isCode(s string) bool {
	if s == "" || len(s) > 16 {
		return false
	}
	for _, c := range s {
		if (c < 'A' || c > 'Z') && c != '_' {
			return false
		}
	}
	return true
}

// backend is the part of fabric-gateway a Conn drives, an interface so
// that the retry and timeout logic can be tested against a fake.
type backend interface {
	evaluate(ctx context.Context, fn string, args [][]byte) ([]byte, error)
	endorse(ctx context.Context, fn string, args [][]byte) (endorsedTx, error)
}

// endorsedTx is an endorsed transaction, ready for ordering.
type endorsedTx interface {
	TransactionID() string
	Result() []byte
	submit(ctx context.Context) (committing, error)
}

// committing is a submitted transaction whose commit status can be awaited.
type committing interface {
	StatusWithContext(ctx context.Context, opts ...grpc.CallOption) (*client.Status, error)
}

// contractBackend is backend on a fabric-gateway contract.
type contractBackend struct{ c *client.Contract }

func (b contractBackend) evaluate(ctx context.Context, fn string, args [][]byte) ([]byte, error) {
	return b.c.EvaluateWithContext(ctx, fn, client.WithBytesArguments(args...))
}

func (b contractBackend) endorse(ctx context.Context, fn string, args [][]byte) (endorsedTx, error) {
	prop, err := b.c.NewProposal(fn, client.WithBytesArguments(args...))
	if err != nil {
		return nil, fmt.Errorf("building proposal: %w", err)
	}
	tx, err := prop.EndorseWithContext(ctx)
	if err != nil {
		return nil, err
	}
	return clientTx{tx}, nil
}

// orgBackend evaluates on peers of one org only.
type orgBackend struct {
	backend
	mspID string
}

// orgEvaluator is a backend other than a fabric-gateway contract (a test
// fake) that takes the org restriction itself, so that it can be seen.
type orgEvaluator interface {
	evaluateInOrg(ctx context.Context, mspID, fn string, args [][]byte) ([]byte, error)
}

func (b orgBackend) evaluate(ctx context.Context, fn string, args [][]byte) ([]byte, error) {
	cb, ok := b.backend.(contractBackend)
	if !ok {
		if oe, ok := b.backend.(orgEvaluator); ok {
			return oe.evaluateInOrg(ctx, b.mspID, fn, args)
		}
		return b.backend.evaluate(ctx, fn, args) // a test fake that has no orgs
	}
	prop, err := cb.c.NewProposal(fn, client.WithBytesArguments(args...), client.WithEndorsingOrganizations(b.mspID))
	if err != nil {
		return nil, fmt.Errorf("building proposal: %w", err)
	}
	return prop.EvaluateWithContext(ctx)
}

type clientTx struct{ *client.Transaction }

func (t clientTx) submit(ctx context.Context) (committing, error) {
	return t.SubmitWithContext(ctx)
}
