package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/fabvote/fabvote/internal/cli"
	"github.com/fabvote/fabvote/internal/cli/clitest"
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
	cases := []clitest.Case{
		{Name: "help", Args: []string{"--help"}, Code: 0, Want: "  prometheus  write the Prometheus scrape configuration"},
		{Name: "prometheus help", Args: []string{"prometheus", "--help"}, Code: 0, Want: "--registrar stringArray"},
		{Name: "missing network.json", Args: []string{"prometheus", "--network", filepath.Join(dir, "none.json"), "--out", out}, Code: 1, Want: "none.json"},
		{Name: "incomplete network.json", Args: []string{"prometheus", "--network", incomplete, "--out", out}, Code: 1, Want: "monitoringClient"},
		{Name: "no command", Args: nil, Code: 2, Want: "usage: fabmon COMMAND"},
		{Name: "unknown command", Args: []string{"grafana"}, Code: 2, Want: `unknown command "grafana"`},
		{Name: "prometheus without network", Args: []string{"prometheus", "--out", out}, Code: 2, Want: "--network is required (see `fabmon prometheus --help`)"},
		{Name: "dashboard without out", Args: []string{"dashboard"}, Code: 2, Want: "--out is required"},
		{Name: "bad interval", Args: []string{"prometheus", "--network", incomplete, "--interval", "soon", "--out", out}, Code: 2, Want: `invalid argument "soon" for "--interval"`},
		{Name: "stray argument", Args: []string{"prometheus", "--network", incomplete, "--registrar", "a:1", "b:2", "--out", out}, Code: 2, Want: `unexpected argument "b:2" (repeat --registrar`},
	}
	for _, c := range cases {
		clitest.CheckExit(t, newRootCommand, []clitest.Case{c})
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Fatalf("%s: a refused command wrote %s", c.Name, out)
		}
	}
}

func TestDashboardWritten(t *testing.T) {
	out := filepath.Join(t.TempDir(), "d.json")
	clitest.CheckExit(t, newRootCommand, []clitest.Case{{Name: "dashboard", Args: []string{"dashboard", "--out", out}}})
	want, _ := os.ReadFile("../../monitoring/grafana/fabvote.json")
	got, _ := os.ReadFile(out)
	if len(got) == 0 || string(got) != string(want) {
		t.Fatal("fabmon dashboard does not write the committed dashboard")
	}
}

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
	clitest.CheckReference(t, ref, "../../../docs/cli")
}
