package loadgen

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/fabvote/fabvote/internal/gateway"
	"github.com/hyperledger/fabric-protos-go-apiv2/peer"
)

// A cast that returns nil is a committed sample spanning the call; each kind
// of failure is named in the failure table's terms.
func TestCastTarget(t *testing.T) {
	for _, tc := range []struct {
		what   string
		err    error
		reason string
	}{
		{"committed", nil, ""},
		{"refused by the contract", fmt.Errorf("cast: %w", &gateway.RejectError{Fn: "CastBallot", Code: "DUPLICATE", Msg: "fabvote DUPLICATE: x"}), "endorse: fabvote DUPLICATE"},
		{"refused by the peers' validation", &gateway.RejectError{Fn: "CastBallot", Code: "PROOF", AtCommit: true}, "commit: fabvote PROOF"},
		{"invalid at commit", &gateway.CommitError{Fn: "CastBallot", TxID: "t", Code: peer.TxValidationCode_MVCC_READ_CONFLICT}, "commit: MVCC_READ_CONFLICT"},
		{"commit unknown", &gateway.TransientError{Fn: "CastBallot", Err: fmt.Errorf("%w: transaction t", gateway.ErrCommitStatusUnknown)}, "commit: unknown"},
		{"timeout", context.DeadlineExceeded, "cast: timeout"},
		{"other", errors.New("boom"), "cast: error"},
	} {
		t.Run(tc.what, func(t *testing.T) {
			var got []byte
			target := &CastTarget{Cast: func(_ context.Context, ballot []byte) error { got = ballot; return tc.err }}
			s := target.Do(context.Background(), 7, []byte("ballot"))
			if string(got) != "ballot" {
				t.Fatalf("the cast got %q, want the payload", got)
			}
			if s.OK != (tc.err == nil) || s.Reason != tc.reason {
				t.Fatalf("sample OK=%v reason %q, want OK=%v reason %q", s.OK, s.Reason, tc.err == nil, tc.reason)
			}
			if s.Done.Before(s.Start) || s.Start.IsZero() {
				t.Fatalf("sample spans %v to %v", s.Start, s.Done)
			}
		})
	}
}
