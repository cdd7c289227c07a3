package loadgen

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/hyperledger/fabric-protos-go-apiv2/peer"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestErrorReason(t *testing.T) {
	tests := []struct {
		phase string
		err   error
		want  string
	}{
		{"endorse", status.Error(codes.Aborted, "chaincode response 500, fabvote DUPLICATE: voter abc already voted"), "endorse: fabvote DUPLICATE"},
		{"endorse", status.Error(codes.Unavailable, "connection refused"), "endorse: grpc Unavailable"},
		{"submit", fmt.Errorf("wrapped: %w", status.Error(codes.FailedPrecondition, "orderer busy")), "submit: grpc FailedPrecondition"},
		{"endorse", errors.New("fabvote PROOF: bad proof"), "endorse: fabvote PROOF"},
		{"endorse", errors.New("fabvote proof: lower case is not a code"), "endorse: error"},
		{"commit", context.DeadlineExceeded, "commit: timeout"},
		{"commit", fmt.Errorf("x: %w", context.Canceled), "commit: cancelled"},
	}
	for _, tc := range tests {
		if got := ErrorReason(tc.phase, tc.err); got != tc.want {
			t.Errorf("ErrorReason(%q, %v) = %q, want %q", tc.phase, tc.err, got, tc.want)
		}
	}
	if got := CommitReason(peer.TxValidationCode_MVCC_READ_CONFLICT); got != "commit: MVCC_READ_CONFLICT" {
		t.Errorf("CommitReason = %q", got)
	}
}

func TestCheckLoopback(t *testing.T) {
	tests := []struct {
		ep string
		ok bool
	}{
		{"127.0.0.1:7151", true},
		{"[::1]:7151", true},
		{"localhost:7151", true},
		{"127.9.9.9:1", true},
		{"10.0.0.5:7151", false},
		{"peer0.example.com:7051", false},
		{"127.0.0.1", false}, // no port
	}
	for _, tc := range tests {
		if err := CheckLoopback(tc.ep); (err == nil) != tc.ok {
			t.Errorf("CheckLoopback(%q) = %v, want ok=%v", tc.ep, err, tc.ok)
		}
	}
}
