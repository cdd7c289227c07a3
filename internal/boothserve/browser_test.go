//go:build browser

// The booth's real-browser tests: headless Chromium runs the booth that
// `make booth` built, served by the handlers of `fabvote ea serve --booth`
// (boothserve beside a real registrar with a test roll), against a fake
// ballot box that checks what it receives with the election package. Run
// them with `make booth-test`, or
//
//	make booth && FABVOTE_BROWSER_TEST=1 go test -tags browser -run Browser ./internal/boothserve/
//
// Without FABVOTE_BROWSER_TEST they skip when Chromium is missing.
package boothserve_test

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fabvote/fabvote/booth"
	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/election/electiontest"
	"github.com/fabvote/fabvote/internal/a11y"
	"github.com/fabvote/fabvote/internal/boothserve"
	"github.com/fabvote/fabvote/internal/devtools"
	"github.com/fabvote/fabvote/internal/registrar"
)

// slow bounds a step that makes a ballot: about one exponentiation a
// second in WebAssembly on a loaded machine.
const slow = 3 * time.Minute

// boothEnv is one election: the booth and the registrar on one origin, a
// fake box on another, and the roll's voters.
type boothEnv struct {
	site     *httptest.Server
	box      *httptest.Server
	fake     *fakeBox
	codes    [][2]string
	messages map[string]map[string]string
}

// builtBooth is the directory `make booth` built.
func builtBooth(t testing.TB) string {
	dir := os.Getenv("FABVOTE_BOOTH_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "build", "booth")
	}
	if _, err := os.Stat(filepath.Join(dir, "booth.wasm")); err != nil {
		t.Fatalf("no booth in %s (run make booth): %v", dir, err)
	}
	return dir
}

