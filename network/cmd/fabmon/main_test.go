package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunRefuses(t *testing.T) {
	dir := t.TempDir()
	incomplete := filepath.Join(dir, "network.json")
	// A network.json without the TLS client pairs the scrape jobs need.
	os.WriteFile(incomplete, []byte(`{"channel":"fabvote","orgs":[{"name":"ea","mspID":"EAMSP","peers":[{"endpoint":"127.0.0.1:1","tlsCACert":"ca.pem","operationsEndpoint":"127.0.0.1:2"}]}]}`), 0o644)
	out := filepath.Join(dir, "prometheus.yml")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no command", nil, "usage"},
		{"unknown command", []string{"grafana"}, `unknown command "grafana"`},
		{"prometheus without network", []string{"prometheus", "--out", out}, "--network and --out are required"},
		{"dashboard without out", []string{"dashboard"}, "--out is required"},
		{"missing network.json", []string{"prometheus", "--network", filepath.Join(dir, "none.json"), "--out", out}, "none.json"},
		{"incomplete network.json", []string{"prometheus", "--network", incomplete, "--out", out}, "monitoringClient"},
		{"bad interval", []string{"prometheus", "--network", incomplete, "--interval", "soon", "--out", out}, "invalid value"},
		{"stray argument", []string{"prometheus", "--network", incomplete, "--registrar", "a:1", "b:2", "--out", out}, `unexpected argument "b:2"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := run(c.args)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Fatalf("a refused command wrote %s", out)
			}
		})
	}
}

func TestDashboardWritten(t *testing.T) {
	out := filepath.Join(t.TempDir(), "d.json")
	if err := run([]string{"dashboard", "--out", out}); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile("../../monitoring/grafana/fabvote.json")
	got, _ := os.ReadFile(out)
	if len(got) == 0 || string(got) != string(want) {
		t.Fatal("fabmon dashboard does not write the committed dashboard")
	}
}
