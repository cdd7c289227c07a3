//go:build browser

// The real-browser tests: headless Chromium opens the generated site from
// disk, as a voter would open a copy of it, and runs the receipt search.
// Run them with `make bboard-test`, or
//
//	FABVOTE_BROWSER_TEST=1 go test -tags browser -run Browser ./internal/bboard/
//
// Without FABVOTE_BROWSER_TEST they skip when Chromium is missing; with it,
// a missing Chromium is a failure, so that CI cannot pass them vacuously.
// Screenshots and the site itself stay in build/bboard-artifacts/ (or in
// $FABVOTE_BBOARD_ARTIFACTS) for a person to look at.

package bboard

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fabvote/fabvote/internal/a11y"
	"github.com/fabvote/fabvote/internal/devtools"
)

// artifacts is the directory the browser tests leave their output in.
func artifacts(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("FABVOTE_BBOARD_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join("..", "..", "build", "bboard-artifacts")
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

var (
	siteOnce sync.Once
	siteDir  string
	siteErr  error
)

// browserSite builds the single-key fixture's site (one counted, one late
// and one invalid ballot among others) into the artifacts directory.
func browserSite(t *testing.T) string {
	t.Helper()
	siteOnce.Do(func() {
		f := newFixture("single")
		rec, rep := f.write(t)
		siteDir = filepath.Join(artifacts(t), "site")
		if siteErr = os.RemoveAll(siteDir); siteErr == nil {
			siteErr = Build(rec, rep, siteDir)
		}
	})
	if siteErr != nil {
		t.Fatal(siteErr)
	}
	return siteDir
}

var (
	contestsOnce sync.Once
	contestsDir  string
	contestsErr  error
)

// contestsSite builds the three-contest, two-style fixture's site into
// the artifacts directory: its front page has a chart and a table per
// contest.
func contestsSite(t *testing.T) string {
	t.Helper()
	contestsOnce.Do(func() {
		rec, rep := newFixture("contests").passing().write(t)
		contestsDir = filepath.Join(artifacts(t), "site-contests")
		if contestsErr = os.RemoveAll(contestsDir); contestsErr == nil {
			contestsErr = Build(rec, rep, contestsDir)
		}
	})
	if contestsErr != nil {
		t.Fatal(contestsErr)
	}
	return contestsDir
}

// runChromium runs one headless Chromium command with its own profile, so
// that concurrent runs never share state, and returns its standard output.
func runChromium(t *testing.T, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--user-data-dir=" + t.TempDir()}
	cmd := exec.CommandContext(ctx, devtools.Chromium(t), append(base, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, stderr.String())
	}
	return out
}

func fileURL(dir, page string) string { return "file://" + filepath.ToSlash(filepath.Join(dir, page)) }

// resultText is the text of the search page's live region in a DOM dump.
func resultText(t *testing.T, dom string) string {
	t.Helper()
	i := strings.Index(dom, `id="result"`)
	if i < 0 {
		t.Fatalf("no result region in:\n%s", dom)
	}
	end := strings.Index(dom[i:], "</div>")
	return text("<div " + dom[i:i+end])
}

func TestBrowserSearch(t *testing.T) {
	site := browserSite(t)
	counted, late, bad := ballotN(0), ballotN(5), ballotN(6)
	spaced := strings.ToUpper(counted.BallotHash[:32]) + " " + counted.BallotHash[32:]
	cases := []struct {
		name, q string
		want    []string
	}{
		{"known receipt", counted.BallotHash, []string{"Found: your ballot was recorded (counted)",
			"Recorded in block 3, transaction number 0 of the block", counted.TxID, "Status counted"}},
		{"known, in capitals with a space", spaced, []string{"Found", "Status counted"}},
		{"late ballot", late.BallotHash, []string{"Found", "Status late: not counted", "after the tally"}},
		{"invalid ballot", bad.BallotHash, []string{"Status invalid: not counted (BALLOT_INVALID PROOF)"}},
		{"unknown hash", hexOf("nobody's ballot"), []string{"Not found", "No ballot with the hash " + hexOf("nobody's ballot")}},
		{"too short", "abc123", []string{"Not a ballot hash", "It has 6 characters instead of 64"}},
		{"not hex", strings.Repeat("g", 64), []string{"Not a ballot hash", "characters other than 0–9 and a–f"}},
		{"empty", "", []string{"Please enter a ballot hash"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dom := searchAnswers(t, fileURL(site, "search.html")+"?q="+strings.ReplaceAll(tc.q, " ", "+"), tc.want)
			checkSearchForm(t, dom)
		})
	}
}

// searchAnswers opens the search page at url in Chromium, asserts that its
// answer holds each of want and that the page with its answer still passes
// the static rules (the answer's heading fits the page's outline), and
// returns the page's DOM.
func searchAnswers(t *testing.T, url string, want []string) string {
	t.Helper()
	dom := string(runChromium(t, "--dump-dom", url))
	got := resultText(t, dom)
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("result %q lacks %q", got, w)
		}
	}
	for _, p := range a11y.Problems(strings.NewReader(dom)) {
		t.Errorf("after the search: %s", p)
	}
	return dom
}

