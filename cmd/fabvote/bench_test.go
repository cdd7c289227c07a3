package main

import (
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
