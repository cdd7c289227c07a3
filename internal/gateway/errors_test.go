package gateway

import (
	"errors"
	"strings"
	"testing"

	"github.com/hyperledger/fabric-protos-go-apiv2/peer"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// wrapped has the shape of fabric-gateway's EndorseError/SubmitError: an
// error whose text differs from its gRPC status's message.
type wrapped struct{ err error }

func (w wrapped) Error() string              { return "failed to endorse: " + w.err.Error() }
func (w wrapped) Unwrap() error              { return w.err }
func (w wrapped) GRPCStatus() *status.Status { return status.Convert(w.err) }

func TestClassify(t *testing.T) {
	overload := "too many requests for /gateway.Gateway, exceeding concurrency limit (500)"
	tests := []struct {
		name      string
		err       error
		code      string // contract code of a *RejectError; "" = none
		retryable bool
		unknown   bool // wraps ErrCommitStatusUnknown
	}{
		// The contract's definitive rejections: never retried, whatever the
		// gRPC code they travel with.
		{"duplicate", status.Error(codes.Aborted, "failed to endorse transaction, see attached details for more info: chaincode response 500, fabvote DUPLICATE: voter key abc already voted"), "DUPLICATE", false, false},
		{"window", errors.New("rpc error: fabvote WINDOW: transaction time is after the end"), "WINDOW", false, false},
		{"proof rejected", status.Error(codes.Unknown, "chaincode response 500, fabvote PROOF: validity proof 2 does not verify"), "PROOF", false, false},
		{"size", status.Error(codes.Aborted, "fabvote SIZE: ballot is 107520 bytes"), "SIZE", false, false},
		{"reject quoting the overload text", status.Error(codes.Unknown, "fabvote BALLOT: too many requests for x, exceeding concurrency limit (1)"), "BALLOT", false, false},
		{"lowercase is not a code", errors.New("fabvote duplicate: x"), "", false, false},
		// Transient transport and peer states.
		{"unavailable", status.Error(codes.Unavailable, "connection refused"), "", true, false},
		{"deadline", status.Error(codes.DeadlineExceeded, "timeout"), "", true, false},
		{"resource exhausted", status.Error(codes.ResourceExhausted, "grpc: received message larger than max"), "", true, false},
		{"aborted without a code", status.Error(codes.Aborted, "failed to endorse transaction: endorsing peer unreachable"), "", true, false},
		{"stale snapshot", status.Error(codes.Unknown, "lockless: the simulation overlapped a ledger commit and must be retried"), "", true, false},
		{"mvcc in endorsement text", status.Error(codes.Unknown, "endorsement saw MVCC_READ_CONFLICT"), "", true, false},
		// The peer's concurrency limiter: Unknown, retried; matched narrowly.
		{"peer overloaded, service", status.Error(codes.Unknown, overload), "", true, false},
		{"peer overloaded, method", status.Error(codes.Unknown, "too many requests for /gateway.Gateway/Endorse, exceeding concurrency limit (500)"), "", true, false},
		{"peer overloaded, wrapped by the client", wrapped{status.Error(codes.Unknown, overload)}, "", true, false},
		{"overload text under another code", status.Error(codes.PermissionDenied, overload), "", false, false},
		{"overload words not at the start", status.Error(codes.Unknown, "chaincode said: too many requests for /gateway.Gateway, exceeding concurrency limit (500)"), "", false, false},
		{"too many requests without the limit", status.Error(codes.Unknown, "too many requests for /gateway.Gateway"), "", false, false},
		{"plain error with the overload text", errors.New(overload), "", false, false},
		// Everything else is final.
		{"permission", status.Error(codes.PermissionDenied, "access denied"), "", false, false},
		{"unknown other", status.Error(codes.Unknown, "chaincode panicked"), "", false, false},
		{"invalid argument", status.Error(codes.InvalidArgument, "bad proposal"), "", false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := classify("CastBallot", tc.err)
			var re *RejectError
			if got := errors.As(err, &re); got != (tc.code != "") {
				t.Fatalf("classify(%v) = %T %v, want reject=%v", tc.err, err, err, tc.code != "")
			}
			if re != nil && re.Code != tc.code {
				t.Fatalf("code %q, want %q", re.Code, tc.code)
			}
			if re != nil && !strings.HasPrefix(re.Msg, "fabvote "+tc.code+":") {
				t.Fatalf("message %q does not start with the contract's code", re.Msg)
			}
			if IsRetryable(err) != tc.retryable {
				t.Fatalf("IsRetryable(%v) = %v, want %v", err, IsRetryable(err), tc.retryable)
			}
			if got := errors.Is(err, ErrCommitStatusUnknown); got != tc.unknown {
				t.Fatalf("errors.Is(%v, ErrCommitStatusUnknown) = %v, want %v", err, got, tc.unknown)
			}
		})
	}
}

func TestCommitErrorRetry(t *testing.T) {
	tests := []struct {
		code peer.TxValidationCode
		want bool
	}{
		// Read conflicts: the ledger moved under the transaction; a fresh
		// endorsement sees the new state (or meets DUPLICATE).
		{peer.TxValidationCode_MVCC_READ_CONFLICT, true},
		{peer.TxValidationCode_PHANTOM_READ_CONFLICT, true},
		// Everything else would fail the same way again.
		{peer.TxValidationCode_ENDORSEMENT_POLICY_FAILURE, false},
		{peer.TxValidationCode_DUPLICATE_TXID, false},
		{peer.TxValidationCode_BAD_PAYLOAD, false},
		{peer.TxValidationCode_INVALID_OTHER_REASON, false},
	}
	for _, tc := range tests {
		if got := IsRetryable(&CommitError{Fn: "f", Code: tc.code}); got != tc.want {
			t.Errorf("%v: retryable %v, want %v", tc.code, got, tc.want)
		}
	}
}
