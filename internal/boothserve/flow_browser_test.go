//go:build browser

package boothserve_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fabvote/fabvote/crypto/votecode"
	"github.com/fabvote/fabvote/internal/boothtest"
)

// run is one voter's visit: a wrong code first, then the right one; a
// ballot for the third candidate, audited; a fresh ballot (the choice
// kept), cast. With errors, the first casts meet a box that says the
// voter has voted, then retries of the same ballot meet one that is down,
// one that limits the rate and one that says the window is closed (each
// shows its message); the last retry is accepted.
func run(t *testing.T, p *page, d boothtest.Driver, voter int, errors bool) {
	signIn(t, p, d, voter, errors)
	audited := audit(t, p, d)
	d.Press(t, p.Page, "again-button")
	p.WaitStep(t, "ballot")
	if p.Eval(t, `document.getElementById("c0-o2").checked`) != true {
		t.Fatal("the fresh ballot does not keep the audited choice")
	}
	d.Press(t, p.Page, "make-button")
	p.WaitStep(t, "check")
	final := p.Tracker(t, "check-tracker")
	if final == audited {
		t.Fatal("the fresh ballot has the audited one's tracker: no new randomness")
	}
	button := "cast-button"
	if errors {
		castRefused(t, p, d)
		button = "retry-cast-button"
	}
	cast(t, p, d, button, final)
	p.checkOrigins(t)
}

// signIn signs the voter in (with errors: after a wrong code, and after a
// box that is down once the code was accepted) and waits for the ballot
// (and, with errors, makes it with no choice).
func signIn(t *testing.T, p *page, d boothtest.Driver, voter int, errors bool) {
	id, code := p.env.codes[voter][0], p.env.codes[voter][1]
	if p.leaveWarned(t) {
		t.Fatal("the page warns on leaving before the voter signed in")
	}
	if errors {
		d.Fill(t, p.Page, id, strings.Repeat("A", len(code)))
		p.WaitError(t, "errWrongCode")
		p.CheckA11y(t, "wrong code")
		p.Eval(t, `document.getElementById("voter-id").value = ""; document.getElementById("code").value = ""; document.activeElement.blur(); true`)
		// Registered, but the box is down: signing in again works (the
		// same key gets the same token).
		p.env.fake.manifestDownNext()
		d.Fill(t, p.Page, id, code)
		p.WaitError(t, "errBoxDown")
	}
	d.Fill(t, p.Page, id, code)
	p.WaitStep(t, "ballot")
	if !p.leaveWarned(t) {
		t.Fatal("signed in, the page does not warn on leaving: a reload would lose the voter's key")
	}
	if n := p.Eval(t, `document.querySelectorAll("fieldset legend").length`); n != float64(1) {
		t.Fatalf("%v contests shown, want 1", n)
	}
	if errors { // no choice: the Go code refuses it, and the precomputation stays for the next try
		d.Press(t, p.Page, "make-button")
		p.WaitError(t, "errSelection")
		p.Eval(t, `document.getElementById("ballot-heading").focus(); true`)
	}
}

// audit makes a ballot for the third candidate and audits it: the box
// receives a spoiled ballot that reveals that choice under the tracker the
// page showed. It returns the tracker.
func audit(t *testing.T, p *page, d boothtest.Driver) string {
	d.Choose(t, p.Page, "c0-o2")
	d.Press(t, p.Page, "make-button")
	p.WaitStep(t, "check")
	audited := p.Tracker(t, "check-tracker")
	before, _ := p.env.fake.seen()
	d.Press(t, p.Page, "audit-button")
	p.WaitStep(t, "audited")
	spoiled, _ := p.env.fake.seen()
	if len(spoiled) != len(before)+1 {
		t.Fatalf("the box received %d spoiled ballots, want %d", len(spoiled), len(before)+1)
	}
	got := spoiled[len(spoiled)-1]
	if want := []votecode.Selection{{Options: []int{2}}}; got.tracker != audited || !selectionsEqual(got.sels, want) {
		t.Fatalf("the box received a spoiled ballot %s revealing %+v; the page showed %s for %+v", got.tracker, got.sels, audited, want)
	}
	if shown := p.Tracker(t, "audited-tracker"); shown != audited {
		t.Fatalf("the audit shows tracker %s, the ballot had %s", shown, audited)
	}
	if c := p.Text(t, "audited-choice"); !strings.Contains(c, "Carol") {
		t.Fatalf("the audit shows the choice %q, want Carol", c)
	}
	p.checkBoardLink(t, "audited-board", audited)
	return audited
}

