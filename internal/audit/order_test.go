package audit

import (
	"bytes"
	"crypto/sha256"
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
	// order is what the blocks say: the published result resultBefore
	// written in block 7, then lbs.
	earlier := writes(before, 3)
	order := func(lbs ...BallotWrite) func() (*CommitOrder, error) {
		return func() (*CommitOrder, error) {
			return &CommitOrder{Opening: opening(t, w), ResultBlock: 7, ResultTxID: "tx-result", ResultValue: resultBefore, Earlier: earlier, Late: lbs}, nil
		}
	}
	lateAt := func(e election.BallotEntry, block uint64) BallotWrite {
		return BallotWrite{Entry: e, Hash: sha256.Sum256(e.Ballot), Block: block}
	}
	l0, l1 := lateAt(late[0], 8), lateAt(late[1], 9)
	otherTx := l0
	otherTx.Entry.TxID = "tx-elsewhere"
	otherBytes := l0
	otherBytes.Entry.Ballot = late[1].Ballot
	deleted := BallotWrite{Entry: election.BallotEntry{Pseudonym: late[0].Pseudonym, TxID: "tx-del"}, Block: 8, Deleted: true}
	garbled := l0
	garbled.Entry.Ballot = nil
	for _, tc := range []struct {
		name      string
		ledger    Ledger
		wantOK    bool
		wantKind  string
		wantCount int
		wantLate  int
	}{
		{"late ballots are left out of the count", Ledger{Ballots: source(es), Result: resultBefore, Order: order(l0, l1)}, true, "", 4, 2},
		{"late ballots the listing did not see are not subtracted", Ledger{Ballots: source(before), Result: resultBefore, Order: order(l0, l1)}, true, "", 4, 2},
		{"without the commit order every ballot must count", Ledger{Ballots: source(es), Result: resultBefore}, false, KindResultCount, 6, 0},
		{"result over all six while two are late", Ledger{Ballots: source(es), Result: resultAll, Order: func() (*CommitOrder, error) {
			return &CommitOrder{Opening: opening(t, w), ResultBlock: 7, ResultValue: resultAll, Earlier: earlier, Late: []BallotWrite{l0, l1}}, nil
		}}, false, KindResultCount, 4, 2},
		{"the blocks' result is not the published one", Ledger{Ballots: source(before), Result: resultAll, Order: order()}, false, KindOrder, 4, 0},
		// The same ballot stored with another transaction's id: reported,
		// and still late, so still not counted.
		{"late write from another transaction than the stored ballot's", Ledger{Ballots: source(es), Result: resultBefore, Order: order(otherTx, l1)}, false, KindOrder, 4, 2},
		{"late write of other bytes than the stored ballot", Ledger{Ballots: source(es), Result: resultBefore, Order: order(otherBytes, l1)}, false, KindOrder, 5, 2},
		// A second write or a deletion is tampering, not another late ballot.
		{"a ballot key written twice after the result", Ledger{Ballots: source(es), Result: resultBefore, Order: order(l0, l1, l1)}, false, KindOrder, 4, 2},
		{"a ballot key deleted after the result", Ledger{Ballots: source(before), Result: resultBefore, Order: order(deleted)}, false, KindOrder, 4, 0},
		{"an undecodable late write the listing did not see", Ledger{Ballots: source(before), Result: resultBefore, Order: order(garbled)}, false, KindBallotDecode, 4, 1},
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
			if tc.wantOK && tc.wantLate > 0 && !strings.Contains(out.String(), "RESULT: PASS (2 ballot(s) committed after the result, not counted)") {
				t.Errorf("the PASS line does not say that late ballots were left out\n%s", out.String())
			}
		})
	}
}

// A late ballot is checked like any other: one that fails its checks is a
// failure even though it is not counted, whether or not the listing saw it.
func TestAuditLateInvalidBallot(t *testing.T) {
	w := getWorld(t)
	es := w.entries()
	bad := mutate(w.ballots[5], w.voters[5], func(b *election.Ballot) { b.Token[0] ^= 1 })
	es[5] = entry(bad)
	result := w.result(t, es[:5])
	for _, tc := range []struct {
		name   string
		listed []election.BallotEntry
	}{
		{"seen by the listing", es},
		{"committed after the listing", es[:5]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := Ledger{Manifest: manifestBytes(t, w.m), Ballots: source(tc.listed), Result: result,
				Order: func() (*CommitOrder, error) {
					return &CommitOrder{Opening: opening(t, w), ResultBlock: 3, ResultValue: result, Earlier: writes(es[:5], 2), Late: []BallotWrite{{Entry: es[5], Block: 4}}}, nil
				}}
			rep := Run(&l, Options{Workers: 2, BatchSize: 2})
			if rep.OK() || countKind(rep.Failures, KindBallotInvalid) != 1 || len(rep.Failures) != 1 {
				t.Fatalf("want exactly one BALLOT_INVALID failure, got %v", rep.Failures)
			}
		})
	}
}

