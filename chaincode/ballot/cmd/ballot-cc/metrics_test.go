package main

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/fabvote/fabvote/chaincode/ballot"
)

// The collector exports exactly the contract's counters, read at scrape
// time: a change of the counters shows in the next scrape.
func TestStatsCollector(t *testing.T) {
	s := ballot.Stats{ProofsChecked: 7, Accepted: 5, Rejected: map[string]uint64{"DUPLICATE": 1, "BAD_PROOF": 2},
		Batches: 2, BatchedProofs: 6, CachedManifests: 1}
	c := newStatsCollector(func() ballot.Stats { return s })
	want := `
# HELP fabvote_chaincode_ballots_accepted_total CastBallot executions that returned a receipt (an endorsement, not yet a commit).
# TYPE fabvote_chaincode_ballots_accepted_total counter
fabvote_chaincode_ballots_accepted_total 5
# HELP fabvote_chaincode_ballots_rejected_total CastBallot executions refused, by error code.
# TYPE fabvote_chaincode_ballots_rejected_total counter
fabvote_chaincode_ballots_rejected_total{code="BAD_PROOF"} 2
fabvote_chaincode_ballots_rejected_total{code="DUPLICATE"} 1
# HELP fabvote_chaincode_proofs_checked_total Validity proofs this process handed to its verifier.
# TYPE fabvote_chaincode_proofs_checked_total counter
fabvote_chaincode_proofs_checked_total 7
`
	names := []string{"fabvote_chaincode_ballots_accepted_total", "fabvote_chaincode_ballots_rejected_total", "fabvote_chaincode_proofs_checked_total"}
	if err := testutil.CollectAndCompare(c, strings.NewReader(want), names...); err != nil {
		t.Fatal(err)
	}
	s.Accepted = 6
	if err := testutil.CollectAndCompare(c, strings.NewReader(strings.Replace(want, "total 5", "total 6", 1)), names...); err != nil {
		t.Fatalf("after one more ballot: %v", err)
	}
	if n := testutil.CollectAndCount(c); n != 7 {
		t.Fatalf("%d series, want 7 (5 counters and a gauge, one of them by 2 rejection codes)", n)
	}
}
