package main

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/internal/cli"
)

// TestExitStatus runs the command line in-process: help exits 0, a
// failure 1, bad usage 2, each with a message naming what is wrong; a
// refused command writes nothing.
func TestExitStatus(t *testing.T) {
	dir := t.TempDir()
	incomplete := filepath.Join(dir, "network.json")
	// A network.json without the TLS client pairs the scrape jobs need.
	if err := os.WriteFile(incomplete, []byte(`{"channel":"fabvote","orgs":[{"name":"ea","mspID":"EAMSP","peers":[{"endpoint":"127.0.0.1:1","tlsCACert":"ca.pem","operationsEndpoint":"127.0.0.1:2"}]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "prometheus.yml")
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"help", []string{"--help"}, 0, "  prometheus  write the Prometheus scrape configuration"},
		{"prometheus help", []string{"prometheus", "--help"}, 0, "--registrar stringArray"},
		{"missing network.json", []string{"prometheus", "--network", filepath.Join(dir, "none.json"), "--out", out}, 1, "none.json"},
		{"incomplete network.json", []string{"prometheus", "--network", incomplete, "--out", out}, 1, "monitoringClient"},
		{"no command", nil, 2, "usage: fabmon COMMAND"},
		{"unknown command", []string{"grafana"}, 2, `unknown command "grafana"`},
		{"prometheus without network", []string{"prometheus", "--out", out}, 2, "--network is required (see `fabmon prometheus --help`)"},
		{"dashboard without out", []string{"dashboard"}, 2, "--out is required"},
		{"bad interval", []string{"prometheus", "--network", incomplete, "--interval", "soon", "--out", out}, 2, `invalid argument "soon" for "--interval"`},
		{"stray argument", []string{"prometheus", "--network", incomplete, "--registrar", "a:1", "b:2", "--out", out}, 2, `unexpected argument "b:2" (repeat --registrar`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			if code := run(tc.args, &stderr); code != tc.code || !strings.Contains(stderr.String(), tc.want) {
				t.Fatalf("exit %d, want %d; stderr %q does not say %q", code, tc.code, stderr.String(), tc.want)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Fatalf("a refused command wrote %s", out)
			}
		})
	}
}

func TestDashboardWritten(t *testing.T) {
	out := filepath.Join(t.TempDir(), "d.json")
	if code := run([]string{"dashboard", "--out", out}, io.Discard); code != 0 {
		t.Fatalf("exit %d", code)
	}
	want, _ := os.ReadFile("../../monitoring/grafana/fabvote.json")
	got, _ := os.ReadFile(out)
	if len(got) == 0 || string(got) != string(want) {
		t.Fatal("fabmon dashboard does not write the committed dashboard")
	}
}

// updateReference makes TestCLIReference write docs/cli instead of
// checking it: `make docs`.
var updateReference = flag.Bool("update", false, "rewrite fabmon's pages in docs/cli from the command tree")

// TestCLIReference fails, naming the file, where fabmon's pages in
// docs/cli differ from the command tree; with -update it writes them.
func TestCLIReference(t *testing.T) {
	ref := cli.Reference{
		Root:   newRootCommand(io.Discard),
		Source: "network/cmd/fabmon",
		About: "The scrape configuration names the TLS files network.json names, so it is valid on the host that holds them; " +
			"load it with `prometheus --config.file=prometheus.yml`. The dashboard imports into Grafana " +
			"with a Prometheus data source chosen at import (network/monitoring/README.md).",
	}
	cli.CheckReference(t, ref, "../../../docs/cli", *updateReference)
}
