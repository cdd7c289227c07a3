package gateway

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/hyperledger/fabric-gateway/pkg/client"
	"github.com/hyperledger/fabric-gateway/pkg/hash"
	"github.com/hyperledger/fabric-gateway/pkg/identity"
	"github.com/hyperledger/fabric-protos-go-apiv2/peer"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/status"
)

// Options select who connects and how.
type Options struct {
	Org       string // org name or MSP id; "" = first org
	Identity  string // identity name in network.json ("admin", "user1", …); "" = "user1"
	Chaincode string // "" = "ballot"
	Peer      int    // index of the org's peer to use as gateway
	// Timeouts; zero picks defaults.
	EvaluateTimeout, EndorseTimeout, SubmitTimeout, CommitTimeout time.Duration
	// Retry policy; zero picks defaults (8 attempts, 50 ms base backoff).
	MaxAttempts int
	Backoff     time.Duration
}

// Conn is a gateway connection bound to one chaincode.
type Conn struct {
	grpc     *grpc.ClientConn
	gw       *client.Gateway
	contract *client.Contract
	MSPID    string
	Org      string
	opts     Options
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
	def(&opts.CommitTimeout, 120*time.Second)

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
	id, sign, err := loadIdentity(org.MSPID, idFiles)
	if err != nil {
		return nil, err
	}
	if opts.Peer < 0 || opts.Peer >= len(org.Peers) {
		return nil, fmt.Errorf("peer index %d: org %s has %d peer(s)", opts.Peer, org.Name, len(org.Peers))
	}
	p := org.Peers[opts.Peer]
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
	cc, err := grpc.NewClient(p.Endpoint,
		grpc.WithTransportCredentials(credentials.NewClientTLSFromCert(pool, p.ServerNameOverride)),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(64<<20), grpc.MaxCallSendMsgSize(64<<20)))
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
		contract: gw.GetNetwork(net.Channel).GetContract(opts.Chaincode),
		MSPID:    org.MSPID,
		Org:      org.Name,
		opts:     opts,
	}, nil
}

func loadIdentity(mspID string, f Identity) (*identity.X509Identity, identity.Sign, error) {
	certPEM, err := os.ReadFile(f.Cert)
	if err != nil {
		return nil, nil, fmt.Errorf("identity certificate: %w", err)
	}
	cert, err := identity.CertificateFromPEM(certPEM)
	if err != nil {
		return nil, nil, fmt.Errorf("identity certificate %s: %w", f.Cert, err)
	}
	id, err := identity.NewX509Identity(mspID, cert)
	if err != nil {
		return nil, nil, err
	}
	keyPEM, err := os.ReadFile(f.Key)
	if err != nil {
		return nil, nil, fmt.Errorf("identity key: %w", err)
	}
	key, err := identity.PrivateKeyFromPEM(keyPEM)
	if err != nil {
		return nil, nil, fmt.Errorf("identity key %s: %w", f.Key, err)
	}
	sign, err := identity.NewPrivateKeySign(key)
	if err != nil {
		return nil, nil, fmt.Errorf("identity key %s: %w", f.Key, err)
	}
	return id, sign, nil
}

// Close closes the gateway and its gRPC connection.
func (c *Conn) Close() error {
	c.gw.Close()
	return c.grpc.Close()
}

// Receipt is what a committed transaction gives back.
type Receipt struct {
	TxID     string
	Block    uint64
	Result   []byte
	Attempts int
}

// Evaluate runs a query on one peer (no ledger write).
func (c *Conn) Evaluate(ctx context.Context, fn string, args ...[]byte) ([]byte, error) {
	var lastErr error
	for attempt := 1; attempt <= c.opts.MaxAttempts; attempt++ {
		res, err := c.contract.EvaluateWithContext(ctx, fn, client.WithBytesArguments(args...))
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
// transient failures with exponential backoff. A contract rejection
// (*RejectError) or an invalid commit other than a read conflict returns at once.
func (c *Conn) Submit(ctx context.Context, fn string, args ...[]byte) (*Receipt, error) {
	var lastErr error
	for attempt := 1; attempt <= c.opts.MaxAttempts; attempt++ {
		r, err := c.submitOnce(ctx, fn, args)
		if err == nil {
			r.Attempts = attempt
			return r, nil
		}
		lastErr = err
		if !IsRetryable(err) || ctx.Err() != nil {
			if re := (*RejectError)(nil); errors.As(err, &re) {
				re.Attempts = attempt
			}
			return nil, err
		}
		c.sleep(ctx, attempt)
	}
	return nil, fmt.Errorf("%s: gave up after %d attempts: %w", fn, c.opts.MaxAttempts, lastErr)
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
	prop, err := c.contract.NewProposal(fn, client.WithBytesArguments(args...))
	if err != nil {
		return nil, fmt.Errorf("%s: building proposal: %w", fn, err)
	}
	tx, err := prop.EndorseWithContext(ctx)
	if err != nil {
		return nil, classify(fn, err)
	}
	commit, err := tx.SubmitWithContext(ctx)
	if err != nil {
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
			// Our deadline, not the caller's: the transaction may still commit,
			// and a retry then meets DUPLICATE, which the caller reconciles.
			return nil, &TransientError{Fn: fn, Err: fmt.Errorf("no commit status within %v for transaction %s: %w", c.opts.CommitTimeout, tx.TransactionID(), err)}
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

// peerOverloaded is the text of the peer's refusal when its endorsement or
// gateway concurrency limit is reached; it arrives as codes.Unknown, not
// ResourceExhausted, so it is recognised by its text.
const peerOverloaded = "exceeding concurrency limit"

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
		strings.Contains(text, peerOverloaded) {
		return &TransientError{Fn: fn, Err: err}
	}
	switch status.Code(err) {
	case codes.Unavailable, codes.DeadlineExceeded, codes.ResourceExhausted, codes.Aborted:
		return &TransientError{Fn: fn, Err: err}
	}
	var cse *client.CommitStatusError
	if errors.As(err, &cse) {
		// The transaction may or may not have committed; the caller's retry
		// then meets a DUPLICATE it can reconcile through a query.
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
