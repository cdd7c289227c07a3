package audit

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
)

// TestReportJSONLive: a live report has the network's three steps, each
// failing with its own kinds, and null ballots and result when the audit
// stopped before them.
func TestReportJSONLive(t *testing.T) {
	cases := []struct {
		name    string
		rep     *Report
		steps   map[string]bool
		ballots bool
	}{
		{"manifest fails", &Report{ElectionID: "e", Failures: []Failure{{Kind: KindManifest, Subject: "manifest", Err: "bad"}}},
			map[string]bool{StepBallots: false, StepCommitOrder: true, StepResult: true}, false},
		{"late ballot rewritten", &Report{ElectionID: "e", Tally: &Tally{Entries: 3, Valid: 3}, Counted: 2,
			Order:    &CommitOrder{Late: []BallotWrite{{Block: 9}}},
			Failures: []Failure{{Kind: KindOrder, Subject: "ballot ab", Pseudonym: "ab", Err: "x"}, {Kind: "EXPECTED_COUNTS", Subject: "result", Err: "y"}}},
			map[string]bool{StepBallots: true, StepCommitOrder: false, StepResult: false}, true},
	}
	for _, tc := range cases {
		b, err := tc.rep.JSON()
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Source      string
			OK          bool
			GenesisHash *string
			Steps       []struct {
				Step string
				OK   bool
			}
			Ballots     *struct{ Recorded, Valid, Counted, Late int }
			Result      *struct{}
			LateBallots []struct{ Block uint64 }
			Failures    []map[string]string
		}
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		steps := map[string]bool{}
		for _, s := range got.Steps {
			steps[s.Step] = s.OK
		}
		if got.Source != SourceNetwork || got.OK || got.GenesisHash != nil || !reflect.DeepEqual(steps, tc.steps) ||
			(got.Ballots != nil) != tc.ballots || got.Result != nil || len(got.Failures) != len(tc.rep.Failures) {
			t.Errorf("%s: %s", tc.name, b)
		}
		if tc.ballots && (got.Ballots.Late != 1 || got.Ballots.Counted != 2 || len(got.LateBallots) != 1 || got.Failures[0]["pseudonym"] != "ab") {
			t.Errorf("%s: counts or late ballots wrong: %s", tc.name, b)
		}
		if _, has := got.Failures[0]["code"]; has {
			t.Errorf("%s: an empty code is not omitted: %s", tc.name, b)
		}
	}
}

// TestSortFailures: kinds in the steps' order, then subject, pseudonym and
// code byte by byte; equal ones keep their order (RECORD.md 7).
func TestSortFailures(t *testing.T) {
	fs := []Failure{
		{Kind: KindResult, Subject: "result", Err: "1"},
		{Kind: KindBallotInvalid, Subject: "ballot b", Code: "TOKEN"},
		{Kind: KindOrder, Subject: "manifest (tx 1)"},
		{Kind: KindBallotInvalid, Subject: "ballot b", Code: "PROOF"},
		{Kind: KindRecordBallots, Subject: "ballot a"},
		{Kind: "SOMETHING_NEW", Subject: "x"},
		{Kind: KindBlockChain, Subject: "block 10"},
		{Kind: KindBlockChain, Subject: "block 2"},
		{Kind: KindResult, Subject: "result", Err: "2"},
		{Kind: KindManifest, Subject: "manifest"},
	}
	SortFailures(fs)
	var got []string
	for _, f := range fs {
		got = append(got, f.Kind+" "+f.Subject+" "+f.Code+f.Err)
	}
	want := []string{"BLOCK_CHAIN block 10 ", "BLOCK_CHAIN block 2 ", "RECORD_BALLOTS ballot a ", "MANIFEST manifest ",
		"BALLOT_INVALID ballot b PROOF", "BALLOT_INVALID ballot b TOKEN", "COMMIT_ORDER manifest (tx 1) ",
		"RESULT result 1", "RESULT result 2", "SOMETHING_NEW x "}
	if !slices.Equal(got, want) {
		t.Fatalf("sorted:\n%q\nwant\n%q", got, want)
	}
}
