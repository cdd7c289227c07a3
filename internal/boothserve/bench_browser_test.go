//go:build browser

package boothserve_test

import (
	"slices"
	"strconv"
	"testing"

	"github.com/fabvote/fabvote/internal/boothtest"
)

// BenchmarkBrowserBallot times the booth in headless Chromium for the test
// election (N of 2048 bits, one question of four candidates): per ballot,
// the precomputation in the worker, and the voter's click on "Make my
// ballot" (the precomputation done) to the tracker on screen; their sum is
// the whole ballot. It reports the medians over b.N ballots, each made,
// audited (which starts the next precomputation) and made again:
//
//	make booth && go test -tags browser -run '^$' -bench BrowserBallot -benchtime 10x ./internal/boothserve/
func BenchmarkBrowserBallot(b *testing.B) {
	e := newBoothEnv(b)
	p := e.open(b, "en", false)
	d := boothtest.Pointer{}
	d.Fill(b, p.Page, e.codes[0][0], e.codes[0][1])
	p.WaitStep(b, "ballot")
	d.Choose(b, p.Page, "c0-o2")
	var pre, click []float64
	for b.Loop() {
		p.WaitFor(b, `performance.getEntriesByName("fabvote:precompute-end").length > `+strconv.Itoa(len(pre)), boothtest.Slow)
		d.Press(b, p.Page, "make-button")
		p.WaitStep(b, "check")
		p.WaitFor(b, `performance.getEntriesByName("fabvote:tracker-shown").length > `+strconv.Itoa(len(click)), boothtest.Slow)
		pre = append(pre, p.since(b, "precompute-start", "precompute-end"))
		click = append(click, p.since(b, "make", "tracker-shown"))
		d.Press(b, p.Page, "audit-button")
		p.WaitStep(b, "audited")
		d.Press(b, p.Page, "again-button")
		p.WaitStep(b, "ballot")
	}
	whole := make([]float64, len(pre))
	for i := range pre {
		whole[i] = pre[i] + click[i]
	}
	b.ReportMetric(median(pre), "ms-precompute")
	b.ReportMetric(median(click), "ms-click-to-tracker")
	b.ReportMetric(median(whole), "ms-whole-ballot")
	b.ReportMetric(0, "ns/op") // the wall time per loop includes the audits: not a figure of the booth
}

// since is the time in milliseconds between the page's latest marks from
// and to (booth.js's mark).
func (p *page) since(tb testing.TB, from, to string) float64 {
	tb.Helper()
	v := p.Eval(tb, `(() => { const at = (n) => performance.getEntriesByName("fabvote:" + n).at(-1).startTime; return at("`+to+`") - at("`+from+`"); })()`)
	ms, ok := v.(float64)
	if !ok || ms < 0 {
		tb.Fatalf("marks %s → %s: %v", from, to, v)
	}
	return ms
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
