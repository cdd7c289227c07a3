package gateway

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hyperledger/fabric-gateway/pkg/client"
	"github.com/hyperledger/fabric-protos-go-apiv2/peer"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// step scripts one attempt of the fake backend. Nil funcs succeed.
type step struct {
	endorse func() error
	submit  func(ctx context.Context) error
	status  func(ctx context.Context) (peer.TxValidationCode, error)
}

// fakeBackend plays its steps in order, one per endorsement or evaluation.
type fakeBackend struct {
	mu    sync.Mutex
	steps []step
	calls int
}

func (f *fakeBackend) next() (step, int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if f.calls > len(f.steps) {
		return step{}, 0, fmt.Errorf("fake: unexpected attempt %d (scripted %d)", f.calls, len(f.steps))
	}
	return f.steps[f.calls-1], f.calls, nil
}

func (f *fakeBackend) evaluate(ctx context.Context, fn string, args [][]byte) ([]byte, error) {
	s, _, err := f.next()
	if err != nil {
		return nil, err
	}
	if s.endorse != nil {
		if err := s.endorse(); err != nil {
			return nil, err
		}
	}
	return []byte("result of " + fn), nil
}

func (f *fakeBackend) endorse(ctx context.Context, fn string, args [][]byte) (endorsedTx, error) {
	s, n, err := f.next()
	if err != nil {
		return nil, err
	}
	if s.endorse != nil {
		if err := s.endorse(); err != nil {
			return nil, err
		}
	}
	return &fakeTx{s: s, id: fmt.Sprintf("tx%d", n)}, nil
}

type fakeTx struct {
	s  step
	id string
}

func (t *fakeTx) TransactionID() string { return t.id }
func (t *fakeTx) Result() []byte        { return []byte("receipt of " + t.id) }
func (t *fakeTx) submit(ctx context.Context) (committing, error) {
	if t.s.submit != nil {
		if err := t.s.submit(ctx); err != nil {
			return nil, err
		}
	}
	return t, nil
}

func (t *fakeTx) StatusWithContext(ctx context.Context, _ ...grpc.CallOption) (*client.Status, error) {
	code := peer.TxValidationCode_VALID
	if t.s.status != nil {
		var err error
		if code, err = t.s.status(ctx); err != nil {
			return nil, err
		}
	}
	return &client.Status{Code: code, Successful: code == peer.TxValidationCode_VALID, TransactionID: t.id, BlockNumber: 7}, nil
}

// lost never answers: the transaction the orderer dropped. It returns once
// the wait's context ends, or at once, with an error the tests reject, if
// the wait has no deadline (it would otherwise hang forever).
func lost(ctx context.Context) (peer.TxValidationCode, error) {
	if _, ok := ctx.Deadline(); !ok {
		return 0, errors.New("fake: wait without a deadline")
	}
	<-ctx.Done()
	return 0, status.FromContextError(ctx.Err()).Err()
}

func lostSubmit(ctx context.Context) error {
	_, err := lost(ctx)
	return err
}

func invalid(code peer.TxValidationCode) func(context.Context) (peer.TxValidationCode, error) {
	return func(context.Context) (peer.TxValidationCode, error) { return code, nil }
}

func fails(err error) func() error { return func() error { return err } }

var (
	overloaded  = status.Error(codes.Unknown, "too many requests for /gateway.Gateway, exceeding concurrency limit (500)")
	duplicate   = status.Error(codes.Aborted, "failed to endorse transaction: chaincode response 500, fabvote DUPLICATE: voter abc already has a ballot")
	windowShut  = status.Error(codes.Aborted, "chaincode response 500, fabvote WINDOW: the election closed")
	unavailable = status.Error(codes.Unavailable, "connection refused")
)

func testConn(b backend, attempts int) *Conn {
	return &Conn{backend: b, opts: Options{
		MaxAttempts: attempts, Backoff: time.Microsecond,
		EvaluateTimeout: time.Minute, EndorseTimeout: time.Minute,
		SubmitTimeout: time.Millisecond, CommitTimeout: time.Millisecond,
	}}
}

