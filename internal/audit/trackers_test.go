package audit_test

import (
	"context"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/audit"
	"github.com/fabvote/fabvote/internal/chain"
	"github.com/fabvote/fabvote/internal/record/recordtest"
)

// TestLiveTrackers audits recordtest's tracker elections as a live
// verification does (the listing's ballots, the commit order and the
// tracker writes read from the channel's blocks): the honest one passes
// V32, each tampered one fails it with its kind and code, and the
// spoiled ballots never reach the count.
func TestLiveTrackers(t *testing.T) {
	for v, want := range recordtest.TrackerCases() {
		t.Run(string(v), func(t *testing.T) {
			e, err := recordtest.Build(v)
			if err != nil {
				t.Fatal(err)
			}
			ctx, src := context.Background(), e.Source
			l := &audit.Ledger{Manifest: src.Manifest, Result: src.Result, Ballots: listing(t, e.Chain),
				Order: func() (*audit.CommitOrder, error) {
					return audit.ReadCommitOrder(ctx, e.Chain, src.Chaincode, src.ElectionID)
				},
				Trackers: func() ([]audit.TrackerWrite, error) {
					return audit.ReadTrackerWrites(ctx, e.Chain, src.Chaincode, src.ElectionID)
				}}
			rep := audit.Run(l, audit.Options{Workers: 1})
			var got [][2]string
			for _, f := range rep.Failures {
				got = append(got, [2]string{f.Kind, f.Code})
			}
			if want == ([2]string{}) && len(got) > 0 || want != ([2]string{}) && (len(got) != 1 || got[0] != want) {
				t.Fatalf("failures %v, want %v", rep.Failures, want)
			}
			if !rep.TrackersChecked || !checkListed(rep, "V32") {
				t.Error("V32 is not among the checks run")
			}
			if counted := len(recordtest.ContestVotes) + map[bool]int{true: 1}[recordtest.CastsAudited(v)]; rep.Counted != counted {
				t.Errorf("counted %d, want %d", rep.Counted, counted)
			}
		})
	}
}

// TestLiveWithoutTrackersNoV32: a live verification that reads no blocks
// (no Ledger.Trackers) does not list V32.
func TestLiveWithoutTrackersNoV32(t *testing.T) {
	e, err := recordtest.Build(recordtest.Spoiled)
	if err != nil {
		t.Fatal(err)
	}
	rep := audit.Run(&audit.Ledger{Manifest: e.Source.Manifest, Result: e.Source.Result, Ballots: listing(t, e.Chain)}, audit.Options{Workers: 1})
	if rep.TrackersChecked || checkListed(rep, "V32") {
		t.Error("V32 listed without the blocks")
	}
}

func checkListed(rep *audit.Report, id string) bool {
	for _, c := range rep.ChecksRun() {
		if c.ID == id {
			return true
		}
	}
	return false
}

// listing is what ListBallots answers on the chain's state: every ballot
// key's value, as the valid transactions wrote them.
func listing(t *testing.T, r chain.Reader) audit.BallotSource {
	t.Helper()
	ctx := context.Background()
	h, err := r.Height(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var entries []election.BallotEntry
	prefix := election.LedgerKey(election.ObjBallot, recordtest.ElectionID)
	for n := range h {
		raw, err := r.Block(ctx, n)
		if err != nil {
			t.Fatal(err)
		}
		b, err := chain.ParseBlock(raw)
		if err != nil {
			t.Fatal(err)
		}
		for _, tx := range b.Txs {
			for _, w := range tx.Writes {
				if p, ok := strings.CutPrefix(w.Key, prefix); ok && tx.Valid {
					rec, err := election.ParseRecord(w.Value)
					if err != nil {
						t.Fatal(err)
					}
					entries = append(entries, election.BallotEntry{Pseudonym: strings.TrimSuffix(p, "\x00"), TxID: rec.TxID, Ballot: rec.Ballot})
				}
			}
		}
	}
	return func(fn func(election.BallotEntry) error) error {
		for _, e := range entries {
			if err := fn(e); err != nil {
				return err
			}
		}
		return nil
	}
}
