package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fabvote/fabvote/network/fabnet"
	"github.com/fabvote/fabvote/network/fabrun"
)

// TestDescribeNetwork: a report names each node's binary, its switches and
// its stock settings from the run directory's node definitions, and nothing
// else of their environment.
func TestDescribeNetwork(t *testing.T) {
	dir := t.TempDir()
	h := fabrun.Home{Dir: dir}
	if err := h.Define(fabnet.Proc{Name: "peer0.ea", Path: "/opt/fork/peer", Dir: h.Node("peer0.ea"), Ready: "127.0.0.1:7150",
		Env: []string{"FABVOTE_SHA256=simd", "CORE_PEER_LIMITS_CONCURRENCY_ENDORSERSERVICE=5000", "GOGC=200",
			"CORE_LEDGER_HISTORY_ENABLEHISTORYDATABASE=false", "HOME=/root"}}); err != nil {
		t.Fatal(err)
	}
	got := describeNetwork("", dir)
	want := map[string]string{
		"peer0.ea binary":         "/opt/fork/peer",
		"peer0.ea FABVOTE_SHA256": "simd",
		"peer0.ea CORE_PEER_LIMITS_CONCURRENCY_ENDORSERSERVICE": "5000",
		"peer0.ea GOGC": "200",
		"peer0.ea CORE_LEDGER_HISTORY_ENABLEHISTORYDATABASE": "false",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("describeNetwork[%q] = %q, want %q", k, got[k], v)
		}
	}
	if _, ok := got["peer0.ea HOME"]; ok {
		t.Error("describeNetwork reports HOME")
	}
}

// A delaywork run (--work-delay) refuses, before it connects, each flag that
// makes no sense for it.
func TestBenchWorkDelayRefusals(t *testing.T) {
	for _, tc := range []struct {
		what string
		args []string
		want string
	}{
		{"no count", []string{"--work-delay", "50ms"}, "--work-delay needs --count"},
		{"with ballots", []string{"--work-delay", "50ms", "--count", "10", "--ballots", "b.bin"}, "--ballots and --work-delay exclude each other"},
		{"with skip-endorsement", []string{"--work-delay", "50ms", "--count", "10", "--skip-endorsement"}, "--skip-endorsement"},
		{"with an offset", []string{"--work-delay", "50ms", "--count", "10", "--offset", "5"}, "--offset"},
		{"with an election to open", []string{"--work-delay", "50ms", "--count", "10", "--open", "m.json"}, "--open"},
		{"delay over the chaincode's bound", []string{"--work-delay", "11s", "--count", "10"}, "--work-delay 11s: want 0..10s"},
		{"negative delay", []string{"--work-delay", "-5ms", "--count", "10"}, "--work-delay -5ms"},
	} {
		t.Run(tc.what, func(t *testing.T) {
			checkUsageError(t, tc.what, append([]string{"bench"}, tc.args...), []string{tc.want})
		})
	}
}

// A run through a ballot box (--box) or its baseline (--client) refuses,
// before it sends anything, each flag it cannot follow and each bad box
// option, naming it.
func TestBenchBoxRefusals(t *testing.T) {
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "ca.txt")
	if err := os.WriteFile(notPEM, []byte("not a certificate"), 0o644); err != nil {
		t.Fatal(err)
	}
	box := []string{"--ballots", "b.bin", "--box", "https://127.0.0.1:1", "--ca-cert", notPEM}
	for _, tc := range []struct {
		what string
		args []string
		want string
	}{
		{"CA without a box", []string{"--ballots", "b.bin", "--ca-cert", notPEM}, "--ca-cert is for a run through a ballot box"},
		{"connections without a box", []string{"--ballots", "b.bin", "--box-conns", "4"}, "--box-conns is for a run through a ballot box"},
		{"no CA", []string{"--ballots", "b.bin", "--box", "https://127.0.0.1:1"}, "--box needs --ca-cert"},
		{"a CA file that is missing", []string{"--ballots", "b.bin", "--box", "https://127.0.0.1:1", "--ca-cert", filepath.Join(dir, "none.pem")}, "--ca-cert: open"},
		{"a CA file without a certificate", box, "no PEM certificate"},
		{"delaywork", []string{"--work-delay", "50ms", "--count", "10", "--box", "https://127.0.0.1:1", "--ca-cert", notPEM}, "a delaywork run (--work-delay) has none"},
		{"skip-commit", append([]string{"--skip-commit"}, box...), "--skip-commit and --skip-endorsement do not apply"},
		{"skip-endorsement", append([]string{"--skip-endorsement"}, box...), "--skip-commit and --skip-endorsement do not apply"},
		{"an election to open", append([]string{"--open", "m.json"}, box...), "open the election first"},
		{"a box and its baseline", append([]string{"--client"}, box...), "--box and --client exclude each other"},
		{"the baseline on delaywork", []string{"--work-delay", "50ms", "--count", "10", "--client"}, "--client casts ballots"},
		{"the baseline with skip-commit", []string{"--ballots", "b.bin", "--client", "--skip-commit"}, "--client: each ballot is one call"},
		{"the baseline with an election to open", []string{"--ballots", "b.bin", "--client", "--open", "m.json"}, "--client: open the election first"},
		{"the baseline with another function", []string{"--ballots", "b.bin", "--client", "--fn", "SpoilBallot"}, "--fn does not apply"},
		{"the baseline with a commit timeout", []string{"--ballots", "b.bin", "--client", "--commit-timeout", "5s"}, "--commit-timeout does not apply"},
		{"the box with a prepared store", append([]string{"--store", "x"}, box...), "--store does not apply"},
	} {
		t.Run(tc.what, func(t *testing.T) {
			checkUsageError(t, tc.what, append([]string{"bench"}, tc.args...), []string{tc.want})
		})
	}
}
