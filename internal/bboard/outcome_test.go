package bboard

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/audit"
)

func TestOutcome(t *testing.T) {
	c := func(name string, n uint64) optionCount { return optionCount{name, n, share(n, 10)} }
	tests := []struct {
		rs         []optionCount
		total      uint64
		selections int
		want       string
	}{
		{[]optionCount{c("Alice", 6), c("Bob", 4)}, 10, 1, "Alice received the most votes: 6 of 10 ballots counted (60.0 %)."},
		{[]optionCount{c("Alice", 4), c("Bob", 4), c("Carol", 2)}, 10, 1, "A tie: Alice and Bob received 4 votes each, of 10 ballots counted."},
		{[]optionCount{c("Alice", 0), c("Bob", 0)}, 0, 1, "No ballot was counted."},
		{[]optionCount{c("Alice", 0), c("Bob", 0)}, 10, 1, "No option received a vote, of 10 ballots counted."},
		{[]optionCount{c("Eli", 7), c("Fay", 5), c("Gus", 5)}, 10, 2,
			"Eli leads with 7 votes, of 10 ballots counted (70.0 %). Each ballot could select up to 2 options: the table gives every option's votes."},
		{[]optionCount{c("Eli", 5), c("Fay", 5), c("Gus", 2)}, 10, 2,
			"A tie for the lead: Eli and Fay received 5 votes each, of 10 ballots counted. Each ballot could select up to 2 options: the table gives every option's votes."},
	}
	for _, tt := range tests {
		if got := outcome(tt.rs, tt.total, tt.selections); got != tt.want {
			t.Errorf("outcome(%v, %d, %d) = %q, want %q", tt.rs, tt.total, tt.selections, got, tt.want)
		}
	}
	bars, h := chart([]optionCount{c("Alice", 6), c("Bob", 3), c("Carol", 0)}, nil)
	if h != 3*barStep || bars[0].Width != chartWidth || bars[1].Width != chartWidth/2 || bars[2].Width != 0 || !bars[0].Leader || bars[1].Leader {
		t.Errorf("chart: %+v, height %d", bars, h)
	}
	// Blank votes get a bar of their own, scaled with the others, but
	// never lead: the options with the most votes do.
	blank := c("Blank", 8)
	bars, h = chart([]optionCount{c("Alice", 4), c("Bob", 2)}, &blank)
	if h != 3*barStep || len(bars) != 3 || !bars[2].Blank || bars[2].Leader || bars[2].Width != chartWidth ||
		bars[0].Width != chartWidth/2 || !bars[0].Leader || bars[1].Leader || bars[0].Blank {
		t.Errorf("chart with blank votes: %+v, height %d", bars, h)
	}
}

func TestRule(t *testing.T) {
	for _, tt := range []struct {
		c    election.Contest
		want string
	}{
		{election.NewContest("a", "A", []string{"1", "2", "3", "4"}, 1, 1, false), "choose 1 of 4"},
		{election.NewContest("a", "A", []string{"1", "2", "3", "4", "5"}, 0, 2, true), "up to 2 of 5, or blank"},
		{election.NewContest("a", "A", []string{"1", "2", "3", "4", "5", "6"}, 2, 3, false), "choose 2 to 3 of 6"},
		{election.NewContest("a", "A", []string{"Yes", "No"}, 1, 1, true), "choose 1 of 2, or blank"},
	} {
		if got := rule(&tt.c); got != tt.want {
			t.Errorf("rule(%d..%d of %d, blank %v) = %q, want %q", tt.c.Min, tt.c.Max, len(tt.c.Options), tt.c.Blank, got, tt.want)
		}
	}
}

// TestBoardShowsOutcomeTrusteesAndChart: the front page states the
// outcome, draws the result without a script, and says who holds a share
// and which trustees decrypted (the threshold fixture's partial
// decryptions are trustees 1 and 3's).
func TestBoardShowsOutcomeTrusteesAndChart(t *testing.T) {
	_, files := build(t, newFixture("threshold").passing())
	page := files["index.html"]
	for _, want := range []string{
		"A tie: ", "<svg class=\"chart\" role=\"img\"", "held by trustees 1 to 3, each their own; any 2 of them decrypt",
		"decrypted by trustees 1, 3", "<dt>Trustee organisations</dt>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("index.html lacks %q", want)
		}
	}
	if strings.Contains(page, "<script") && !strings.Contains(page, "search.js") {
		t.Errorf("index.html runs a script")
	}
}

