package ballot

import (
	"bytes"
	"maps"
	"testing"
	"time"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/election/electiontest"
)

// rejectedUnchanged runs f on a fresh transaction and requires that it failed
// with code and wrote nothing.
func (e *env) rejectedUnchanged(at time.Time, code string, f func(s *stub) error) {
	e.t.Helper()
	before := e.w.snapshot()
	s := e.w.tx(at)
	wantCode(e.t, f(s), code)
	if len(s.writes) != 0 || !maps.EqualFunc(before, e.w.snapshot(), bytes.Equal) {
		e.t.Fatal("a rejected transaction wrote state")
	}
}

// A ballot needs both the timestamp and the peer's clock inside the window.
func TestCastWindowUsesPeerClock(t *testing.T) {
	m, ballots := e1(t)
	e := newEnv(t, nil)
	e.open(m)
	end := electiontest.End
	// Edge: the peer's clock at the last instant of the window, the
	// timestamp a second earlier: accepted.
	e.setClock(end.Add(-time.Nanosecond))
	if _, _, err := e.cast(ballots[0].Marshal(), end.Add(-time.Second)); err != nil {
		t.Fatalf("cast with both clocks inside the window: %v", err)
	}
	// Edge: the peer's clock at end, the timestamp (chosen by the client)
	// still inside: refused.
	e.setClock(end)
	e.rejectedUnchanged(end.Add(-time.Second), election.CodeWindow, func(s *stub) error {
		_, err := e.c.CastBallot(txctx(s, outsider), ballots[1].Marshal())
		return err
	})
	// The peer's clock before start, the timestamp inside: refused.
	e.setClock(electiontest.Start.Add(-time.Second))
	e.rejectedUnchanged(electiontest.Start, election.CodeWindow, func(s *stub) error {
		_, err := e.c.CastBallot(txctx(s, outsider), ballots[1].Marshal())
		return err
	})
}

// A result needs both the timestamp and the peer's clock at or after
// end + maxClockSkew; WindowClosed answers by the same rule.
func TestResultWindowBothEdges(t *testing.T) {
	m, ballots := e1(t)
	e := newEnv(t, nil)
	e.open(m)
	if _, _, err := e.cast(ballots[0].Marshal(), during); err != nil {
		t.Fatal(err)
	}
	res := resultJSON(t, singleResult(t, m, ballots[:1]))
	nb := m.ResultNotBefore()
	if want := electiontest.End.Add(electiontest.ClockSkewSeconds * time.Second); !nb.Equal(want) {
		t.Fatalf("ResultNotBefore = %s, want %s", nb, want)
	}
	closed := func(at time.Time) string {
		out, err := e.c.WindowClosed(txctx(e.w.tx(at), outsider), m.ElectionID)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, tc := range []struct {
		name      string
		clock, at time.Time
	}{
		{"timestamp one second early", nb, nb.Add(-time.Second)},
		{"peer clock one second early", nb.Add(-time.Second), nb},
		{"both at end, before the skew has passed", electiontest.End, electiontest.End},
	} {
		e.setClock(tc.clock)
		e.rejectedUnchanged(tc.at, election.CodeWindow, func(s *stub) error {
			return e.c.PublishResult(txctx(s, authority), res)
		})
		if got := closed(tc.at); got != "false" {
			t.Fatalf("%s: WindowClosed = %s, want false", tc.name, got)
		}
	}
	// Edge: both exactly at end + skew: accepted.
	e.setClock(nb)
	if got := closed(nb); got != "true" {
		t.Fatalf("WindowClosed at end + skew = %s, want true", got)
	}
	s := e.w.tx(nb)
	if err := e.c.PublishResult(txctx(s, authority), res); err != nil {
		t.Fatalf("result at end + skew: %v", err)
	}
	s.commit()
}

func TestWindowClosedRejects(t *testing.T) {
	e := newEnv(t, nil)
	for _, tc := range []struct{ id, code string }{
		{"bad id!", election.CodeArgument},
		{"no-such-election", election.CodeNoElection},
	} {
		_, err := e.c.WindowClosed(txctx(e.w.tx(during), outsider), tc.id)
		wantCode(t, err, tc.code)
	}
}

// A manifest opens only on the channel it names.
func TestOpenElectionOtherChannel(t *testing.T) {
	e := newEnv(t, nil)
	m := fx.Manifest("chan-1")
	m.Channel = "another-channel"
	enc, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	e.rejectedUnchanged(during, election.CodeManifest, func(s *stub) error {
		return e.c.OpenElection(txctx(s, authority), string(enc))
	})
}

// Two tokens for one voter id (two keys, minted directly with the authority
// key) give one pseudonym, so one ledger key: the second cast is DUPLICATE.
func TestSecondTokenOfOneVoterIsDuplicate(t *testing.T) {
	m, _ := e1(t)
	e := newEnv(t, nil)
	e.open(m)
	id := "roll entry 17"
	first, err := election.NewBallot(nil, m, fx.Voters[0], fx.TokenFor(m, id, fx.Voters[0]), 0)
	if err != nil {
		t.Fatal(err)
	}
	second, err := election.NewBallot(nil, m, fx.Voters[1], fx.TokenFor(m, id, fx.Voters[1]), 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.cast(first.Marshal(), during); err != nil {
		t.Fatal(err)
	}
	e.rejectedUnchanged(during, election.CodeDuplicate, func(s *stub) error {
		_, err := e.c.CastBallot(txctx(s, outsider), second.Marshal())
		return err
	})
}
