package nettest

import (
	"errors"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/internal/gateway"
)

// WantReject requires err to be the contract's definitive rejection with
// code (not a transport failure, not another code), logs it and returns it.
func WantReject(t testing.TB, what string, err error, code string) *gateway.RejectError {
	t.Helper()
	var re *gateway.RejectError
	if !errors.As(err, &re) {
		t.Fatalf("%s: got %v, want the contract's rejection %s", what, err, code)
	}
	if re.Code != code {
		t.Fatalf("%s: rejected with %s (%s), want %s", what, re.Code, re.Msg, code)
	}
	t.Logf("%s: rejected as expected: %s", what, re.Msg)
	return re
}

// WantClearReject is WantReject for a rejection a voter or an operator
// reads: the message must also name the code as "fabvote CODE:" and say
// something after it. It returns the message.
func WantClearReject(t testing.TB, what string, err error, code string) string {
	t.Helper()
	re := WantReject(t, what, err, code)
	if !strings.Contains(re.Msg, "fabvote "+code+":") || len(re.Msg) < len("fabvote "+code+": ")+10 {
		t.Fatalf("%s: error message %q is not a clear one", what, re.Msg)
	}
	return re.Msg
}

// Rejection drops a call's first result, to pass the call's error to
// WantReject or WantClearReject in one expression.
func Rejection[T any](_ T, err error) error { return err }
