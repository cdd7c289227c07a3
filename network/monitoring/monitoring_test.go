package monitoring

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/fabvote/fabvote/network/netjson"
)

// testNetwork is a three-org network.json whose TLS files exist (empty) in
// dir, so that promtool can check the configuration that names them.
func testNetwork(t *testing.T, dir string) *netjson.Network {
	t.Helper()
	file := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	n := &netjson.Network{Channel: "fabvote",
		OrdererAdmin: netjson.TLSClient{Cert: file("oa.crt"), Key: file("oa.key"), TLSCACert: file("oca.crt")}}
	for i := 0; i < 3; i++ {
		n.Orderers = append(n.Orderers, netjson.Orderer{Name: fmt.Sprintf("orderer%d", i), OperationsEndpoint: fmt.Sprintf("127.0.0.1:%d", 7052+10*i)})
	}
	for i, name := range []string{"ea", "party1", "party2"} {
		org := netjson.Org{Name: name, MSPID: name + "MSP", TLSCACert: file(name + "-ca.crt"),
			Peers:            []netjson.Peer{{Name: "peer0." + name, Endpoint: "x", TLSCACert: "x", OperationsEndpoint: fmt.Sprintf("127.0.0.1:%d", 7152+10*i)}},
			MonitoringClient: netjson.TLSClient{Cert: file(name + ".crt"), Key: file(name + ".key")},
			ChaincodeServices: []netjson.ChaincodeService{
				{Name: "ballot", Endpoint: "x", OperationsEndpoint: fmt.Sprintf("127.0.0.1:%d", 7250+10*i)},
				{Name: "kvtransfer", Endpoint: "x"}, // no operations endpoint: not scraped
			}}
		n.Orgs = append(n.Orgs, org)
	}
	return n
}

