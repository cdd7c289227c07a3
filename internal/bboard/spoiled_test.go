package bboard

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/a11y"
	"github.com/fabvote/fabvote/internal/audit"
	"github.com/fabvote/fabvote/internal/record"
)

// spoiledRecord is internal/record's committed vector of an election with
// trackers: five cast ballots, each with its ciphertext claims, and two audited
// ballots of style north, published as spoiled ballots.
const spoiledRecord = "../record/testdata/records/spoiled"

// spoiledBoard builds the board of spoiledRecord, with the Go verifier's
// report.
func spoiledBoard(t *testing.T) string {
	t.Helper()
	rep, err := record.Verify(context.Background(), spoiledRecord, record.Options{})
	if err != nil {
		t.Fatal(err)
	}
	js, err := rep.JSON()
	if err != nil {
		t.Fatal(err)
	}
	site := filepath.Join(t.TempDir(), "site")
	if err := Build(spoiledRecord, js, site); err != nil {
		t.Fatal(err)
	}
	return site
}

func readSite(t *testing.T, site, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(site, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestSpoiledPage: the audited ballots page lists each spoiled ballot by
// its tracker, with its choice in the manifest's option titles, marked
// audited and not counted; every cast ballot's row shows its tracker; and
// the page passes the static accessibility rules.
func TestSpoiledPage(t *testing.T) {
	site := spoiledBoard(t)
	trackers, err := record.ReadTrackers(context.Background(), spoiledRecord)
	if err != nil {
		t.Fatal(err)
	}
	if len(trackers.Spoiled) != 2 || len(trackers.Cast) != 5 {
		t.Fatalf("the vector has %d spoiled and %d cast trackers, want 2 and 5", len(trackers.Spoiled), len(trackers.Cast))
	}
	page := text(readSite(t, site, "spoiled.html"))
	for _, s := range trackers.Spoiled {
		// recordtest audits ContestVotes[0]: Cleo; Eli and Hal; No.
		want := fmt.Sprintf("%s %d %d %s", s.Tracker, s.Block, s.Index, s.TxID) +
			" Mayor: Cleo Council: Eli, Hal Referendum: No audited, not counted"
		if !strings.Contains(page, want) {
			t.Errorf("spoiled.html lacks %q:\n%s", want, page)
		}
	}
	ballots := readSite(t, site, "ballots-0001.html")
	for p, tr := range trackers.Cast {
		if !strings.Contains(ballots, "<code>"+tr+"</code>") {
			t.Errorf("ballots-0001.html lacks the tracker %s of ballot %s", tr, p)
		}
	}
	for _, p := range a11y.Problems(strings.NewReader(readSite(t, site, "spoiled.html"))) {
		t.Errorf("spoiled.html: %s", p)
	}
	if !strings.Contains(readSite(t, site, "index.html"), `href="spoiled.html"`) {
		t.Error("the navigation has no link to the audited ballots")
	}
}

// TestSpoiledSearchData: a cast ballot is in the shard of its hash and in
// that of its tracker; a spoiled ballot in its tracker's, with its choice.
func TestSpoiledSearchData(t *testing.T) {
	site := spoiledBoard(t)
	trackers, err := record.ReadTrackers(context.Background(), spoiledRecord)
	if err != nil {
		t.Fatal(err)
	}
	for p, tr := range trackers.Cast {
		if shard := readSite(t, site, "data/"+tr[:2]+".js"); !strings.Contains(shard, `"`+tr+`"`) {
			t.Errorf("data/%s.js lacks the tracker of ballot %s", tr[:2], p)
		}
	}
	for _, s := range trackers.Spoiled {
		shard := readSite(t, site, "data/"+s.Tracker[:2]+".js")
		if !strings.Contains(shard, `"s","","`+s.Tracker+`","Mayor: Cleo; Council: Eli, Hal; Referendum: No"`) {
			t.Errorf("data/%s.js lacks the spoiled ballot %s: %s", s.Tracker[:2], s.Tracker, shard)
		}
	}
}

// TestSpoiledInvalidMarked: a spoiled ballot that a failure of the report
// names is marked invalid on the page, with the failure's kind and code.
func TestSpoiledInvalidMarked(t *testing.T) {
	trackers, err := record.ReadTrackers(context.Background(), spoiledRecord)
	if err != nil {
		t.Fatal(err)
	}
	in := &input{dir: spoiledRecord, trackers: trackers}
	if in.manifest, err = election.ParseManifest([]byte(readSite(t, spoiledRecord, "manifest.json"))); err != nil {
		t.Fatal(err)
	}
	bad := trackers.Spoiled[1]
	in.report.Failures = append(in.report.Failures, audit.JSONFailure{Kind: audit.KindSpoiled, Code: election.CodeOpening, Subject: "tracker " + bad.Tracker + " (tx " + bad.TxID + ")"})
	got := spoiled(in)
	if got[0].Bad || got[0].Status != spoiledLabel || !got[1].Bad || got[1].Status != "invalid: SPOILED_INVALID OPENING" {
		t.Fatalf("statuses %q, %q; want the second invalid", got[0].Status, got[1].Status)
	}
}
