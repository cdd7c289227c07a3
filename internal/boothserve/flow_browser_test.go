//go:build browser

package boothserve_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fabvote/fabvote/crypto/votecode"
)

// pointer works the page as a mouse or a finger does: it sets the fields
// and clicks.
type pointer struct{}

func (pointer) fill(t testing.TB, p *page, voterID, code string) {
	t.Helper()
	p.Eval(t, `document.getElementById("voter-id").value = `+jsString(voterID)+`; document.getElementById("code").value = `+jsString(code)+`; true`)
	p.Eval(t, `document.getElementById("start-button").click(); true`)
}

func (pointer) choose(t testing.TB, p *page, id string) {
	t.Helper()
	p.Eval(t, `document.getElementById("`+id+`").click(); true`)
}

func (pointer) press(t testing.TB, p *page, id string) {
	t.Helper()
	p.Eval(t, `document.getElementById("`+id+`").click(); true`)
}

// keyboard works the page with Tab, arrows, Space and Enter alone,
// through the browser's input events, and checks at each control that it
// is reached in order and its focus is visible.
type keyboard struct{}

func (k keyboard) fill(t testing.TB, p *page, voterID, code string) {
	t.Helper()
	k.tabTo(t, p, "voter-id")
	p.Call(t, "Input.insertText", map[string]any{"text": voterID}, nil)
	k.tabTo(t, p, "code")
	p.Call(t, "Input.insertText", map[string]any{"text": code}, nil)
	p.Key(t, "Enter", "Enter", 13, "\r")
}

func (k keyboard) choose(t testing.TB, p *page, id string) {
	t.Helper()
	// A radio group is one tab stop; the arrows move the choice in it.
	k.tabTo(t, p, "c0-o0", id)
	for range 8 {
		if p.EvalString(t, `document.activeElement.id`) == id {
			break
		}
		p.Key(t, "ArrowDown", "ArrowDown", 40, "")
	}
	if p.Eval(t, `document.getElementById("`+id+`").checked`) != true {
		t.Fatalf("the arrows did not choose #%s", id)
	}
}

// press tabs to button id, unless the page put the focus on it, and
// presses Space.
func (k keyboard) press(t testing.TB, p *page, id string) {
	t.Helper()
	if p.EvalString(t, `document.activeElement.id`) != id {
		k.tabTo(t, p, id)
	}
	p.Key(t, " ", "Space", 32, " ")
}

// tabTo presses Tab until one of ids has the focus, and fails if the
// page's order does not reach it soon or its focus is not visible.
func (keyboard) tabTo(t testing.TB, p *page, ids ...string) {
	t.Helper()
	var path []string
	for range 12 {
		p.Key(t, "Tab", "Tab", 9, "")
		at := p.EvalString(t, `document.activeElement.id`)
		path = append(path, at)
		if slices.Contains(ids, at) {
			if o := p.EvalString(t, `getComputedStyle(document.activeElement).outlineStyle`); o == "none" {
				t.Errorf("#%s has the focus but no visible outline", at)
			}
			return
		}
	}
	t.Fatalf("Tab does not reach #%s; it went %v", ids[0], path)
}