// castRefused casts into a box that refuses, once per kind of refusal,
// and checks that each shows its message and leaves the ballot to cast
// again, and only to cast.
func castRefused(t *testing.T, p *page, d boothtest.Driver) {
	refusals := []struct{ box, message string }{
		{"DUPLICATE", "errDuplicate"}, {faultDown, "errBoxDown"}, {faultRate, "errRateLimited"}, {"WINDOW", "errWindow"},
	}
	for i, r := range refusals {
		button := "retry-cast-button" // the same ballot, once Cast was pressed
		if i == 0 {
			button = "cast-button"
		}
		p.env.fake.refuseNext(r.box)
		d.Press(t, p.Page, button)
		p.WaitError(t, r.message)
		p.offers(t, "retry-cast-button")
		if r.box == "RATE" && !strings.Contains(p.Text(t, "error-text"), "30") {
			t.Errorf("the rate limit's message %q does not say the box's Retry-After, 30 s", p.Text(t, "error-text"))
		}
		p.CheckA11y(t, r.message)
		p.Eval(t, `document.getElementById("check-heading").focus(); true`)
	}
}

// cast casts the ballot of tracker final with button: the box receives a
// ballot that CheckBallot accepts with that tracker, the receipt shows it,
// and leaving the page is no longer warned of.
func cast(t *testing.T, p *page, d boothtest.Driver, button, final string) {
	d.Press(t, p.Page, button)
	p.WaitStep(t, "receipt")
	_, cast := p.env.fake.seen()
	last := cast[len(cast)-1]
	if last.TrackerHex() != final || p.Tracker(t, "receipt-tracker") != final {
		t.Fatalf("the box received a ballot with tracker %s; the page showed %s", last.TrackerHex(), final)
	}
	hash := last.Hash()
	if got := p.Text(t, "receipt-hash"); got != hexOf(hash[:]) {
		t.Fatalf("the receipt shows ballot hash %s, the ballot's is %x", got, hash)
	}
	if got := p.Text(t, "receipt-pseudonym"); got != last.PseudonymHex() {
		t.Fatalf("the receipt shows pseudonym %q, the ballot's is %s (fabvote receipt check needs it)", got, last.PseudonymHex())
	}
	if p.Text(t, "receipt-tx") != "cast-"+strconv.Itoa(len(cast)) || p.shown(t, "receipt-earlier") {
		t.Fatalf("the receipt shows transaction %q (earlier-try note shown: %v), want the box's cast-%d", p.Text(t, "receipt-tx"), p.shown(t, "receipt-earlier"), len(cast))
	}
	p.checkBoardLink(t, "receipt-board", final)
	if p.leaveWarned(t) {
		t.Fatal("the ballot is cast, and the page still warns on leaving")
	}
}

// TestBrowserBooth: a voter signs in (after a wrong code), audits a
// ballot, then casts one (after four refusals of the box), by pointer on
// a phone's screen in English; another does the same by keyboard
// alone in German. A third meets an audit that the box does not publish
// and a box that answers for another ballot (auditFails); a fourth, by
// keyboard, a cast the box cannot confirm (castUnknown).
func TestBrowserBooth(t *testing.T) {
	start := time.Now()
	e := newBoothEnv(t)
	t.Run("pointer, phone, English", func(t *testing.T) {
		run(t, e.open(t, "en", true), boothtest.Pointer{}, 0, true)
	})
	t.Run("keyboard, German", func(t *testing.T) {
		p := e.open(t, "de", false)
		if h := p.Text(t, "start-heading"); h != p.Msg(t, "startHeading") {
			t.Fatalf("heading %q, want the German %q", h, p.Msg(t, "startHeading"))
		}
		run(t, p, boothtest.Keyboard{}, 1, false)
	})
	t.Run("audit the box does not publish, box that lies", func(t *testing.T) {
		p := e.open(t, "en", false)
		signIn(t, p, boothtest.Pointer{}, 2, false)
		auditFails(t, p, boothtest.Pointer{})
		p.checkOrigins(t)
	})
	t.Run("cast not confirmed, keyboard", func(t *testing.T) {
		p := e.open(t, "en", false)
		signIn(t, p, boothtest.Keyboard{}, 3, false)
		castUnknown(t, p, boothtest.Keyboard{})
		p.checkOrigins(t)
	})
	t.Logf("the booth's browser test took %s", time.Since(start).Round(time.Second))
}

func selectionsEqual(a, b []votecode.Selection) bool {
	return slices.EqualFunc(a, b, func(x, y votecode.Selection) bool {
		return x.Blank == y.Blank && slices.Equal(x.Options, y.Options)
	})
}
