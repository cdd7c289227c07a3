package audit

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/election"
)

// The ledger holds six ballots; the result was published over the first
// four and the last two committed after it (a withheld endorsement).
func TestAuditLateBallots(t *testing.T) {
	w := getWorld(t)
	es := w.entries()
	before, late := es[:4], es[4:]
	resultBefore := w.result(t, before)
	resultAll := w.result(t, es)
	order := func(lbs ...election.BallotEntry) func() (*CommitOrder, error) {
		return func() (*CommitOrder, error) {
			o := &CommitOrder{ResultBlock: 7, ResultTxID: "tx-result"}
			for i, e := range lbs {
				o.Late = append(o.Late, LateBallot{Entry: e, Block: uint64(8 + i)})
			}
			return o, nil
		}
	}
	// A late ballot whose write carries another transaction id than the
	// stored one is not the ballot the listing saw.
	otherTx := late[0]
	otherTx.TxID = "tx-elsewhere"
	for _, tc := range []struct {
		name      string
		ledger    Ledger
		wantOK    bool
		wantKind  string
		wantCount int
		wantLate  int
	}{
		{"late ballots are left out of the count", Ledger{Ballots: source(es), Result: resultBefore, Order: order(late...)}, true, "", 4, 2},
		{"no late ballots: everything counts", Ledger{Ballots: source(es), Result: resultAll, Order: order()}, true, "", 6, 0},
		{"result over all six while two are late", Ledger{Ballots: source(es), Result: resultAll, Order: order(late...)}, false, KindResultCount, 4, 2},
		{"without the commit order every ballot must count", Ledger{Ballots: source(es), Result: resultBefore}, false, KindResultCount, 6, 0},
		{"late ballot the listing did not see is not subtracted", Ledger{Ballots: source(before), Result: resultBefore, Order: order(late...)}, true, "", 4, 2},
		{"late write from another transaction is not subtracted", Ledger{Ballots: source(es), Result: resultBefore, Order: order(otherTx, late[1])}, false, KindResultCount, 5, 2},
		{"commit order unreadable", Ledger{Ballots: source(es), Result: resultBefore, Order: func() (*CommitOrder, error) { return nil, errors.New("qscc: access denied") }}, false, KindSource, 6, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := tc.ledger
			l.Manifest = manifestBytes(t, w.m)
			rep := Run(&l, Options{Workers: 2, BatchSize: 2})
			var out bytes.Buffer
			rep.Write(&out)
			if rep.OK() != tc.wantOK {
				t.Fatalf("OK() = %v, want %v\n%s", rep.OK(), tc.wantOK, out.String())
			}
			if tc.wantKind != "" && countKind(rep.Failures, tc.wantKind) == 0 {
				t.Fatalf("no %s failure\n%s", tc.wantKind, out.String())
			}
			if rep.Counted != tc.wantCount {
				t.Errorf("Counted = %d, want %d", rep.Counted, tc.wantCount)
			}
			if n := strings.Count(out.String(), "\n  LATE "); n != tc.wantLate {
				t.Errorf("report lists %d late ballots, want %d\n%s", n, tc.wantLate, out.String())
			}
			if tc.wantOK && tc.wantLate > 0 && !strings.Contains(out.String(), "not counted") {
				t.Errorf("report does not say the late ballots are not counted\n%s", out.String())
			}
		})
	}
}

// A late ballot is checked like any other: one that fails its checks is a
// failure even though it is not counted.
func TestAuditLateInvalidBallot(t *testing.T) {
	w := getWorld(t)
	es := w.entries()
	bad := mutate(w.ballots[5], w.voters[5], func(b *election.Ballot) { b.Token[0] ^= 1 })
	es[5] = entry(bad)
	l := Ledger{Manifest: manifestBytes(t, w.m), Ballots: source(es), Result: w.result(t, es[:5]),
		Order: func() (*CommitOrder, error) {
			return &CommitOrder{ResultBlock: 3, Late: []LateBallot{{Entry: es[5], Block: 4}}}, nil
		}}
	rep := Run(&l, Options{Workers: 2, BatchSize: 2})
	if rep.OK() || countKind(rep.Failures, KindBallotInvalid) != 1 || countKind(rep.Failures, KindResultCount) != 0 {
		t.Fatalf("want exactly one BALLOT_INVALID failure and a matching count, got %v", rep.Failures)
	}
}
