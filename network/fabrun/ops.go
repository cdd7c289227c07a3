package fabrun

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/fabvote/fabvote/network/fabnet"
)

// GetOps returns the body of path from the operations endpoint e.
func GetOps(ctx context.Context, e fabnet.OpsEndpoint, path string) ([]byte, error) {
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

// RaftLeader returns the orderer of t (its files in the layout l) that leads channel's Raft cluster,
// asking each orderer's operations endpoint; none answers: "".
func RaftLeader(ctx context.Context, l fabnet.Layout, t *fabnet.Topology) string {
	for _, o := range t.OrdererOrg.Orderers {
		ep, err := l.OpsEndpoint(t, o.Name)
		if err != nil {
			continue
		}
		m, err := GetOps(ctx, ep, "/metrics")
		if v, ok := fabnet.Gauge(m, `consensus_etcdraft_is_leader{channel="`+t.Channel+`"}`); err == nil && ok && v == 1 {
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
func WaitOrderer(ctx context.Context, l fabnet.Layout, t *fabnet.Topology, h Home, orderer string) error {
	ep, err := l.OpsEndpoint(t, orderer)
	if err != nil {
		return err
	}
	active := `consensus_etcdraft_active_nodes{channel="` + t.Channel + `"}`
	for {
		if _, ok := h.Running(orderer); !ok {
			return fmt.Errorf("%s exited; the end of its log:\n%s", orderer, h.Tail(orderer, 15))
		}
		if RaftLeader(ctx, l, t) != "" {
			m, err := GetOps(ctx, ep, "/metrics")
			if v, ok := fabnet.Gauge(m, active); err == nil && ok && v > 0 {
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
