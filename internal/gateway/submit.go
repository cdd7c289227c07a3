package gateway

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

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

// evaluate runs fn on b, retrying transient failures; a query writes
// nothing, so every retry is safe.
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

// sleep waits out the backoff after a failed attempt: exponential in the
// attempt, capped at 64 times Options.Backoff, with ±50 % jitter so that
// clients that failed together do not retry together.
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

// submitOnce makes one attempt: endorse, submit for ordering, await the
// commit status.
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
