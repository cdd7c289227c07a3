package fabnet

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestGauge(t *testing.T) {
	metrics := []byte(`# HELP consensus_etcdraft_is_leader The leadership status of the current node.
# TYPE consensus_etcdraft_is_leader gauge
consensus_etcdraft_is_leader{channel="fabvote"} 1
consensus_etcdraft_is_leader{channel="other"} 0
consensus_etcdraft_active_nodes{channel="fabvote"} 3
broken{channel="fabvote"} x
`)
	tests := []struct {
		series string
		want   float64
		ok     bool
	}{
		{`consensus_etcdraft_is_leader{channel="fabvote"}`, 1, true},
		{`consensus_etcdraft_is_leader{channel="other"}`, 0, true},
		{`consensus_etcdraft_active_nodes{channel="fabvote"}`, 3, true},
		{`consensus_etcdraft_active_nodes{channel="fab"}`, 0, false},
		{`consensus_etcdraft_is_leader`, 0, false},
		{`broken{channel="fabvote"}`, 0, false},
	}
	for _, tt := range tests {
		if got, ok := Gauge(metrics, tt.series); got != tt.want || ok != tt.ok {
			t.Errorf("Gauge(%s) = %v, %v; want %v, %v", tt.series, got, ok, tt.want, tt.ok)
		}
	}
}

func TestOpsEndpoint(t *testing.T) {
	topo, err := Profile("three-orgs", 7050, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	l := Layout{Dir: "/run/crypto"}
	tests := []struct {
		node, addr, pair string
	}{
		{"orderer1", "127.0.0.1:7062", "/run/crypto/ordererOrganizations/orderer.fabvote.local/orderers/orderer1.orderer.fabvote.local/tls"},
		{"peer0.party1", "127.0.0.1:7162", "/run/crypto/peerOrganizations/party1.fabvote.local/peers/peer0.party1.fabvote.local/tls"},
	}
	for _, tt := range tests {
		ep, err := l.OpsEndpoint(topo, tt.node)
		if err != nil {
			t.Fatal(err)
		}
		if ep.Addr != tt.addr || ep.TLSPair != tt.pair || ep.RootCA != filepath.Join(tt.pair, "ca.crt") {
			t.Errorf("OpsEndpoint(%s) = %+v, want %s with the pair in %s", tt.node, ep, tt.addr, tt.pair)
		}
	}
	for _, bad := range []string{"orderer9", "peer0.party9", "ca.ea"} {
		if _, err := l.OpsEndpoint(topo, bad); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("OpsEndpoint(%s) = %v, want an error naming it", bad, err)
		}
	}
}
