package record_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/internal/audit"
	"github.com/fabvote/fabvote/internal/record"
	"github.com/fabvote/fabvote/internal/record/recordtest"
)

// TestTrackers: each tampering of a spoiled ballot or a ciphertext claim
// (docs/VERIFY.md V32) fails with exactly its kind and code, under V32,
// naming the tracker, the ballot or the claim; the spoiled ballots never
// reach the count, tampered or not; and the Python verifier gives the
// same report.
func TestTrackers(t *testing.T) {
	for v, want := range recordtest.TrackerCases() {
		t.Run(string(v), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "rec")
			if _, err := recordtest.Write(context.Background(), v, dir); err != nil {
				t.Fatal(err)
			}
			rep := verify(t, dir, record.Options{})
			counted := len(recordtest.ContestVotes)
			if recordtest.CastsAudited(v) {
				counted++ // the audited ballot cast too is a valid ballot: V32 fails the report, the count stays
			}
			if rep.Counted != counted || rep.Result == nil || rep.Result.BallotCount != uint64(counted) {
				t.Errorf("counted %d, want the %d cast ballots only", rep.Counted, counted)
			}
			checkTrackerFailures(t, rep, want, recordtest.TamperSubjects[v])
			agreeWithPython(t, dir, record.Options{}, rep)
		})
	}
}

// checkTrackerFailures wants no failure for an empty want, else exactly
// one of want's kind and code, under V32, its subject starting with
// prefix, a cast ballot's naming its pseudonym.
func checkTrackerFailures(t *testing.T, rep *audit.Report, want [2]string, prefix string) {
	t.Helper()
	if want[0] == "" {
		if len(rep.Failures) > 0 {
			t.Fatalf("failures %v, want none", rep.Failures)
		}
		return
	}
	if len(rep.Failures) != 1 {
		t.Fatalf("failures %v, want one %s %s", rep.Failures, want[0], want[1])
	}
	f := rep.Failures[0]
	if f.Kind != want[0] || f.Code != want[1] || audit.CheckOf(f) != "V32" || !strings.HasPrefix(f.Subject, prefix) {
		t.Fatalf("failure %+v (check %s), want %s %s under V32, subject %q…", f, audit.CheckOf(f), want[0], want[1], prefix)
	}
	if prefix == "ballot " && f.Pseudonym == "" {
		t.Fatalf("failure %+v names no pseudonym", f)
	}
}

// TestTrackersListed: a record's report lists V32 among the checks run
// and passed, on a record without tracker writes and on one with them.
func TestTrackersListed(t *testing.T) {
	for _, dir := range []string{goodFixture, filepath.Join(fixturesDir, "spoiled")} {
		rep := verify(t, dir, record.Options{})
		found := false
		for _, c := range rep.ChecksRun() {
			found = found || c.ID == "V32" && c.OK
		}
		if !found {
			t.Errorf("%s: V32 not listed as passed", dir)
		}
	}
}
