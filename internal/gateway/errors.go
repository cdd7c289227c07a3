package gateway

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hyperledger/fabric-gateway/pkg/client"
	"github.com/hyperledger/fabric-protos-go-apiv2/peer"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

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

// RejectError is a definitive rejection by the contract: "fabvote CODE: msg".
type RejectError struct {
	Fn       string
	Code     string // protocol code, e.g. DUPLICATE
	Msg      string // the contract's message, "fabvote CODE: …"
	Attempts int
	// AtCommit marks a refusal by the peers' validation at commit (the
	// transaction committed as invalid), not by the contract at endorsement.
	AtCommit bool
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