func TestSubmitRetries(t *testing.T) {
	tests := []struct {
		name      string
		steps     []step
		attempts  int
		cancelled bool // the caller's context is already done
		// want: the receipt's attempts (0 = an error), the contract code of
		// a *RejectError, a *CommitError's code, whether the error wraps
		// ErrCommitStatusUnknown.
		wantAttempts int
		wantReject   string
		wantInvalid  peer.TxValidationCode
		wantUnknown  bool
		wantCalls    int
	}{
		{name: "commits at once", steps: []step{{}}, attempts: 3, wantAttempts: 1, wantCalls: 1},
		{name: "overload refusal is retried", steps: []step{{endorse: fails(overloaded)}, {endorse: fails(overloaded)}, {}}, attempts: 3, wantAttempts: 3, wantCalls: 3},
		{name: "read conflict is retried", steps: []step{{status: invalid(peer.TxValidationCode_MVCC_READ_CONFLICT)}, {status: invalid(peer.TxValidationCode_PHANTOM_READ_CONFLICT)}, {}}, attempts: 3, wantAttempts: 3, wantCalls: 3},
		{name: "endorsement policy failure is final", steps: []step{{status: invalid(peer.TxValidationCode_ENDORSEMENT_POLICY_FAILURE)}}, attempts: 3, wantInvalid: peer.TxValidationCode_ENDORSEMENT_POLICY_FAILURE, wantCalls: 1},
		{name: "contract rejection is final", steps: []step{{endorse: fails(windowShut)}}, attempts: 3, wantReject: "WINDOW", wantCalls: 1},
		// The lost transaction: the wait ends on our deadline, the retry
		// meets the first copy's DUPLICATE, which the caller reconciles
		// (ledger.CastBallot does when Attempts > 1).
		{name: "lost commit, then duplicate", steps: []step{{status: lost}, {endorse: fails(duplicate)}}, attempts: 5, wantReject: "DUPLICATE", wantCalls: 2},
		{name: "lost commit, retry commits", steps: []step{{status: lost}, {}}, attempts: 5, wantAttempts: 2, wantCalls: 2},
		{name: "lost every time: unknown, not failed", steps: []step{{status: lost}, {status: lost}, {status: lost}}, attempts: 3, wantUnknown: true, wantCalls: 3},
		{name: "lost, then unreachable: still unknown", steps: []step{{status: lost}, {endorse: fails(unavailable)}}, attempts: 2, wantUnknown: true, wantCalls: 2},
		{name: "submit unanswered: unknown", steps: []step{{submit: lostSubmit}, {submit: lostSubmit}}, attempts: 2, wantUnknown: true, wantCalls: 2},
		{name: "unreachable only: failed, not unknown", steps: []step{{endorse: fails(unavailable)}, {endorse: fails(unavailable)}}, attempts: 2, wantCalls: 2},
		{name: "caller gives up during the wait", steps: []step{{status: lost}}, attempts: 3, cancelled: true, wantUnknown: true, wantCalls: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fb := &fakeBackend{steps: tc.steps}
			c := testConn(fb, tc.attempts)
			ctx := context.Background()
			if tc.cancelled {
				// The caller has given up before the commit wait starts.
				var cancel context.CancelFunc
				ctx, cancel = context.WithCancel(ctx)
				cancel()
			}
			r, err := c.Submit(ctx, "CastBallot", []byte("ballot"))
			if fb.calls != tc.wantCalls {
				t.Errorf("%d attempts reached the backend, want %d", fb.calls, tc.wantCalls)
			}
			if tc.wantAttempts > 0 {
				if err != nil {
					t.Fatalf("Submit: %v, want a receipt after %d attempts", err, tc.wantAttempts)
				}
				if r.Attempts != tc.wantAttempts || r.TxID != fmt.Sprintf("tx%d", tc.wantAttempts) || string(r.Result) != "receipt of "+r.TxID {
					t.Fatalf("receipt %+v, want attempt %d's", r, tc.wantAttempts)
				}
				return
			}
			if err == nil {
				t.Fatalf("Submit committed (%+v), want an error", r)
			}
			var re *RejectError
			if errors.As(err, &re) != (tc.wantReject != "") || (re != nil && (re.Code != tc.wantReject || re.Attempts != tc.wantCalls)) {
				t.Fatalf("error %v (%+v), want rejection %q at attempt %d", err, re, tc.wantReject, tc.wantCalls)
			}
			var ce *CommitError
			if errors.As(err, &ce) != (tc.wantInvalid != 0) || (ce != nil && ce.Code != tc.wantInvalid) {
				t.Fatalf("error %v, want invalid commit %v", err, tc.wantInvalid)
			}
			if got := errors.Is(err, ErrCommitStatusUnknown); got != tc.wantUnknown {
				t.Fatalf("error %v: commit status unknown = %v, want %v", err, got, tc.wantUnknown)
			}
			if tc.wantUnknown && !strings.HasPrefix(err.Error(), "CastBallot: commit status unknown after ") {
				t.Fatalf("error %q does not start by saying the commit status is unknown", err)
			}
		})
	}
}

func TestEvaluateRetriesOverload(t *testing.T) {
	tests := []struct {
		name      string
		steps     []step
		wantErr   bool
		wantCalls int
	}{
		{"overloaded twice", []step{{endorse: fails(overloaded)}, {endorse: fails(overloaded)}, {}}, false, 3},
		{"rejection is final", []step{{endorse: fails(windowShut)}}, true, 1},
		{"overloaded past the attempts", []step{{endorse: fails(overloaded)}, {endorse: fails(overloaded)}, {endorse: fails(overloaded)}}, true, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fb := &fakeBackend{steps: tc.steps}
			res, err := testConn(fb, 3).Evaluate(context.Background(), "GetBallot")
			if (err != nil) != tc.wantErr || fb.calls != tc.wantCalls {
				t.Fatalf("Evaluate = %q, %v after %d calls; want error %v after %d", res, err, fb.calls, tc.wantErr, tc.wantCalls)
			}
			if err == nil && string(res) != "result of GetBallot" {
				t.Fatalf("result %q", res)
			}
		})
	}
}
