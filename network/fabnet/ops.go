package fabnet

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
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
			tlsDir := filepath.Join(l.ordererOrg(oo.Domain), "orderers", o.Name+"."+oo.Domain, "tls")
			return OpsEndpoint{node, hostPort(dialHost(oo.HostOf(o)), o.OpsPort), filepath.Join(tlsDir, "ca.crt"), tlsDir}, nil
		}
	}
	for i := range t.Orgs {
		o := &t.Orgs[i]
		if node == o.Peer.Name+"."+o.Name {
			tlsDir := filepath.Join(l.peerOrg(o.Domain), "peers", o.Peer.Name+"."+o.Domain, "tls")
			return OpsEndpoint{node, hostPort(dialHost(o.Host), o.Peer.OpsPort), filepath.Join(tlsDir, "ca.crt"), tlsDir}, nil
		}
	}
	return OpsEndpoint{}, fmt.Errorf("no orderer or peer %q in the topology", node)
}

// Get returns the body of path from the endpoint.
func (e OpsEndpoint) Get(ctx context.Context, path string) ([]byte, error) {
	root, err := os.ReadFile(e.RootCA)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(root) {
		return nil, fmt.Errorf("%s: no PEM certificate", e.RootCA)
	}
	pair, err := tls.LoadX509KeyPair(filepath.Join(e.TLSPair, "server.crt"), filepath.Join(e.TLSPair, "server.key"))
	if err != nil {
		return nil, err
	}
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}}}
	defer client.CloseIdleConnections()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+e.Addr+path, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET %s from %s: %s", path, e.Node, resp.Status)
	}
	return body, err
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

// RaftLeader returns the orderer of t that leads channel's Raft cluster,
// asking each orderer's operations endpoint; none answers: "".
func (l Layout) RaftLeader(ctx context.Context, t *Topology) string {
	for _, o := range t.OrdererOrg.Orderers {
		ep, err := l.OpsEndpoint(t, o.Name)
		if err != nil {
			continue
		}
		m, err := ep.Get(ctx, "/metrics")
		if v, ok := Gauge(m, `consensus_etcdraft_is_leader{channel="`+t.Channel+`"}`); err == nil && ok && v == 1 {
			return o.Name
		}
	}
	return ""
}

// WaitOrderer returns once the channel has a Raft leader and the named
// orderer has heard from it (its active-nodes gauge is non-zero): a
// restarted follower that has not yet heard from the leader answers a
// broadcast with SERVICE_UNAVAILABLE "no Raft leader". It fails early when
// the orderer's process in h exits.
func (l Layout) WaitOrderer(ctx context.Context, t *Topology, h Home, orderer string) error {
	ep, err := l.OpsEndpoint(t, orderer)
	if err != nil {
		return err
	}
	active := `consensus_etcdraft_active_nodes{channel="` + t.Channel + `"}`
	for {
		if _, ok := h.Running(orderer); !ok {
			return fmt.Errorf("%s exited; the end of its log:\n%s", orderer, h.Tail(orderer, 15))
		}
		if l.RaftLeader(ctx, t) != "" {
			m, err := ep.Get(ctx, "/metrics")
			if v, ok := Gauge(m, active); err == nil && ok && v > 0 {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s did not join a Raft cluster with a leader for %s: %w", orderer, t.Channel, ctx.Err())
		case <-time.After(300 * time.Millisecond):
		}
	}
}
