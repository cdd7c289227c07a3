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
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/booth"
	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/election/electiontest"
	"github.com/fabvote/fabvote/internal/boothserve"
	"github.com/fabvote/fabvote/internal/boothtest"
	"github.com/fabvote/fabvote/internal/registrar"
)

// boothEnv is one election: the booth and the registrar on one origin, a
// fake box on another, and the roll's voters.
type boothEnv struct {
	site     *httptest.Server
	box      *httptest.Server
	fake     *fakeBox
	codes    [][2]string
	messages boothtest.Messages
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
	e.messages = boothtest.ReadMessages(t, dir)
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

// page is the booth open in a browser (boothtest.Page) for this
// election.
type page struct {
	*boothtest.Page
	env *boothEnv
}

// open opens the booth in a browser of language lang, on a phone's
// screen with phone.
func (e *boothEnv) open(t testing.TB, lang string, phone bool) *page {
	t.Helper()
	return &page{Page: boothtest.Open(t, e.site.URL, lang, phone, e.messages, "--ignore-certificate-errors"), env: e}
}

// checkOrigins asserts that every request went to the page's own origin
// or to the box, that none carried the voter's private key, and that nothing (a CSP violation, an exception) was
// logged as an error.
func (p *page) checkOrigins(t testing.TB) {
	t.Helper()
	reqs := p.Requests()
	urls := make([]string, len(reqs))
	for i, r := range reqs {
		urls[i] = r.URL
	}
	for _, file := range []string{"/booth/booth.js", "/booth/worker.js", "/booth/booth.wasm", "/v1/register"} {
		if !slices.Contains(urls, p.env.site.URL+file) {
			t.Errorf("no request for %s recorded (the page's and its worker's requests are watched)", file)
		}
	}
	for _, u := range urls {
		if !strings.HasPrefix(u, p.env.site.URL+"/") && !strings.HasPrefix(u, p.env.box.URL+"/") {
			t.Errorf("the page requested %s, which is neither its origin %s nor the box %s", u, p.env.site.URL, p.env.box.URL)
		}
	}
	if !slices.ContainsFunc(reqs, func(r boothtest.Request) bool { return strings.Contains(r.Body, `"voterPub"`) }) {
		t.Error("no request body recorded with the voter's public key: the key check below would see nothing")
	}
	for _, r := range reqs {
		if strings.Contains(r.Body, "PRIVATE KEY") || strings.Contains(r.Body, "BEGIN") {
			t.Errorf("the voter's private key left the page, to %s", r.URL)
		}
	}
	for _, l := range p.Logged() {
		t.Errorf("the browser logged an error: %s", l)
	}
}

func hexOf(b []byte) string { return hex.EncodeToString(b) }
