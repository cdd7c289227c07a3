package loadgen

import (
	"context"
	"errors"
	"time"

	"github.com/fabvote/fabvote/internal/gateway"
)

// CastTarget casts each ballot with one call that returns once the
// ballot's commit is known. With ballotclient.Client.CastBallot it is the
// path of the CLI and of the ballot box (`fabvote box serve`): the
// gateway's Submit, then a commit-status call per transaction, with the
// gateway connection's retries. FabricTarget instead endorses and submits
// itself and learns commits from one block-event stream. A sample spans
// the call.
type CastTarget struct {
	Cast func(ctx context.Context, ballot []byte) error
}

// Do implements Target.
func (t *CastTarget) Do(ctx context.Context, _ int, payload []byte) Sample {
	s := Sample{Start: time.Now()}
	if err := t.Cast(ctx, payload); err != nil {
		return failed(s, castReason(err))
	}
	s.Done = time.Now()
	s.OK = true
	return s
}

// castReason names a failed cast in the failure table's terms: a contract
// refusal by its code, an invalid transaction by its validation code, a
// commit whose fate is unknown, or the gateway call's own failure.
func castReason(err error) string {
	var re *gateway.RejectError
	var ce *gateway.CommitError
	switch {
	case errors.As(err, &re) && re.AtCommit:
		return "commit: fabvote " + re.Code
	case errors.As(err, &re):
		return "endorse: fabvote " + re.Code
	case errors.As(err, &ce):
		return CommitReason(ce.Code)
	case errors.Is(err, gateway.ErrCommitStatusUnknown):
		return "commit: unknown"
	}
	return ErrorReason("cast", err)
}