func TestPrometheusJobs(t *testing.T) {
	n := testNetwork(t, t.TempDir())
	c, err := Prometheus(n, Options{Interval: time.Second, Registrars: []string{"127.0.0.1:9444"}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]ScrapeConfig{}
	for _, j := range c.ScrapeConfigs {
		got[j.JobName] = j
	}
	want := map[string]struct {
		scheme  string
		targets int
	}{
		JobOrderers: {"https", 3}, JobPeerOrg + "ea": {"https", 1}, JobPeerOrg + "party1": {"https", 1},
		JobPeerOrg + "party2": {"https", 1}, JobChaincode: {"http", 3}, JobRegistrar: {"http", 1},
	}
	if len(got) != len(want) {
		t.Fatalf("jobs %v, want %v", keys(got), want)
	}
	for name, w := range want {
		j := got[name]
		targets := 0
		for _, s := range j.StaticConfigs {
			targets += len(s.Targets)
		}
		if j.Scheme != w.scheme || targets != w.targets {
			t.Errorf("job %s: scheme %s, %d targets; want %s, %d", name, j.Scheme, targets, w.scheme, w.targets)
		}
		if (w.scheme == "https") != (j.TLSConfig != nil) {
			t.Errorf("job %s: TLS config %+v with scheme %s", name, j.TLSConfig, j.Scheme)
		}
	}
	// A peer accepts only its own org's client certificates.
	if tc := got[JobPeerOrg+"party1"].TLSConfig; tc.CertFile != n.Orgs[1].MonitoringClient.Cert || tc.CAFile != n.Orgs[1].TLSCACert {
		t.Errorf("party1's job uses %+v", tc)
	}
	if c.Global.ScrapeInterval != "1s" || c.Global.ScrapeTimeout != "1s" {
		t.Errorf("global %+v", c.Global)
	}
}

func TestPrometheusDurations(t *testing.T) {
	n := testNetwork(t, t.TempDir())
	for _, c := range []struct {
		in                time.Duration
		interval, timeout string
	}{
		{0, "15s", "10s"}, {time.Second, "1s", "1s"}, {1500 * time.Millisecond, "1500ms", "1500ms"}, {time.Minute, "60s", "10s"},
	} {
		cfg, err := Prometheus(n, Options{Interval: c.in})
		if err != nil || cfg.Global.ScrapeInterval != c.interval || cfg.Global.ScrapeTimeout != c.timeout {
			t.Errorf("interval %v: %+v, %v; want %s, %s", c.in, cfg, err, c.interval, c.timeout)
		}
	}
	for _, bad := range []time.Duration{-time.Second, 1500 * time.Microsecond} {
		if _, err := Prometheus(n, Options{Interval: bad}); err == nil {
			t.Errorf("interval %v accepted", bad)
		}
	}
	if _, err := Prometheus(n, Options{Registrars: []string{"127.0.0.1"}}); err == nil || !strings.Contains(err.Error(), "host:port") {
		t.Errorf("a registrar without a port: %v", err)
	}
}

func keys(m map[string]ScrapeConfig) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestPrometheusRefusesIncompleteNetwork(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(n *netjson.Network)
		want   string
	}{
		{"no orderer admin", func(n *netjson.Network) { n.OrdererAdmin = netjson.TLSClient{} }, "ordererAdmin"},
		{"orderer without operations", func(n *netjson.Network) { n.Orderers[1].OperationsEndpoint = "" }, "orderer orderer1 has no operationsEndpoint"},
		{"org without monitoring client", func(n *netjson.Network) { n.Orgs[2].MonitoringClient.Key = "" }, "org party2 needs tlsCACert and a monitoringClient"},
		{"org without TLS CA", func(n *netjson.Network) { n.Orgs[0].TLSCACert = "" }, "org ea needs tlsCACert"},
		{"peer without operations", func(n *netjson.Network) { n.Orgs[1].Peers[0].OperationsEndpoint = "" }, "peer peer0.party1 of org party1 has no operationsEndpoint"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := testNetwork(t, t.TempDir())
			c.mutate(n)
			if _, err := Prometheus(n, Options{}); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

func promtool(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("FABVOTE_PROMTOOL_TEST") != "" {
			t.Fatal("FABVOTE_PROMTOOL_TEST is set but promtool is not installed (Debian package prometheus)")
		}
		t.Skip("promtool is not installed (Debian package prometheus)")
	}
	return p
}

// The generated YAML loads in the real promtool, and reads back as what was
// generated.
func TestPrometheusYAMLLoads(t *testing.T) {
	tool := promtool(t)
	dir := t.TempDir()
	c, err := Prometheus(testNetwork(t, dir), Options{Registrars: []string{"127.0.0.1:9444"}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.YAML()
	if err != nil {
		t.Fatal(err)
	}
	var back PromConfig
	if err := yaml.Unmarshal(b, &back); err != nil || len(back.ScrapeConfigs) != len(c.ScrapeConfigs) {
		t.Fatalf("read back: %v, %d jobs", err, len(back.ScrapeConfigs))
	}
	path := filepath.Join(dir, "prometheus.yml")
	os.WriteFile(path, b, 0o644)
	if out, err := exec.Command(tool, "check", "config", path).CombinedOutput(); err != nil {
		t.Fatalf("promtool check config: %v\n%s\n%s", err, out, b)
	}
	// The check is real: a missing client key file is refused.
	os.Remove(filepath.Join(dir, "party1.key"))
	if out, err := exec.Command(tool, "check", "config", path).CombinedOutput(); err == nil {
		t.Fatalf("promtool accepted a configuration naming a missing key file:\n%s", out)
	}
}

// Every query of the dashboard is valid PromQL: promtool parses each as a
// recording rule.
func TestDashboardQueriesParse(t *testing.T) {
	tool := promtool(t)
	var rules []map[string]string
	for _, row := range Rows {
		for _, p := range row.Panels {
			for _, q := range p.Queries {
				rules = append(rules, map[string]string{"record": fmt.Sprintf("fabvote:dashboard_check_%d", len(rules)), "expr": q.Expr})
			}
		}
	}
	b, err := yaml.Marshal(map[string]any{"groups": []any{map[string]any{"name": "dashboard", "rules": rules}}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "rules.yml")
	os.WriteFile(path, b, 0o644)
	if out, err := exec.Command(tool, "check", "rules", path).CombinedOutput(); err != nil {
		t.Fatalf("promtool check rules: %v\n%s", err, out)
	}
	bad := strings.Replace(string(b), "rate(", "rate((", 1)
	os.WriteFile(path, []byte(bad), 0o644)
	if _, err := exec.Command(tool, "check", "rules", path).CombinedOutput(); err == nil {
		t.Fatal("promtool accepted an unbalanced query")
	}
}

// The committed dashboard is the one Dashboard generates; panels have
// unique ids and do not overlap.
func TestDashboardCommitted(t *testing.T) {
	want, err := Dashboard()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("grafana/fabvote.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("network/monitoring/grafana/fabvote.json is stale: run `make monitoring-dashboard`")
	}
	var d gDashboard
	if err := json.Unmarshal(got, &d); err != nil {
		t.Fatal(err)
	}
	ids := map[int]bool{}
	cells := map[[2]int]string{}
	for _, p := range d.Panels {
		if ids[p.ID] {
			t.Errorf("panel id %d twice", p.ID)
		}
		ids[p.ID] = true
		for y := p.GridPos.Y; y < p.GridPos.Y+p.GridPos.H; y++ {
			for x := p.GridPos.X; x < p.GridPos.X+p.GridPos.W; x++ {
				if other, ok := cells[[2]int{x, y}]; ok {
					t.Fatalf("panels %q and %q overlap at %d,%d", other, p.Title, x, y)
				}
				cells[[2]int{x, y}] = p.Title
			}
		}
	}
}
