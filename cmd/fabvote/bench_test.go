package main

import (
	"testing"

	"github.com/fabvote/fabvote/network/fabnet"
)

// TestDescribeNetwork: a report names each node's binary and its switches
// from the run directory's node definitions, and nothing else of their
// environment.
func TestDescribeNetwork(t *testing.T) {
	dir := t.TempDir()
	h := fabnet.Home{Dir: dir}
	if err := h.Define(fabnet.Proc{Name: "peer0.ea", Path: "/opt/fork/peer", Dir: h.Node("peer0.ea"), Ready: "127.0.0.1:7150",
		Env: []string{"FABVOTE_SHA256=simd", "CORE_PEER_LIMITS_CONCURRENCY_ENDORSERSERVICE=5000", "HOME=/root"}}); err != nil {
		t.Fatal(err)
	}
	got := describeNetwork("", dir)
	want := map[string]string{
		"peer0.ea binary":         "/opt/fork/peer",
		"peer0.ea FABVOTE_SHA256": "simd",
		"peer0.ea CORE_PEER_LIMITS_CONCURRENCY_ENDORSERSERVICE": "5000",
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