// With no result there is nothing to order against: the blocks are not read.
func TestAuditNoResultDoesNotReadOrder(t *testing.T) {
	w := getWorld(t)
	called := false
	l := Ledger{Manifest: manifestBytes(t, w.m), Ballots: source(w.entries()),
		Order: func() (*CommitOrder, error) { called = true; return &CommitOrder{}, nil }}
	rep := Run(&l, Options{Workers: 2, BatchSize: 2})
	if called || countKind(rep.Failures, KindResultMissing) != 1 {
		t.Fatalf("order read: %v; failures %v", called, rep.Failures)
	}
}

// opening is the blocks' first write of the manifest key: w's manifest, in block 1.
func opening(t *testing.T, w *world) KeyWrite {
	return KeyWrite{TxID: "tx-open", Block: 1, Hash: sha256.Sum256(manifestBytes(t, w.m))}
}

// writes is what the blocks hold for entries written (once each) in block.
func writes(entries []election.BallotEntry, block uint64) []BallotWrite {
	var out []BallotWrite
	for _, e := range entries {
		out = append(out, BallotWrite{Entry: election.BallotEntry{Pseudonym: e.Pseudonym, TxID: e.TxID}, Hash: sha256.Sum256(e.Ballot), Block: block})
	}
	return out
}

// Colluding endorsers remove or replace a ballot before the tally; the
// result is computed without it, so it is consistent with the state. Only
// the blocks show it, and the audit must report it.
func TestAuditTamperingBeforeTheResult(t *testing.T) {
	w := getWorld(t)
	es := w.entries()[:4]
	survivors := es[1:]
	del := BallotWrite{Entry: election.BallotEntry{Pseudonym: es[0].Pseudonym, TxID: "tx-del"}, Block: 4, Deleted: true}
	rewrite := writes(es[1:2], 4)[0]
	rewrite.Entry.TxID = "tx-rewrite"
	otherHash := writes(es[:1], 3)[0]
	otherHash.Hash[0] ^= 1
	for _, tc := range []struct {
		name    string
		listed  []election.BallotEntry
		counted []election.BallotEntry // what the result counts
		earlier []BallotWrite
		wantOK  bool
		want    string
	}{
		{"every ballot written once", es, es, writes(es, 3), true, ""},
		{"a ballot deleted before the result", survivors, survivors, append(writes(es, 3), del), false, "deleted before the result"},
		{"a ballot key written twice before the result", es, es, append(writes(es, 3), rewrite), false, "written a second time before the result"},
		{"the state holds another ballot than the block wrote", es, es, append(writes(es[1:], 3), otherHash), false, "than the one written before the result"},
		{"a stored ballot that no block wrote", es, es, writes(survivors, 3), false, "no valid transaction since the election opened wrote"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			result := w.result(t, tc.counted)
			l := Ledger{Manifest: manifestBytes(t, w.m), Ballots: source(tc.listed), Result: result,
				Order: func() (*CommitOrder, error) {
					return &CommitOrder{Opening: opening(t, w), ResultBlock: 5, ResultValue: result, Earlier: tc.earlier}, nil
				}}
			rep := Run(&l, Options{Workers: 2, BatchSize: 2})
			var out bytes.Buffer
			rep.Write(&out)
			if rep.OK() != tc.wantOK {
				t.Fatalf("OK() = %v, want %v\n%s", rep.OK(), tc.wantOK, out.String())
			}
			if tc.want != "" && (countKind(rep.Failures, KindOrder) != 1 || !strings.Contains(out.String(), tc.want)) {
				t.Fatalf("want one COMMIT_ORDER failure saying %q\n%s", tc.want, out.String())
			}
		})
	}
}

