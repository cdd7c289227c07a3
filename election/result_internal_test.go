package election

import (
	"strings"
	"testing"
)

// TestCheckContestRefuses: every rule of a contest's counts, one case each,
// on the council of multiContest (up to 3 of 9, or blank; M = 2^10).
func TestCheckContestRefuses(t *testing.T) {
	p, _ := multiContest(t)
	good := func() ContestResult {
		// 10 ballots: 2 blank, 8 selecting 1 + 1 + 0 + ... = 13 of at most 24.
		return ContestResult{ID: "council", Ballots: 10, Counts: []uint64{5, 4, 2, 1, 1, 0, 0, 0, 0}, Blank: 2, Undervotes: 24 - 13}
	}
	if cr := good(); p.checkContest(1, &cr, 10) != nil {
		t.Fatalf("the honest count is refused: %v", p.checkContest(1, &cr, 10))
	}
	for _, tc := range []struct {
		name string
		edit func(cr *ContestResult) uint64 // returns ballotCount
		want string
	}{
		{"another contest's id", func(cr *ContestResult) uint64 { cr.ID = "mayor"; return 10 }, "want contest"},
		{"more ballots than counted", func(cr *ContestResult) uint64 { return 9 }, "more than ballotCount"},
		{"ballots reach M (overflow)", func(cr *ContestResult) uint64 { cr.Ballots = 1 << 10; return 1 << 10 }, "overflow its digit"},
		{"a count missing", func(cr *ContestResult) uint64 { cr.Counts = cr.Counts[1:]; return 10 }, "want one per option"},
		{"blank above ballots", func(cr *ContestResult) uint64 { cr.Blank = 11; return 10 }, "blank votes of"},
		{"a count above the ballots", func(cr *ContestResult) uint64 { cr.Counts[0] = 9; return 10 }, "more than the 8 ballots"},
		{"more selections than max", func(cr *ContestResult) uint64 { cr.Counts = []uint64{8, 8, 8, 8, 0, 0, 0, 0, 0}; return 10 }, "outside 0..24"},
		{"undervotes wrong", func(cr *ContestResult) uint64 { cr.Undervotes++; return 10 }, "undervotes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cr := good()
			n := tc.edit(&cr)
			err := p.checkContest(1, &cr, n)
			if CodeOf(err) != CodeResult || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want RESULT containing %q", err, tc.want)
			}
		})
	}
	// The mayor (exactly 1 of 4, no blank): blank votes, and fewer
	// selections than ballots.
	mayor := ContestResult{ID: "mayor", Ballots: 3, Counts: []uint64{1, 1, 0, 0}, Blank: 1}
	if err := p.checkContest(0, &mayor, 3); CodeOf(err) != CodeResult || !strings.Contains(err.Error(), "allows none") {
		t.Fatalf("blank in a contest without: %v", err)
	}
	mayor.Blank = 0
	if err := p.checkContest(0, &mayor, 3); CodeOf(err) != CodeResult || !strings.Contains(err.Error(), "outside 3..3") {
		t.Fatalf("an undervote in a contest of exactly one: %v", err)
	}
}

// TestUndervotes: undervotes of an honest count, and 0 where the counts
// are no honest count (they would make it negative or wrap).
func TestUndervotes(t *testing.T) {
	c := &Contest{Max: 3, Options: make([]string, 3)}
	for _, tc := range []struct {
		cr   ContestResult
		want uint64
	}{
		{ContestResult{Ballots: 4, Blank: 1, Counts: []uint64{2, 2, 1}}, 4},
		{ContestResult{Ballots: 1, Counts: []uint64{3, 3, 3}}, 0},
		{ContestResult{Ballots: 1, Blank: 2}, 0},
		{ContestResult{Ballots: 1 << 63, Counts: []uint64{1 << 63, 1 << 63, 1 << 63}}, 0},
	} {
		if got := undervotes(c, &tc.cr); got != tc.want {
			t.Errorf("undervotes(%+v) = %d, want %d", tc.cr, got, tc.want)
		}
	}
}

// TestBallotCountAboveContests: where no contest is on every ballot, a
// ballotCount above the contests' ballots together (3 here) counts
// ballots that answer nothing, and is refused.
func TestBallotCountAboveContests(t *testing.T) {
	p, _ := multiContest(t)
	m := *p.Manifest
	m.Styles = []Style{{ID: "a", Contests: []string{"mayor"}}, {ID: "b", Contests: []string{"council", "referendum"}}}
	q := &Prepared{Manifest: &m, PublicKey: p.PublicKey, Layout: p.Layout}
	if err := q.prepareStatements(); err != nil {
		t.Fatal(err)
	}
	r := &Result{BallotCount: 4, Contests: []ContestResult{
		{ID: "mayor", Ballots: 1, Counts: []uint64{1, 0, 0, 0}},
		{ID: "council", Ballots: 1, Counts: make([]uint64, 9), Undervotes: 3},
		{ID: "referendum", Ballots: 1, Counts: []uint64{0, 1}},
	}}
	if err := q.checkContestCounts(r); CodeOf(err) != CodeResult || !strings.Contains(err.Error(), "every ballot answers a contest") {
		t.Fatalf("4 ballots, the contests counting 3 answers: %v", err)
	}
	r.BallotCount = 2
	if err := q.checkContestCounts(r); err != nil {
		t.Fatalf("2 ballots, one of each style: %v", err)
	}
}

// TestContestBallotErrors: one error for each contest whose ballots differ
// from the ledger's, one for a list of another length.
func TestContestBallotErrors(t *testing.T) {
	r := &Result{Contests: []ContestResult{{ID: "a", Ballots: 3}, {ID: "b", Ballots: 2}, {ID: "c", Ballots: 1}}}
	if errs := ContestBallotErrors(r, []uint64{3, 2, 1}); len(errs) != 0 || CheckContestBallots(r, []uint64{3, 2, 1}) != nil {
		t.Fatalf("the right counts: %v", errs)
	}
	errs := ContestBallotErrors(r, []uint64{4, 2, 0})
	if len(errs) != 2 || !strings.Contains(errs[0].Error(), `contests[0] "a" counts 3 ballots, but 4`) || !strings.Contains(errs[1].Error(), `contests[2] "c"`) {
		t.Fatalf("two contests off: %v", errs)
	}
	if err := CheckContestBallots(r, []uint64{4, 2, 0}); err != errs[0] && err.Error() != errs[0].Error() {
		t.Fatalf("CheckContestBallots = %v, want the first, %v", err, errs[0])
	}
	if errs := ContestBallotErrors(r, []uint64{3, 2}); len(errs) != 1 || CodeOf(errs[0]) != CodeResult {
		t.Fatalf("a list of another length: %v", errs)
	}
}
