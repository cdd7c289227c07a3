package fabrun

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// run runs a tool with the node environment and returns its output.
func run(ctx context.Context, bin string, args ...string) (string, error) {
	return runEnv(ctx, nil, bin, args...)
}

func runEnv(ctx context.Context, env []string, bin string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = nodeEnv(env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%s %s: %v\n%s", filepath.Base(bin), strings.Join(args[:min(2, len(args))], " "), err, out)
	}
	return string(out), nil
}

// retryEnv runs a tool up to n times, 2 s apart (an orderer may still be
// electing a leader, a peer still connecting).
func retryEnv(ctx context.Context, n int, env []string, bin string, args ...string) (out string, err error) {
	return retryUnless(ctx, n, nil, env, bin, args...)
}

// retryUnless is retryEnv for a step that changes the network: before
// each try after the first it asks done whether the step took effect
// after all (a peer CLI that failed waiting for the block may still have
// had its transaction committed), since repeating a step that took
// effect fails for good (an approval or a commit at the same sequence).
func retryUnless(ctx context.Context, n int, done func() bool, env []string, bin string, args ...string) (string, error) {
	return attempt(ctx, n, done, func() (string, error) { return runEnv(ctx, env, bin, args...) })
}

// attempt calls try up to n times, 2 s apart, until it succeeds or done
// (if not nil) reports, before a try after the first, that an earlier
// one took effect.
func attempt(ctx context.Context, n int, done func() bool, try func() (string, error)) (out string, err error) {
	for i := range n {
		if i > 0 && done != nil && done() {
			return out, nil
		}
		if out, err = try(); err == nil {
			return out, nil
		}
		if i < n-1 {
			select {
			case <-ctx.Done():
				return out, ctx.Err()
			case <-time.After(2 * time.Second):
			}
		}
	}
	return out, err
}

// waitKey carries the bound of each wait of the steps run under a
// context: a ledger, an active orderer, a committed definition.
type waitKey struct{}

// DefaultWait bounds each wait when the caller sets none.
const DefaultWait = 90 * time.Second

// WithWait bounds each wait of the steps run under ctx by d (d > 0).
func WithWait(ctx context.Context, d time.Duration) context.Context {
	if d <= 0 {
		return ctx
	}
	return context.WithValue(ctx, waitKey{}, d)
}

// waitBound is the bound WithWait set on ctx, or DefaultWait.
func waitBound(ctx context.Context) time.Duration {
	if d, ok := ctx.Value(waitKey{}).(time.Duration); ok {
		return d
	}
	return DefaultWait
}

// poll calls check every 300 ms until it holds or d passes.
func poll(ctx context.Context, d time.Duration, check func() (bool, string), what string) error {
	end := time.Now().Add(d)
	for {
		ok, last := check()
		if ok {
			return nil
		}
		if time.Now().After(end) {
			return fmt.Errorf("waited %v for %s; last answer: %s", d, what, strings.TrimSpace(last))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(300 * time.Millisecond):
		}
	}
}
