//go:build browser

package boothserve_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/internal/boothtest"
)

// checkButtons are the check step's buttons: what the page may offer for
// a finished ballot.
var checkButtons = []string{"cast-button", "audit-button", "retry-cast-button", "retry-audit-button", "new-ballot-button"}

// offers asserts that the check step offers exactly the buttons want.
func (p *page) offers(t testing.TB, want ...string) {
	t.Helper()
	var got []string
	for _, id := range checkButtons {
		if p.shown(t, id) {
			got = append(got, id)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("the page offers %v for the ballot, want only %v", got, want)
	}
}

// shown says whether element id is on the page and shown: neither it nor
// a parent hidden.
func (p *page) shown(t testing.TB, id string) bool {
	t.Helper()
	return p.Eval(t, `((e) => !!e && !e.closest("[hidden]"))(document.getElementById("`+id+`"))`) == true
}

// leaveWarned says whether the page asks the browser to warn before it
// is left (a beforeunload handler that cancels the event).
func (p *page) leaveWarned(t testing.TB) bool {
	t.Helper()
	return p.Eval(t, `(() => { const e = new Event("beforeunload", {cancelable: true}); window.dispatchEvent(e); return e.defaultPrevented; })()`) == true
}

// checkBoardLink asserts that link id searches the board for tracker in
// the fragment, which the browser never sends to the board's server.
func (p *page) checkBoardLink(t testing.TB, id, tracker string) {
	t.Helper()
	href := p.EvalString(t, `document.getElementById("`+id+`").href`)
	if !strings.HasSuffix(href, "/search.html#q="+tracker) || strings.Contains(href, "?") {
		t.Fatalf("#%s links to %s, not the board's search.html#q=%s", id, href, tracker)
	}
}

// makeBallot chooses option id, makes the ballot and returns its tracker;
// a fresh ballot offers both Cast and Audit.
func makeBallot(t *testing.T, p *page, d boothtest.Driver, option string) string {
	t.Helper()
	d.Choose(t, p.Page, option)
	d.Press(t, p.Page, "make-button")
	p.WaitStep(t, "check")
	p.offers(t, "cast-button", "audit-button")
	return p.Tracker(t, "check-tracker")
}

// lastTwoEqual asserts that the last two bodies the box received are the
// same: a retry sent what the failed try sent.
func lastTwoEqual(t *testing.T, what string, bodies []string) {
	t.Helper()
	if n := len(bodies); n < 2 || bodies[n-1] != bodies[n-2] {
		t.Fatalf("the retry did not send the same %s as the failed try (%d sent)", what, len(bodies))
	}
}

// group is a tracker as the page shows it, in groups of four.
func group(hex string) string {
	var parts []string
	for i := 0; i < len(hex); i += 4 {
		parts = append(parts, hex[i:min(i+4, len(hex))])
	}
	return strings.Join(parts, " ")
}

// auditFails: an audit the box does not answer leaves its ballot opened
// for good: the page offers only to publish the same spoiled ballot again
// or to make a new ballot, never to cast it. The retry is published; a
// second audit, answered for another tracker, is shown as a faulty box; a
// new ballot then works, and its cast, answered for another tracker too,
// is shown as a faulty box with no receipt. Its retry meets DUPLICATE:
// the ballot is cast, and the page says so with its tracker.
func auditFails(t *testing.T, p *page, d boothtest.Driver) {
	first := makeBallot(t, p, d, "c0-o1")
	p.env.fake.refuseSpoilNext(faultDown)
	d.Press(t, p.Page, "audit-button")
	p.WaitError(t, "errBoxDown")
	p.offers(t, "retry-audit-button", "new-ballot-button")
	d.Press(t, p.Page, "retry-audit-button")
	p.WaitStep(t, "audited")
	spoilBodies, _ := p.env.fake.bodies()
	lastTwoEqual(t, "spoiled ballot", spoilBodies)
	if spoiled, _ := p.env.fake.seen(); spoiled[len(spoiled)-1].tracker != first {
		t.Fatalf("the box published %s, not the audited ballot %s", spoiled[len(spoiled)-1].tracker, first)
	}
	d.Press(t, p.Page, "again-button")
	p.WaitStep(t, "ballot")

	makeBallot(t, p, d, "c0-o1")
	p.env.fake.refuseSpoilNext(faultLie)
	d.Press(t, p.Page, "audit-button")
	p.WaitError(t, "errBoxFaulty")
	p.offers(t, "retry-audit-button", "new-ballot-button")
	d.Press(t, p.Page, "new-ballot-button")
	p.WaitStep(t, "ballot")

	final := makeBallot(t, p, d, "c0-o1")
	p.env.fake.refuseNext(faultLie)
	d.Press(t, p.Page, "cast-button")
	p.WaitError(t, "errBoxFaulty")
	if msg := p.Text(t, "error-text"); !strings.Contains(msg, group(final)) {
		t.Fatalf("the faulty box's message %q does not name the ballot's tracker %s", msg, group(final))
	}
	if p.shown(t, "step-receipt") {
		t.Fatal("a receipt for another ballot is shown")
	}
	p.offers(t, "retry-cast-button")
	d.Press(t, p.Page, "retry-cast-button")
	p.WaitStep(t, "receipt")
	if p.Tracker(t, "receipt-tracker") != final || !p.shown(t, "receipt-earlier") || p.shown(t, "receipt-tx") {
		t.Fatal("after DUPLICATE on a retry, the receipt does not show the ballot's tracker with the earlier-try note and no transaction")
	}
	p.checkBoardLink(t, "receipt-board", final)
}

// castUnknown: a cast whose commit the box could not confirm (504) is
// never offered for audit; its retry sends the same ballot, and the focus
// is on the retry.
func castUnknown(t *testing.T, p *page, d boothtest.Driver) {
	final := makeBallot(t, p, d, "c0-o3")
	p.env.fake.refuseNext(faultTimeout)
	d.Press(t, p.Page, "cast-button")
	p.WaitError(t, "errCommitUnknown")
	p.offers(t, "retry-cast-button")
	if f := p.EvalString(t, `document.activeElement.id`); f != "retry-cast-button" {
		t.Errorf("after the failed cast, the focus is on %q, not on the retry", f)
	}
	cast(t, p, d, "retry-cast-button", final)
	_, castBodies := p.env.fake.bodies()
	lastTwoEqual(t, "ballot", castBodies)
}