func jsString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// run is one voter's visit: a wrong code first, then the right one; a
// ballot for the third candidate, audited; a fresh ballot (the choice
// kept), cast. With errors, the first casts meet a box that says the
// voter has voted, then retries of the same ballot meet one that is down,
// one that limits the rate and one that says the window is closed (each
// shows its message); the last retry is accepted.
func run(t *testing.T, p *page, d driver, voter int, errors bool) {
	signIn(t, p, d, voter, errors)
	audited := audit(t, p, d)
	d.press(t, p, "again-button")
	p.waitStep(t, "ballot")
	if p.Eval(t, `document.getElementById("c0-o2").checked`) != true {
		t.Fatal("the fresh ballot does not keep the audited choice")
	}
	d.press(t, p, "make-button")
	p.waitStep(t, "check")
	final := p.tracker(t, "check-tracker")
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
func signIn(t *testing.T, p *page, d driver, voter int, errors bool) {
	id, code := p.env.codes[voter][0], p.env.codes[voter][1]
	if p.leaveWarned(t) {
		t.Fatal("the page warns on leaving before the voter signed in")
	}
	if errors {
		d.fill(t, p, id, strings.Repeat("A", len(code)))
		p.waitError(t, "errWrongCode")
		p.checkA11y(t, "wrong code")
		p.Eval(t, `document.getElementById("voter-id").value = ""; document.getElementById("code").value = ""; document.activeElement.blur(); true`)
		// Registered, but the box is down: signing in again works (the
		// same key gets the same token).
		p.env.fake.manifestDownNext()
		d.fill(t, p, id, code)
		p.waitError(t, "errBoxDown")
	}
	d.fill(t, p, id, code)
	p.waitStep(t, "ballot")
	if !p.leaveWarned(t) {
		t.Fatal("signed in, the page does not warn on leaving: a reload would lose the voter's key")
	}
	if n := p.Eval(t, `document.querySelectorAll("fieldset legend").length`); n != float64(1) {
		t.Fatalf("%v contests shown, want 1", n)
	}
	if errors { // no choice: the Go code refuses it, and the precomputation stays for the next try
		d.press(t, p, "make-button")
		p.waitError(t, "errSelection")
		p.Eval(t, `document.getElementById("ballot-heading").focus(); true`)
	}
}

// audit makes a ballot for the third candidate and audits it: the box
// receives a spoiled ballot that reveals that choice under the tracker the
// page showed. It returns the tracker.
func audit(t *testing.T, p *page, d driver) string {
	d.choose(t, p, "c0-o2")
	d.press(t, p, "make-button")
	p.waitStep(t, "check")
	audited := p.tracker(t, "check-tracker")
	before, _ := p.env.fake.seen()
	d.press(t, p, "audit-button")
	p.waitStep(t, "audited")
	spoiled, _ := p.env.fake.seen()
	if len(spoiled) != len(before)+1 {
		t.Fatalf("the box received %d spoiled ballots, want %d", len(spoiled), len(before)+1)
	}
	got := spoiled[len(spoiled)-1]
	if want := []votecode.Selection{{Options: []int{2}}}; got.tracker != audited || !selectionsEqual(got.sels, want) {
		t.Fatalf("the box received a spoiled ballot %s revealing %+v; the page showed %s for %+v", got.tracker, got.sels, audited, want)
	}
	if shown := p.tracker(t, "audited-tracker"); shown != audited {
		t.Fatalf("the audit shows tracker %s, the ballot had %s", shown, audited)
	}
	if c := p.text(t, "audited-choice"); !strings.Contains(c, "Carol") {
		t.Fatalf("the audit shows the choice %q, want Carol", c)
	}
	p.checkBoardLink(t, "audited-board", audited)
	return audited
}

// castRefused casts into a box that refuses, once per kind of refusal,
// and checks that each shows its message and leaves the ballot to cast
// again, and only to cast.
func castRefused(t *testing.T, p *page, d driver) {
	refusals := []struct{ box, message string }{
		{"DUPLICATE", "errDuplicate"}, {faultDown, "errBoxDown"}, {faultRate, "errRateLimited"}, {"WINDOW", "errWindow"},
	}
	for i, r := range refusals {
		button := "retry-cast-button" // the same ballot, once Cast was pressed
		if i == 0 {
			button = "cast-button"
		}
		p.env.fake.refuseNext(r.box)
		d.press(t, p, button)
		p.waitError(t, r.message)
		p.offers(t, "retry-cast-button")
		if r.box == "RATE" && !strings.Contains(p.text(t, "error-text"), "30") {
			t.Errorf("the rate limit's message %q does not say the box's Retry-After, 30 s", p.text(t, "error-text"))
		}
		p.checkA11y(t, r.message)
		p.Eval(t, `document.getElementById("check-heading").focus(); true`)
	}
}

// cast casts the ballot of tracker final with button: the box receives a
// ballot that CheckBallot accepts with that tracker, the receipt shows it,
// and leaving the page is no longer warned of.
func cast(t *testing.T, p *page, d driver, button, final string) {
	d.press(t, p, button)
	p.waitStep(t, "receipt")
	_, cast := p.env.fake.seen()
	last := cast[len(cast)-1]
	if last.TrackerHex() != final || p.tracker(t, "receipt-tracker") != final {
		t.Fatalf("the box received a ballot with tracker %s; the page showed %s", last.TrackerHex(), final)
	}
	hash := last.Hash()
	if got := p.text(t, "receipt-hash"); got != hexOf(hash[:]) {
		t.Fatalf("the receipt shows ballot hash %s, the ballot's is %x", got, hash)
	}
	if p.text(t, "receipt-tx") != "cast-"+strconv.Itoa(len(cast)) || p.shown(t, "receipt-earlier") {
		t.Fatalf("the receipt shows transaction %q (earlier-try note shown: %v), want the box's cast-%d", p.text(t, "receipt-tx"), p.shown(t, "receipt-earlier"), len(cast))
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
		run(t, e.open(t, "en", true), pointer{}, 0, true)
	})
	t.Run("keyboard, German", func(t *testing.T) {
		p := e.open(t, "de", false)
		if h := p.text(t, "start-heading"); h != p.msg(t, "startHeading") {
			t.Fatalf("heading %q, want the German %q", h, p.msg(t, "startHeading"))
		}
		run(t, p, keyboard{}, 1, false)
	})
	t.Run("audit the box does not publish, box that lies", func(t *testing.T) {
		p := e.open(t, "en", false)
		signIn(t, p, pointer{}, 2, false)
		auditFails(t, p, pointer{})
		p.checkOrigins(t)
	})
	t.Run("cast not confirmed, keyboard", func(t *testing.T) {
		p := e.open(t, "en", false)
		signIn(t, p, keyboard{}, 3, false)
		castUnknown(t, p, keyboard{})
		p.checkOrigins(t)
	})
	t.Logf("the booth's browser test took %s", time.Since(start).Round(time.Second))
}

func selectionsEqual(a, b []votecode.Selection) bool {
	return slices.EqualFunc(a, b, func(x, y votecode.Selection) bool {
		return x.Blank == y.Blank && slices.Equal(x.Options, y.Options)
	})
}
