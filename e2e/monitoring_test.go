//go:build e2e

package e2e

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fabvote/fabvote/internal/nettest"
	"github.com/fabvote/fabvote/internal/registrar"
	"github.com/fabvote/fabvote/network/monitoring"
	"github.com/fabvote/fabvote/network/netjson"
)

// TestMonitoring runs the real Prometheus (Debian package prometheus) with
// the scrape configuration fabmon generates from the running network's
// network.json, plus a registration service started here with an operations
// endpoint. Every target must be up, the key series of every kind of node
// must be scraped, and every panel of the Grafana dashboard must show data.
func TestMonitoring(t *testing.T) {
	e := setup(t)
	prom, err := exec.LookPath("prometheus")
	if err != nil {
		t.Fatal("prometheus is not installed (Debian package prometheus): the monitoring test needs the real one")
	}
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Fatal("promtool is not installed (Debian package prometheus)")
	}
	n, err := netjson.Load(e.netPath)
	if err != nil {
		t.Fatal(err)
	}
	regOps := startRegistrar(t, e)
	cfg, err := monitoring.Prometheus(n, monitoring.Options{Interval: time.Second, Registrars: []string{regOps}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := cfg.YAML()
	if err != nil {
		t.Fatal(err)
	}
	path := e.path("prometheus.yml")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(promtool, "check", "config", path).CombinedOutput(); err != nil {
		t.Fatalf("promtool check config: %v\n%s", err, out)
	}
	api := startPrometheus(t, prom, path, e.path("tsdb"))
	waitTargetsUp(t, api, targetCount(cfg))
	keySeries(t, api, n)
	dashboardShowsData(t, api)
}

// startRegistrar runs `fabvote ea serve --ops-addr` for a fresh election
// and registers one voter through it; it returns the operations endpoint.
func startRegistrar(t *testing.T, e *env) string {
	el := nettest.CreateElection(t, e.CLI, "mon-1", 10)
	e.Must(t, "ea", "roll", "--voters", "2", "--out", "roll.csv")
	e.Must(t, "ea", "tls-cert", "--ca-cert", "ca.crt", "--ca-key", "ca.key", "--tls-cert", "tls.crt", "--tls-key", "tls.key", "--hosts", "127.0.0.1")
	cmd := exec.Command(e.Bin, "ea", "serve", "--init-state", "--addr", "127.0.0.1:0", "--ops-addr", "127.0.0.1:0",
		"--manifest", el.Manifest(), "--roll", "roll.csv", "--tls-cert", "tls.crt", "--tls-key", "tls.key", "--ea-key", el.EAKey())
	cmd.Dir = e.Dir
	log := &nettest.SyncBuffer{}
	cmd.Stderr = log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	regURL := regexp.MustCompile(`at (https://127\.0\.0\.1:\d+)/v1/register`)
	opsURL := regexp.MustCompile(`operations endpoint \(/metrics, /healthz\) at http://(127\.0\.0\.1:\d+)`)
	var reg, ops []string
	for deadline := time.Now().Add(30 * time.Second); reg == nil || ops == nil; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("ea serve did not start:\n%s", log.String())
		}
		reg, ops = regURL.FindStringSubmatch(log.String()), opsURL.FindStringSubmatch(log.String())
	}
	codes, err := registrar.ReadRollCodes(e.path("roll.csv"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := registrar.NewClient(reg[1], e.path("ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	pub, _ := k.PublicKey.Bytes()
	if _, err := c.Register(ctx(t), &registrar.Request{ElectionID: "mon-1", VoterID: codes[0][0], Code: codes[0][1], VoterPub: pub}); err != nil {
		t.Fatalf("registering through ea serve: %v", err)
	}
	return ops[1]
}

// startLogged starts cmd with its output into the log it returns; it is
// killed when the test ends, and the end of its log shown if the test
// failed.
func startLogged(t *testing.T, name string, cmd *exec.Cmd) *nettest.SyncBuffer {
	log := &nettest.SyncBuffer{}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("%s log:\n%s", name, nettest.Tail(log.String(), 40))
		}
	})
	return log
}

// startPrometheus runs prometheus on a free loopback port and returns its
// base URL once it is ready.
func startPrometheus(t *testing.T, bin, config, tsdb string) string {
	addr := nettest.FreeAddr(t)
	log := startLogged(t, "prometheus", exec.Command(bin, "--config.file="+config, "--storage.tsdb.path="+tsdb, "--web.listen-address="+addr))
	base := "http://" + addr
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if resp, err := http.Get(base + "/-/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return base
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("prometheus not ready in 60 s:\n%s", nettest.Tail(log.String(), 40))
		}
	}
}

