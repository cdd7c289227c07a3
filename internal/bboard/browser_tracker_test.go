//go:build browser

package bboard

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fabvote/fabvote/internal/devtools"
	"github.com/fabvote/fabvote/internal/record"
)

// TestBrowserTrackerSearch: in Chromium, the receipt search finds a cast
// ballot by its tracker as by its hash, and an audited ballot by its
// tracker, with its revealed choice and "audited, not counted", whether
// the link carries the search in the fragment (#q=, as the booth links)
// or in the query (?q=); the audited ballots page renders.
func TestBrowserTrackerSearch(t *testing.T) {
	built := spoiledBoard(t)
	site := filepath.Join(artifacts(t), "site-spoiled")
	if err := os.RemoveAll(site); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(built, site); err != nil {
		t.Fatal(err)
	}
	trackers, err := record.ReadTrackers(context.Background(), spoiledRecord)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := record.DecodeBallotIndex([]byte(readSite(t, spoiledRecord, record.BallotsFile)))
	if err != nil {
		t.Fatal(err)
	}
	cast := idx[0]
	audited := trackers.Spoiled[0]
	cases := []struct {
		name, q string
		want    []string
	}{
		{"cast ballot by tracker", trackers.Cast[cast.Pseudonym], []string{"Found: your ballot was recorded (counted)",
			"Ballot hash " + cast.BallotHash, "Tracker " + trackers.Cast[cast.Pseudonym], "Status counted"}},
		{"cast ballot by hash, its tracker shown", cast.BallotHash, []string{"Found: your ballot was recorded (counted)", "Tracker " + trackers.Cast[cast.Pseudonym]}},
		{"audited ballot by tracker", strings.ToUpper(audited.Tracker), []string{"Found: your audited ballot was published (audited, not counted)",
			"Tracker " + audited.Tracker, "Revealed choice Mayor: Cleo; Council: Eli, Hal; Referendum: No", "never counted"}},
	}
	for _, tc := range cases {
		for _, form := range []string{"#q=", "?q="} {
			t.Run(tc.name+" "+form, func(t *testing.T) {
				searchAnswers(t, fileURL(site, "search.html")+form+tc.q, tc.want)
			})
		}
	}
	dom := string(runChromium(t, "--dump-dom", fileURL(site, "spoiled.html")))
	if !strings.Contains(text(dom), audited.Tracker) {
		t.Errorf("spoiled.html in Chromium lacks the tracker %s", audited.Tracker)
	}
}

// TestBrowserKeyboardTracker: by keyboard alone, a voter types the tracker
// of a ballot they audited into the search box and presses Enter; the live
// region answers with its published choice, focus stays in the box, and
// the address keeps the search in its fragment, never in the query. A
// link that changes only the fragment searches again.
func TestBrowserKeyboardTracker(t *testing.T) {
	site := spoiledBoard(t)
	trackers, err := record.ReadTrackers(context.Background(), spoiledRecord)
	if err != nil {
		t.Fatal(err)
	}
	c := keyboardPage(t, fileURL(site, "search.html"))
	for i := 0; i < 20 && !strings.HasPrefix(focused(t, c), "input#q"); i++ {
		tab(t, c)
	}
	if !strings.HasPrefix(focused(t, c), "input#q") {
		t.Fatalf("Tab never reached the search box; focus is on %q", focused(t, c))
	}
	c.Call(t, "Input.insertText", map[string]any{"text": trackers.Spoiled[1].Tracker}, nil)
	enter(t, c)
	c.WaitFor(t, `/Found|Not found|Not a ballot/.test(document.getElementById("result").textContent)`, 20*time.Second)
	got, _ := c.Eval(t, `document.getElementById("result").textContent`).(string)
	if !strings.Contains(got, "audited, not counted") || !strings.Contains(got, "Mayor: Cleo") {
		t.Errorf("answer after Enter: %q", got)
	}
	if f := focused(t, c); !strings.HasPrefix(f, "input#q") {
		t.Errorf("after the search, focus is on %q, want still the search box", f)
	}
	if q, h := c.EvalString(t, `location.search`), c.EvalString(t, `location.hash`); q != "" || h != "#q="+trackers.Spoiled[1].Tracker {
		t.Errorf("after the search, the address has query %q and fragment %q, want the tracker in the fragment alone", q, h)
	}
	other := trackers.Spoiled[0].Tracker
	c.Eval(t, `location.hash = "#q=`+other+`"; true`)
	c.WaitFor(t, `document.getElementById("result").textContent.includes("`+other+`")`, 20*time.Second)
}

// TestBrowserSpoiledPhoneLayout: the audited ballots page fits a phone's
// width, as the other pages do (TestBrowserPhoneLayout).
func TestBrowserSpoiledPhoneLayout(t *testing.T) {
	site := spoiledBoard(t)
	b := devtools.Start(t)
	b.EmulatePhone(t)
	raw := b.PhonePage(t, fileURL(site, "spoiled.html"), phoneProbe)
	var got struct{ Width, ScrollWidth int }
	if err := json.Unmarshal([]byte(raw), &got); err != nil {
		t.Fatalf("probe output %q: %v", raw, err)
	}
	if got.Width != devtools.PhoneWidth || got.ScrollWidth > got.Width {
		t.Errorf("spoiled.html is %d px wide on a %d px screen (want %d)", got.ScrollWidth, got.Width, devtools.PhoneWidth)
	}
	b.Screenshot(t, filepath.Join(artifacts(t), "spoiled-phone.png"))
}