func newBoothEnv(t testing.TB) *boothEnv {
	t.Helper()
	dir := builtBooth(t)
	digest, err := booth.Digest(dir)
	if err != nil {
		t.Fatal(err)
	}
	fx := electiontest.Load()
	m := fx.Manifest("booth-test")
	m.BoothDigest = digest
	raw, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	prep, err := election.Prepare(m)
	if err != nil {
		t.Fatal(err)
	}
	e := &boothEnv{fake: &fakeBox{t: t, prep: prep, manifest: raw}}
	e.box = httptest.NewTLSServer(e.fake)
	t.Cleanup(e.box.Close)
	reg := e.registrar(t, m, prep, raw)
	e.site = httptest.NewUnstartedServer(nil)
	e.site.StartTLS()
	t.Cleanup(e.site.Close)
	h, err := boothserve.New(dir, digest, boothserve.Config{ElectionID: m.ElectionID, BoxURL: e.box.URL, BoardURL: "https://board.example/booth-test/"})
	if err != nil {
		t.Fatal(err)
	}
	e.site.Config.Handler = boothserve.With(reg, h)
	e.fake.origin = e.site.URL
	msgs, err := os.ReadFile(filepath.Join(dir, "messages.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(msgs, &e.messages); err != nil {
		t.Fatal(err)
	}
	return e
}

// registrar is the real registration service for m, with a roll of four.
func (e *boothEnv) registrar(t testing.TB, m *election.Manifest, prep *election.Prepared, raw []byte) http.Handler {
	t.Helper()
	dir := t.TempDir()
	rollPath := filepath.Join(dir, "roll.csv")
	if err := registrar.WriteNewRoll(rollPath, 4, "", nil); err != nil {
		t.Fatal(err)
	}
	var err error
	if e.codes, err = registrar.ReadRollCodes(rollPath); err != nil {
		t.Fatal(err)
	}
	roll, err := registrar.LoadRoll(rollPath)
	if err != nil {
		t.Fatal(err)
	}
	b, err := registrar.NewBinding(m.ElectionID, raw, m.MaxVoters, roll)
	if err != nil {
		t.Fatal(err)
	}
	statePath := filepath.Join(dir, "state.db")
	if err := registrar.InitStore(statePath, b); err != nil {
		t.Fatal(err)
	}
	st, err := registrar.OpenStore(statePath, b)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	guard, err := registrar.NewGuard(registrar.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	mint, err := election.NewMinter(rand.Reader, prep, electiontest.Load().EA, electiontest.PseudonymKey)
	if err != nil {
		t.Fatal(err)
	}
	return &registrar.Server{ElectionID: m.ElectionID, Mint: mint.MintCancelable, Roll: roll, Store: st, Guard: guard}
}

// page is the booth open in a browser, in one language, with every
// request it makes and every error it logs recorded.
type page struct {
	*devtools.Browser
	env  *boothEnv
	lang string

	mu       sync.Mutex
	requests []string
	bodies   []string // the requests' bodies
	logged   []string
}

// open opens the booth in a browser of language lang, on a phone's
// screen (devtools.EmulatePhone) with phone.
func (e *boothEnv) open(t testing.TB, lang string, phone bool) *page {
	t.Helper()
	p := &page{env: e, lang: lang}
	p.Browser = devtools.Start(t, "--ignore-certificate-errors", "--accept-lang="+lang)
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
	p.Navigate(t, e.site.URL+boothserve.Prefix)
	p.WaitFor(t, `document.body.classList.contains("ready")`, 30*time.Second)
	if got := p.EvalString(t, `document.documentElement.lang`); got != lang {
		t.Fatalf("the page's language is %q, want %q (the browser's)", got, lang)
	}
	p.checkA11y(t, "start")
	return p
}

func (p *page) record(m devtools.Message) {
	var ev struct {
		Request struct {
			URL      string
			PostData string
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
		p.requests = append(p.requests, ev.Request.URL)
		p.bodies = append(p.bodies, ev.Request.PostData)
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

// checkOrigins asserts that every request went to the page's own origin
// or to the box, that none carried the voter's private key, and that nothing (a CSP violation, an exception) was
// logged as an error.
func (p *page) checkOrigins(t testing.TB) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, file := range []string{"/booth/booth.js", "/booth/worker.js", "/booth/booth.wasm", "/v1/register"} {
		if !slices.Contains(p.requests, p.env.site.URL+file) {
			t.Errorf("no request for %s recorded (the page's and its worker's requests are watched)", file)
		}
	}
	for _, u := range p.requests {
		if !strings.HasPrefix(u, p.env.site.URL+"/") && !strings.HasPrefix(u, p.env.box.URL+"/") {
			t.Errorf("the page requested %s, which is neither its origin %s nor the box %s", u, p.env.site.URL, p.env.box.URL)
		}
	}
	if !slices.ContainsFunc(p.bodies, func(b string) bool { return strings.Contains(b, `"voterPub"`) }) {
		t.Error("no request body recorded with the voter's public key: the key check below would see nothing")
	}
	for i, body := range p.bodies {
		if strings.Contains(body, "PRIVATE KEY") || strings.Contains(body, "BEGIN") {
			t.Errorf("the voter's private key left the page, to %s", p.requests[i])
		}
	}
	for _, l := range p.logged {
		t.Errorf("the browser logged an error: %s", l)
	}
}

// checkA11y runs the static accessibility checker on the DOM as it is.
// The booth has no navigation to skip, and its one link leaves the site
// for the bulletin board by design: those two rules are the board's.
func (p *page) checkA11y(t testing.TB, step string) {
	t.Helper()
	dom := p.EvalString(t, `document.documentElement.outerHTML`)
	for _, problem := range a11y.Problems(strings.NewReader(dom)) {
		if strings.HasPrefix(problem, "skip-link:") || strings.HasPrefix(problem, "link-local:") {
			continue
		}
		t.Errorf("%s: %s", step, problem)
	}
}

func (p *page) msg(t testing.TB, key string) string {
	t.Helper()
	s, ok := p.env.messages[p.lang][key]
	if !ok {
		t.Fatalf("messages.json has no %s.%s", p.lang, key)
	}
	return s
}

// waitStep waits until step's section is shown with its heading focused.
func (p *page) waitStep(t testing.TB, step string) {
	t.Helper()
	p.WaitFor(t, `!document.getElementById("step-`+step+`").hidden && document.activeElement.id === "`+step+`-heading" || !document.getElementById("error").hidden`, slow)
	if p.Eval(t, `document.getElementById("error").hidden`) != true {
		t.Fatalf("waiting for step %s, the page shows the error %q", step, p.text(t, "error-text"))
	}
	p.checkA11y(t, step)
	if w := p.Eval(t, `document.documentElement.scrollWidth - document.documentElement.clientWidth`); w != float64(0) {
		t.Errorf("step %s is %v px wider than the screen", step, w)
	}
	p.screenshot(t, step)
}

// screenshot keeps what the page shows in $FABVOTE_BOOTH_ARTIFACTS, when
// set, for a person to look at.
func (p *page) screenshot(t testing.TB, step string) {
	t.Helper()
	if dir := os.Getenv("FABVOTE_BOOTH_ARTIFACTS"); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		p.Screenshot(t, filepath.Join(dir, p.lang+"-"+step+".png"))
	}
}

// waitError waits until the error box shows the message key names.
func (p *page) waitError(t testing.TB, key string) {
	t.Helper()
	want := p.msg(t, key)
	p.WaitFor(t, `!document.getElementById("error").hidden`, slow)
	p.screenshot(t, "error-"+key)
	if got := p.EvalString(t, `document.getElementById("error-text").textContent`); !strings.HasPrefix(got, strings.SplitN(want, "{", 2)[0]) {
		t.Fatalf("error %q, want %q", got, want)
	}
}

func (p *page) text(t testing.TB, id string) string {
	t.Helper()
	return p.EvalString(t, `document.getElementById("`+id+`").textContent`)
}

// tracker is the tracker shown in element id, without its grouping.
func (p *page) tracker(t testing.TB, id string) string {
	t.Helper()
	s := strings.ReplaceAll(p.text(t, id), " ", "")
	if len(s) != 64 {
		t.Fatalf("#%s shows %q, not a tracker", id, s)
	}
	return s
}

// driver is how the voter works the page: by pointer or by keyboard.
type driver interface {
	fill(t testing.TB, p *page, voterID, code string) // and submit
	choose(t testing.TB, p *page, id string)          // a radio button
	press(t testing.TB, p *page, id string)           // a button
}

func hexOf(b []byte) string { return hex.EncodeToString(b) }