func targetCount(c *monitoring.PromConfig) int {
	n := 0
	for _, j := range c.ScrapeConfigs {
		for _, s := range j.StaticConfigs {
			n += len(s.Targets)
		}
	}
	return n
}

// apiGet decodes the data of a Prometheus HTTP API answer.
func apiGet(t *testing.T, base, path string, q url.Values, data any) {
	t.Helper()
	resp, err := http.Get(base + path + "?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var r struct {
		Status string          `json:"status"`
		Error  string          `json:"error"`
		Data   json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(body, &r); err != nil || r.Status != "success" {
		t.Fatalf("GET %s %v: %v %s %s", path, q, err, r.Error, body)
	}
	if err := json.Unmarshal(r.Data, data); err != nil {
		t.Fatal(err)
	}
}

// waitTargetsUp waits until Prometheus has scraped all want targets
// successfully, and fails naming those that are down and why.
func waitTargetsUp(t *testing.T, api string, want int) {
	t.Helper()
	type target struct {
		ScrapeURL string `json:"scrapeUrl"`
		Health    string `json:"health"`
		LastError string `json:"lastError"`
	}
	var down []string
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		var d struct {
			Active []target `json:"activeTargets"`
		}
		apiGet(t, api, "/api/v1/targets", url.Values{"state": {"active"}}, &d)
		down = nil
		for _, tg := range d.Active {
			if tg.Health != "up" {
				down = append(down, fmt.Sprintf("%s (%s: %s)", tg.ScrapeURL, tg.Health, tg.LastError))
			}
		}
		if len(d.Active) == want && len(down) == 0 {
			t.Logf("all %d targets up", want)
			return
		}
	}
	t.Fatalf("targets not all up after 60 s (want %d): %s", want, strings.Join(down, "; "))
}

// query returns the instant vector of expr: each series' labels and value.
func query(t *testing.T, api, expr string) []map[string]string {
	t.Helper()
	var d struct {
		Result []struct {
			Metric map[string]string `json:"metric"`
			Value  [2]any            `json:"value"`
		} `json:"result"`
	}
	apiGet(t, api, "/api/v1/query", url.Values{"query": {expr}}, &d)
	var out []map[string]string
	for _, r := range d.Result {
		m := r.Metric
		if m == nil {
			m = map[string]string{}
		}
		m["__value__"], _ = r.Value[1].(string)
		out = append(out, m)
	}
	return out
}

// keySeries checks one series of each kind of node with its expected value.
func keySeries(t *testing.T, api string, n *netjson.Network) {
	t.Helper()
	cases := []struct{ expr, want string }{
		{`count(ledger_blockchain_height{job=~"fabvote-peer-.*"} > 0)`, fmt.Sprint(len(n.Orgs))},
		{`count(ledger_blockchain_height{job="fabvote-orderers"} > 0)`, fmt.Sprint(len(n.Orderers))},
		{`sum(consensus_etcdraft_is_leader{job="fabvote-orderers"})`, "1"},
		{`count(fabvote_chaincode_ballots_accepted_total{job="fabvote-chaincode"})`, fmt.Sprint(len(n.Orgs))},
		{`count(process_cpu_seconds_total{job="fabvote-chaincode"})`, fmt.Sprint(len(n.Orgs))},
		{`fabvote_registrar_tokens_issued{job="fabvote-registrar"}`, "1"},
		{`sum(fabvote_registrar_requests_total{job="fabvote-registrar",code="200"})`, "1"},
		{`count(count by (org) (fabvote_commit_gate_sessions_total))`, fmt.Sprint(len(n.Orgs))},
	}
	for _, c := range cases {
		r := query(t, api, c.expr)
		if len(r) != 1 || r[0]["__value__"] != c.want {
			t.Errorf("%s = %v, want %s", c.expr, r, c.want)
		}
	}
}

// dashboardShowsData runs every query of the dashboard until each panel
// but the quiet ones shows at least one series (rate() wants two scrapes
// in its window), for at most 30 s.
func dashboardShowsData(t *testing.T, api string) {
	t.Helper()
	var empty []string
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(time.Second) {
		empty = nil
		for _, row := range monitoring.Rows {
			for _, p := range row.Panels {
				series := 0
				for _, q := range p.Queries {
					series += len(query(t, api, q.Expr))
				}
				if series == 0 && !p.Quiet {
					empty = append(empty, fmt.Sprintf("%q (%s)", p.Title, row.Title))
				}
			}
		}
		if len(empty) == 0 || time.Now().After(deadline) {
			break
		}
	}
	for _, e := range empty {
		t.Errorf("dashboard panel %s shows no data", e)
	}
}
