package ballot

import (
	"testing"
	"time"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/election/electiontest"
)

// WindowClosed answers JSON false up to the last instant of the window and
// true from its end on, and refuses an unknown election. (Minimal rule, see
// the merge note on WindowClosed.)
func TestWindowClosed(t *testing.T) {
	e := newEnv(t, nil)
	e.open(fx.Manifest("win-1"))
	end := electiontest.End
	for _, tc := range []struct {
		at   time.Time
		want string
	}{
		{during, "false"},
		{end.Add(-time.Nanosecond), "false"},
		{end, "true"},
		{after, "true"},
	} {
		e.setClock(tc.at)
		got, err := e.c.WindowClosed(txctx(e.w.tx(tc.at), outsider), "win-1")
		if err != nil || got != tc.want {
			t.Errorf("WindowClosed at end%+v = %q, %v; want %s", tc.at.Sub(end), got, err, tc.want)
		}
	}
	_, err := e.c.WindowClosed(txctx(e.w.tx(after), outsider), "nope")
	wantCode(t, err, election.CodeNoElection)
}
