//go:build browser

// Package boothtest drives the voter's booth (booth/web) in headless
// Chromium (internal/devtools) for the real-browser tests: the booth
// against a fake box (internal/boothserve) and on the real network (e2e).
// It opens the page, waits for its steps, reads what they show and works
// them by pointer or by keyboard alone. It is built only with the build
// tag browser: no binary links it.
package boothtest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fabvote/fabvote/internal/a11y"
	"github.com/fabvote/fabvote/internal/boothserve"
	"github.com/fabvote/fabvote/internal/devtools"
)

// Slow bounds a step that makes a ballot: about one exponentiation a
// second in WebAssembly on a loaded machine.
const Slow = 3 * time.Minute

// Messages are the booth's messages.json: language -> key -> text.
type Messages map[string]map[string]string

// ReadMessages reads the messages of the booth built in dir.
func ReadMessages(t testing.TB, dir string) Messages {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "messages.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m Messages
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// Page is the booth open in a browser, in one language, with every
// request it and its worker make and every error it logs recorded.
type Page struct {
	*devtools.Browser
	Lang     string
	Messages Messages

	mu       sync.Mutex
	requests []Request
	logged   []string
}

// Request is one request the page or its worker sent.
type Request struct {
	URL, Method, Body string
}

// Open opens the booth served at site (its origin) in a browser of
// language lang, on a phone's screen (devtools.EmulatePhone) with phone;
// flags are more browser flags (how it trusts the servers' certificates).
// It waits until the page is ready and checks its language and its
// accessibility.
func Open(t testing.TB, site, lang string, phone bool, msgs Messages, flags ...string) *Page {
	t.Helper()
	p := &Page{Lang: lang, Messages: msgs}
	p.Browser = devtools.Start(t, append(flags, "--accept-lang="+lang)...)
	if phone {
		p.EmulatePhone(t)
	}
	p.OnEvent = p.record
	domains := []string{"Network.enable", "Log.enable", "Runtime.enable"}
	for _, domain := range domains {
		p.Call(t, domain, nil, nil)
	}
	p.AttachWorkers(t, domains...)
	p.Call(t, "Emulation.setFocusEmulationEnabled", map[string]any{"enabled": true}, nil)
	p.Navigate(t, site+boothserve.Prefix)
	p.WaitFor(t, `document.body.classList.contains("ready")`, 30*time.Second)
	if got := p.EvalString(t, `document.documentElement.lang`); got != lang {
		t.Fatalf("the page's language is %q, want %q (the browser's)", got, lang)
	}
	p.CheckA11y(t, "start")
	return p
}

func (p *Page) record(m devtools.Message) {
	var ev struct {
		Request struct {
			URL, Method, PostData string
		}
		Entry            struct{ Level, Text, URL string }
		ExceptionDetails struct {
			Text      string
			Exception struct{ Description string }
		}
	}
	json.Unmarshal(m.Params, &ev)
	p.mu.Lock()
	defer p.mu.Unlock()
	switch m.Method {
	case "Network.requestWillBeSent":
		p.requests = append(p.requests, Request{URL: ev.Request.URL, Method: ev.Request.Method, Body: ev.Request.PostData})
	case "Log.entryAdded":
		if ev.Entry.Level == "error" && !strings.HasSuffix(ev.Entry.URL, "/favicon.ico") && !expectedRefusal(ev.Entry.Text) {
			p.logged = append(p.logged, ev.Entry.Text)
		}
	case "Runtime.exceptionThrown":
		p.logged = append(p.logged, ev.ExceptionDetails.Text+" "+ev.ExceptionDetails.Exception.Description)
	}
}

// expectedRefusal: the browser logs the HTTP errors the error-path steps
// provoke (a refused code, a box that refuses or is down).
func expectedRefusal(text string) bool {
	return strings.Contains(text, "the server responded with a status of")
}

// Requests are the requests sent so far, oldest first.
func (p *Page) Requests() []Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Request(nil), p.requests...)
}

// Logged are the errors the page logged so far (a CSP violation, an
// exception), the expected HTTP refusals left out.
func (p *Page) Logged() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.logged...)
}

// CheckA11y runs the static accessibility checker on the DOM as it is.
// The booth has no navigation to skip, and its one link leaves the site
// for the bulletin board by design: those two rules are the board's.
func (p *Page) CheckA11y(t testing.TB, step string) {
	t.Helper()
	dom := p.EvalString(t, `document.documentElement.outerHTML`)
	for _, problem := range a11y.Problems(strings.NewReader(dom)) {
		if strings.HasPrefix(problem, "skip-link:") || strings.HasPrefix(problem, "link-local:") {
			continue
		}
		t.Errorf("%s: %s", step, problem)
	}
}

// Msg is the page's message key in its language.
func (p *Page) Msg(t testing.TB, key string) string {
	t.Helper()
	s, ok := p.Messages[p.Lang][key]
	if !ok {
		t.Fatalf("messages.json has no %s.%s", p.Lang, key)
	}
	return s
}

// WaitStep waits until step's section is shown with its heading focused.
func (p *Page) WaitStep(t testing.TB, step string) {
	t.Helper()
	p.WaitFor(t, `!document.getElementById("step-`+step+`").hidden && document.activeElement.id === "`+step+`-heading" || !document.getElementById("error").hidden`, Slow)
	if p.Eval(t, `document.getElementById("error").hidden`) != true {
		t.Fatalf("waiting for step %s, the page shows the error %q", step, p.Text(t, "error-text"))
	}
	p.CheckA11y(t, step)
	if w := p.Eval(t, `document.documentElement.scrollWidth - document.documentElement.clientWidth`); w != float64(0) {
		t.Errorf("step %s is %v px wider than the screen", step, w)
	}
	p.Shot(t, step)
}

// Shot keeps what the page shows in $FABVOTE_BOOTH_ARTIFACTS, when set,
// for a person to look at.
func (p *Page) Shot(t testing.TB, step string) {
	t.Helper()
	if dir := os.Getenv("FABVOTE_BOOTH_ARTIFACTS"); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		p.Screenshot(t, filepath.Join(dir, p.Lang+"-"+step+".png"))
	}
}

// WaitError waits until the error box shows the message key names.
func (p *Page) WaitError(t testing.TB, key string) {
	t.Helper()
	want := p.Msg(t, key)
	p.WaitFor(t, `!document.getElementById("error").hidden`, Slow)
	p.Shot(t, "error-"+key)
	if got := p.EvalString(t, `document.getElementById("error-text").textContent`); !strings.HasPrefix(got, strings.SplitN(want, "{", 2)[0]) {
		t.Fatalf("error %q, want %q", got, want)
	}
}

// Text is the text content of element id.
func (p *Page) Text(t testing.TB, id string) string {
	t.Helper()
	return p.EvalString(t, `document.getElementById("`+id+`").textContent`)
}

// Tracker is the tracker shown in element id, without its grouping.
func (p *Page) Tracker(t testing.TB, id string) string {
	t.Helper()
	s := strings.ReplaceAll(p.Text(t, id), " ", "")
	if len(s) != 64 {
		t.Fatalf("#%s shows %q, not a tracker", id, s)
	}
	return s
}