// TestFailuresFirstCauseFirst: failures that explain others (the
// manifest, the commit order) come before the ballots they invalidate,
// in the summary by kind and in the list, even past the list's length.
func TestFailuresFirstCauseFirst(t *testing.T) {
	f := newFixture("threshold")
	var fs []any
	for range maxIndexFailures + 50 {
		fs = append(fs, map[string]any{"kind": "BALLOT_INVALID", "code": "PROOF", "subject": "ballot", "error": "bad proof"})
	}
	fs = append(fs, map[string]any{"kind": "COMMIT_ORDER", "subject": "result", "error": "late"},
		map[string]any{"kind": "MANIFEST", "subject": "manifest", "error": "written twice"})
	f.report["failures"] = fs
	_, files := build(t, f)
	page := text(files["index.html"])
	iM, iC, iB := strings.Index(page, "MANIFEST"), strings.Index(page, "COMMIT_ORDER"), strings.Index(page, "BALLOT_INVALID")
	if iM < 0 || iC < 0 || iB < 0 || !(iM < iC && iC < iB) {
		t.Errorf("order of kinds on the page: MANIFEST %d, COMMIT_ORDER %d, BALLOT_INVALID %d", iM, iC, iB)
	}
	row := `<code>BALLOT_INVALID</code></th><td class="num">` + strconv.Itoa(maxIndexFailures+50) + `</td>`
	if !strings.Contains(files["index.html"], row) {
		t.Errorf("the summary by kind lacks %s", row)
	}
}

// TestDownloads: the manifest, the result, the ballot index and the whole
// record are offered with their SHA-256, the archive the same bytes for
// the same record.
func TestDownloads(t *testing.T) {
	f := newFixture("single").passing()
	out1, files := build(t, f)
	out2, _ := build(t, f)
	for _, name := range []string{"manifest.json", "result.json", "ballots.json", recordArchive} {
		b, err := os.ReadFile(filepath.Join(out1, downloadsDir, name))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		if !strings.Contains(files["index.html"], hex.EncodeToString(sum[:])) {
			t.Errorf("index.html does not show the SHA-256 of %s", name)
		}
		b2, _ := os.ReadFile(filepath.Join(out2, downloadsDir, name))
		if string(b) != string(b2) {
			t.Errorf("%s differs between two builds of the same record", name)
		}
	}
}

// TestKeyOrigin: the board says who made the key, and for the trustees'
// ceremony whether the verification checked it (V33 passed, failed, or
// did not run).
func TestKeyOrigin(t *testing.T) {
	dealt := &election.Manifest{KeyOrigin: election.KeyOriginDealer}
	dist := &election.Manifest{KeyOrigin: election.KeyOriginDistributed,
		KeyCeremony: &election.KeyCeremony{ID: []byte("0123456789abcdef")}}
	id := "ceremony id 30313233343536373839616263646566"
	tests := []struct {
		name   string
		m      *election.Manifest
		checks []audit.JSONCheck
		want   string
	}{
		{"dealer", dealt, []audit.JSONCheck{{Check: "V33", OK: true}},
			"a dealer (one machine held the whole key while it ran: for tests and benchmarks)"},
		{"ceremony checked", dist, []audit.JSONCheck{{Check: "V11", OK: true}, {Check: "V33", OK: true}},
			"the trustees' ceremony, no dealer (" + id + "; modulus proof and self-test checked)"},
		{"ceremony refused", dist, []audit.JSONCheck{{Check: "V33", OK: false}},
			"the trustees' ceremony, no dealer (" + id + "; the verification REFUSED its modulus proof or self-test (V33))"},
		{"ceremony not checked", dist, nil,
			"the trustees' ceremony, no dealer (" + id + "; not checked by this verification)"},
	}
	for _, tc := range tests {
		if got := keyOrigin(tc.m, tc.checks); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
