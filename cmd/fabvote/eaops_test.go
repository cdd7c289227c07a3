package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/internal/opsserve"
	"github.com/fabvote/fabvote/internal/registrar"
)

var opsRE = regexp.MustCompile(`operations endpoint \(/metrics, /healthz\) at (http://127\.0\.0\.1:\d+)`)

func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// `ea serve --ops-addr`: /healthz is OK, and /metrics counts the answers by
// status and the tokens issued, apart from the voters' HTTPS listener.
func TestServeOperationsEndpoint(t *testing.T) {
	e := newServeEnv(t, 3, 10)
	srv, err := startServe(t, e.serveArgs("--init-state", "--ops-addr", "127.0.0.1:0"))
	if err != nil {
		t.Fatal(err)
	}
	m := opsRE.FindStringSubmatch(srv.stderr.String())
	if m == nil {
		t.Fatalf("ea serve did not log its operations endpoint:\n%s", srv.stderr.String())
	}
	ops := m[1]
	c := e.client(t, srv.url)
	if _, err := c.Register(context.Background(), &registrar.Request{ElectionID: "serve-1", VoterID: e.codes[0][0], Code: e.codes[0][1], VoterPub: newVoterPub(t)}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Register(context.Background(), &registrar.Request{ElectionID: "serve-1", VoterID: e.codes[1][0], Code: "wrong-code", VoterPub: newVoterPub(t)}); err == nil {
		t.Fatal("a wrong code was accepted")
	}
	code, body := httpGet(t, ops+"/healthz")
	var h opsserve.Health
	if err := json.Unmarshal([]byte(body), &h); code != 200 || err != nil || h.Status != opsserve.StatusOK {
		t.Fatalf("/healthz: %d %s", code, body)
	}
	_, metrics := httpGet(t, ops+"/metrics")
	for _, want := range []string{
		`fabvote_registrar_requests_total{code="200",method="post"} 1`,
		`fabvote_registrar_tokens_issued 1`,
		`fabvote_registrar_roll_voters 3`,
		`fabvote_registrar_request_duration_seconds_count{code="200"} 1`,
		`process_cpu_seconds_total`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	if !regexp.MustCompile(`fabvote_registrar_requests_total\{code="4\d\d",method="post"\} 1`).MatchString(metrics) {
		t.Errorf("/metrics does not count the refused registration:\n%s", grepLines(metrics, "fabvote_registrar_requests_total"))
	}
}

// A busy --ops-addr is refused before anything is written: --init-state
// leaves no state behind.
func TestServeBusyOpsAddrLeavesNoState(t *testing.T) {
	e := newServeEnv(t, 3, 10)
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	code, errs := fv(t, e.serveArgs("--init-state", "--ops-addr", busy.Addr().String())...)
	if code != 1 || !strings.Contains(errs, "--ops-addr") {
		t.Fatalf("busy --ops-addr: exit %d, %s", code, errs)
	}
	if _, err := os.Stat(e.p("roll.csv.state.db")); !os.IsNotExist(err) {
		t.Fatalf("a refused start left a registration state: %v", err)
	}
}

// The state check fails once the registration state is closed.
func TestStateCheck(t *testing.T) {
	e := newServeEnv(t, 3, 10)
	if code, errs := fv(t, "ea", "init-state", "--manifest", e.p("manifest.json"), "--roll", e.p("roll.csv")); code != 0 {
		t.Fatal(errs)
	}
	roll, err := registrar.LoadRoll(e.p("roll.csv"))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(e.p("manifest.json"))
	b, err := registrar.NewBinding(e.m.ElectionID, raw, e.m.MaxVoters, roll)
	if err != nil {
		t.Fatal(err)
	}
	st, err := registrar.OpenStore(e.p("roll.csv.state.db"), b)
	if err != nil {
		t.Fatal(err)
	}
	check := stateCheck(st)
	if err := check(context.Background()); err != nil {
		t.Fatalf("open state: %v", err)
	}
	st.Close()
	if err := check(context.Background()); err == nil || !strings.Contains(err.Error(), "registration state") {
		t.Fatalf("closed state: %v, want a failure naming the registration state", err)
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
