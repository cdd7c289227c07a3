package nettest

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/internal/gateway"
)

func TestWantReject(t *testing.T) {
	dup := &gateway.RejectError{Fn: "CastBallot", Code: "DUPLICATE", Msg: "fabvote DUPLICATE: the voter has a ballot already"}
	wrapped := fmt.Errorf("cast: %w", dup)
	if re := WantReject(t, "wrapped", wrapped, "DUPLICATE"); re != dup {
		t.Fatalf("WantReject returned %v, want the rejection itself", re)
	}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"no error", nil, "want the contract's rejection DUPLICATE"},
		{"transport failure", errors.New("connection refused"), "connection refused"},
		{"another code", &gateway.RejectError{Code: "PROOF", Msg: "fabvote PROOF: bad"}, "rejected with PROOF"},
	} {
		msg := failure(t, func(tb testing.TB) { WantReject(tb, tc.name, tc.err, "DUPLICATE") })
		if !strings.Contains(msg, tc.want) || !strings.HasPrefix(msg, tc.name+":") {
			t.Errorf("%s: failure %q, want it to name the case and %q", tc.name, msg, tc.want)
		}
	}
}

func TestWantClearReject(t *testing.T) {
	clear := &gateway.RejectError{Code: "SIZE", Msg: "fabvote SIZE: the ballot has 9000 bytes, at most 8192"}
	if msg := WantClearReject(t, "clear", clear, "SIZE"); msg != clear.Msg {
		t.Fatalf("WantClearReject returned %q, want the message", msg)
	}
	for _, msg := range []string{"SIZE: too big", "fabvote SIZE:", "fabvote SIZE: big"} {
		re := &gateway.RejectError{Code: "SIZE", Msg: msg}
		if f := failure(t, func(tb testing.TB) { WantClearReject(tb, "unclear", re, "SIZE") }); !strings.Contains(f, "is not a clear one") {
			t.Errorf("message %q: failure %q, want it called unclear", msg, f)
		}
	}
	if f := failure(t, func(tb testing.TB) { WantClearReject(tb, "code", clear, "DUPLICATE") }); !strings.Contains(f, "rejected with SIZE") {
		t.Errorf("a clear rejection with another code: failure %q", f)
	}
}

func TestRejection(t *testing.T) {
	err := errors.New("refused")
	if got := Rejection("ignored result", err); got != err {
		t.Fatalf("Rejection = %v, want the call's error", got)
	}
}
