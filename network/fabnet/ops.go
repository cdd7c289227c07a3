package fabnet

import (
	"bufio"
	"bytes"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// OpsEndpoint is a node's operations endpoint (https) and the files that
// reach it: the node's organisation's TLS root, and the node's own TLS key
// pair as the client certificate, which Fabric asks for on /metrics and
// /logspec once operations TLS is on (cryptogen and fabca issue node TLS
// certificates for client and server use).
type OpsEndpoint struct {
	Node, Addr      string
	RootCA, TLSPair string // TLSPair: the directory of server.crt and server.key
}

// OpsEndpoint finds the operations endpoint of a node of t, named as
// net.sh names them (orderer0, peer0.ea), in the layout l.
func (l Layout) OpsEndpoint(t *Topology, node string) (OpsEndpoint, error) {
	oo := t.OrdererOrg
	for _, o := range oo.Orderers {
		if o.Name == node {
			tlsDir := filepath.Join(l.OrdererOrgDir(oo.Domain), "orderers", o.Name+"."+oo.Domain, "tls")
			return OpsEndpoint{node, hostPort(DialHost(oo.HostOf(o)), o.OpsPort), filepath.Join(tlsDir, "ca.crt"), tlsDir}, nil
		}
	}
	for i := range t.Orgs {
		o := &t.Orgs[i]
		if node == o.Peer.Name+"."+o.Name {
			tlsDir := filepath.Join(l.PeerOrgDir(o.Domain), "peers", o.Peer.Name+"."+o.Domain, "tls")
			return OpsEndpoint{node, hostPort(DialHost(o.Host), o.Peer.OpsPort), filepath.Join(tlsDir, "ca.crt"), tlsDir}, nil
		}
	}
	return OpsEndpoint{}, fmt.Errorf("no orderer or peer %q in the topology", node)
}

// Gauge is the value of one series of a Prometheus text exposition, named
// with its labels exactly as the node prints them, e.g.
// consensus_etcdraft_is_leader{channel="fabvote"}.
func Gauge(metrics []byte, series string) (float64, bool) {
	s := bufio.NewScanner(bytes.NewReader(metrics))
	s.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), series+" "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return f, err == nil
		}
	}
	return 0, false
}