// checkSearchForm asserts from the DOM that the search box can be reached
// and operated by keyboard: a labelled text input in a GET form, neither
// disabled nor taken out of the tab order, and an aria-live answer region.
func checkSearchForm(t *testing.T, dom string) {
	t.Helper()
	for _, want := range []string{`<form class="search" action="search.html" method="get"`, `<label for="q">`,
		`<input type="text" id="q" name="q"`, `<button type="submit">`, `aria-live="polite"`} {
		if !strings.Contains(dom, want) {
			t.Errorf("search page lacks %s", want)
		}
	}
	i := strings.Index(dom, `id="q"`)
	if tag := dom[i : i+strings.Index(dom[i:], ">")]; strings.Contains(tag, "disabled") || strings.Contains(tag, "tabindex") {
		t.Errorf("search input is not focusable: %s", tag)
	}
}

// Screenshots of the main pages, for a person to look at, and a check that
// every page renders (the phone's are TestBrowserPhoneLayout's).
func TestBrowserScreenshots(t *testing.T) {
	site := browserSite(t)
	dir := artifacts(t)
	for name, page := range map[string]string{
		"index.png":          "index.html",
		"index-contests.png": "index.html",
		"ballots.png":        "ballots-0001.html",
		"search.png":         "search.html?q=" + ballotN(0).BallotHash,
		"verify.png":         "verify.html",
	} {
		out := filepath.Join(dir, name)
		os.Remove(out)
		from := site
		if name == "index-contests.png" {
			from = contestsSite(t)
		}
		runChromium(t, "--screenshot="+out, "--window-size=1280,900", "--hide-scrollbars", fileURL(from, page))
		b, err := os.ReadFile(out)
		if err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) || len(b) < 10000 {
			t.Errorf("%s: no real screenshot (%d bytes, %v)", name, len(b), err)
		}
	}
	t.Logf("screenshots in %s", dir)
}

// phoneProbe runs in a page after it loaded: it returns what overflows the
// screen's width, as JSON. An element that a box of its own clips or
// scrolls (a pre, an overflow:auto wrapper) does not widen the page and is
// not counted.
const phoneProbe = `(function () {
  var w = document.documentElement.clientWidth, bad = [];
  function clipped(el) {
    for (var p = el.parentElement; p; p = p.parentElement) {
      var o = getComputedStyle(p).overflowX;
      if (o === "auto" || o === "scroll" || o === "hidden") return true;
    }
    return false;
  }
  document.querySelectorAll("body *").forEach(function (el) {
    var r = el.getBoundingClientRect();
    if (r.width > 0 && r.right > w + 0.5 && !clipped(el))
      bad.push(el.tagName.toLowerCase() + (el.className ? "." + el.className : "") + " right=" + Math.round(r.right));
  });
  var tallest = 0;
  document.querySelectorAll("table.ballots tbody tr").forEach(function (r) {
    tallest = Math.max(tallest, r.getBoundingClientRect().height);
  });
  return JSON.stringify({width: w, scrollWidth: document.documentElement.scrollWidth,
    overflow: bad.slice(0, 5), tallestBallotRow: tallest});
})()`

// TestBrowserPhoneLayout opens the main pages in Chromium's mobile
// emulation of a 390 × 844 phone (DevTools' device mode, over the DevTools
// protocol: a headless window cannot be narrower than 500 px) and asserts
// that nothing widens a page beyond the screen and that a row of the
// ballot list stays about one line high (a full hash wrapped onto a dozen
// lines made the list hundreds of thousands of pixels long).
func TestBrowserPhoneLayout(t *testing.T) {
	site := browserSite(t)
	b := devtools.Start(t)
	b.EmulatePhone(t)
	pages := []struct{ site, page, shot string }{
		{site, "index.html", "index-phone.png"},
		{contestsSite(t), "index.html", "index-contests-phone.png"},
		{site, "ballots-0001.html", "ballots-phone.png"},
		{site, "verify.html", "verify-phone.png"},
		{site, "search.html?q=" + ballotN(0).BallotHash, "search-phone.png"},
	}
	for _, p := range pages {
		t.Run(strings.TrimSuffix(p.shot, "-phone.png"), func(t *testing.T) {
			raw := b.PhonePage(t, fileURL(p.site, p.page), phoneProbe)
			var got struct {
				Width, ScrollWidth int
				Overflow           []string
				TallestBallotRow   float64
			}
			if err := json.Unmarshal([]byte(raw), &got); err != nil {
				t.Fatalf("probe output %q: %v", raw, err)
			}
			if got.Width != devtools.PhoneWidth {
				t.Fatalf("the page is %d px wide, not the emulated phone's %d px", got.Width, devtools.PhoneWidth)
			}
			if got.ScrollWidth > got.Width || len(got.Overflow) > 0 {
				t.Errorf("the page is %d px wide on a %d px screen; past its edge: %v", got.ScrollWidth, got.Width, got.Overflow)
			}
			if got.TallestBallotRow > 80 {
				t.Errorf("a row of the ballot list is %.0f px high on a phone (a hash wrapped over several lines)", got.TallestBallotRow)
			}
			b.Screenshot(t, filepath.Join(artifacts(t), p.shot))
		})
	}
}