// The contract writes the manifest key once, when the election opens. A
// later write, even of the same bytes, lets colluding endorsers pose as the
// election's opening and hide what came before it; the blocks are read from
// the first write, and every later one is reported.
func TestAuditManifestWrites(t *testing.T) {
	w := getWorld(t)
	es := w.entries()[:4]
	open := opening(t, w)
	again := KeyWrite{TxID: "tx-again", Block: 4, Hash: open.Hash}
	other := again
	other.Hash[0] ^= 1
	deleted := KeyWrite{TxID: "tx-del", Block: 4, Deleted: true}
	notTheState := open
	notTheState.Hash[0] ^= 1
	for _, tc := range []struct {
		name     string
		opening  KeyWrite
		rewrites []KeyWrite
		want     []string // the COMMIT_ORDER failures' texts, in order
	}{
		{"written once, by the opening", open, nil, nil},
		{"written again with the same bytes", open, []KeyWrite{again}, []string{
			"manifest (tx tx-again): the manifest key is written again, with the same bytes, after the election opened (block 4, opened by tx tx-open in block 1)"}},
		{"written again with other bytes", open, []KeyWrite{other}, []string{
			"manifest (tx tx-again): the manifest key is written again after the election opened"}},
		{"deleted", open, []KeyWrite{deleted}, []string{
			"manifest (tx tx-del): the manifest key is deleted after the election opened"}},
		{"written twice more", open, []KeyWrite{again, deleted}, []string{"(tx tx-again)", "(tx tx-del)"}},
		{"the opening wrote another manifest than the state holds", notTheState, nil, []string{
			"manifest (tx tx-open): the election's opening (block 1) did not write the manifest the state holds"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			result := w.result(t, es)
			l := Ledger{Manifest: manifestBytes(t, w.m), Ballots: source(es), Result: result,
				Order: func() (*CommitOrder, error) {
					return &CommitOrder{Opening: tc.opening, ManifestRewrites: tc.rewrites, ResultBlock: 5, ResultValue: result, Earlier: writes(es, 3)}, nil
				}}
			requireOrderFailures(t, &l, tc.want)
		})
	}
}

// The contract writes the result key once. The ballots are ordered against
// its first write, which must be the published result; every later write,
// even of the same bytes, would let colluding endorsers replace the result
// with one that counts ballots committed after it, and is reported.
func TestAuditResultWrites(t *testing.T) {
	w := getWorld(t)
	es := w.entries()[:4]
	result := w.result(t, es)
	again := KeyWrite{TxID: "tx-again", Block: 6, Hash: sha256.Sum256(result)}
	other := again
	other.Hash[0] ^= 1
	deleted := KeyWrite{TxID: "tx-del", Block: 6, Deleted: true}
	for _, tc := range []struct {
		name     string
		deleted  bool // the first write deletes the key
		rewrites []KeyWrite
		want     []string // the COMMIT_ORDER failures' texts, in order
	}{
		{"written once", false, nil, nil},
		{"written again with the same bytes", false, []KeyWrite{again}, []string{
			"result (tx tx-again): the result key is written again, with the same bytes, after its first write (block 6, first written by tx tx-result in block 5); the contract writes a result once"}},
		{"written again with other bytes", false, []KeyWrite{other}, []string{
			"result (tx tx-again): the result key is written again after its first write"}},
		{"deleted", false, []KeyWrite{deleted}, []string{
			"result (tx tx-del): the result key is deleted after its first write"}},
		// A report's failures are sorted by subject within their kind (SortFailures).
		{"deleted, then written again", false, []KeyWrite{deleted, again}, []string{"(tx tx-again)", "(tx tx-del)"}},
		{"the first write deletes it", true, []KeyWrite{again}, []string{
			"result (tx tx-again): the result key is written again after its first write",
			"result (tx tx-result): the result key's first write since the election opened (block 5) deletes it"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := &CommitOrder{Opening: opening(t, w), ResultBlock: 5, ResultTxID: "tx-result", ResultValue: result,
				ResultDeleted: tc.deleted, ResultRewrites: tc.rewrites, Earlier: writes(es, 3)}
			if tc.deleted {
				o.ResultValue = nil
			}
			l := Ledger{Manifest: manifestBytes(t, w.m), Ballots: source(es), Result: result,
				Order: func() (*CommitOrder, error) { return o, nil }}
			requireOrderFailures(t, &l, tc.want)
		})
	}
}

// requireOrderFailures audits l and requires exactly the COMMIT_ORDER
// failures whose texts contain want, in order (none: the audit passes).
func requireOrderFailures(t *testing.T, l *Ledger, want []string) {
	t.Helper()
	rep := Run(l, Options{Workers: 2, BatchSize: 2})
	var out bytes.Buffer
	rep.Write(&out)
	if rep.OK() != (len(want) == 0) || len(rep.Failures) != len(want) {
		t.Fatalf("OK() = %v with %d failures, want %d\n%s", rep.OK(), len(rep.Failures), len(want), out.String())
	}
	for i, w := range want {
		if f := rep.Failures[i]; f.Kind != KindOrder || !strings.Contains(f.String(), w) {
			t.Errorf("failure %d is %q, want a COMMIT_ORDER failure containing %q", i, f, w)
		}
	}
}
