//go:build reliability

package reliability

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/ballotclient"
	"github.com/fabvote/fabvote/internal/gateway"
	"github.com/fabvote/fabvote/internal/nettest"
)

type ccStats struct {
	ProofsChecked uint64            `json:"proofsChecked"`
	Accepted      uint64            `json:"accepted"`
	Rejected      map[string]uint64 `json:"rejected"`
	BatchedProofs uint64            `json:"batchedProofs"`
}

func getStats(t *testing.T, c *gateway.Conn) ccStats {
	t.Helper()
	out, err := c.Evaluate(nettest.Context(t, time.Minute), "GetStats")
	if err != nil {
		t.Fatalf("GetStats: %v", err)
	}
	var s ccStats
	if err := json.Unmarshal(out, &s); err != nil {
		t.Fatalf("GetStats returned %q: %v", out, err)
	}
	return s
}

// lookup walks a YAML mapping by dotted path, case-insensitively like viper.
func lookup(m map[string]any, path string) any {
	var cur any = m
	for _, k := range strings.Split(path, ".") {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = nil
		for kk, v := range mm {
			if strings.EqualFold(kk, k) {
				cur = v
			}
		}
	}
	return cur
}

// TestLimits: an oversize ballot is refused before any proof check (the
// chaincode's proof counter does not move, its SIZE counter does), and the
// peer's concurrency and gateway limits are logged as configured.
func TestLimits(t *testing.T) {
	bin := fabvoteBin(t)
	n := startNet(t, "limits", "solo-org", 4, "ballot=./chaincode/ballot/cmd/ballot-cc")
	conn := n.connect("EAMSP", "user1", "ballot", 4)
	lc := ballotclient.New(conn)
	ctx := nettest.Context(t, 10*time.Minute)
	e := newElection(t, bin, fmt.Sprintf("limits-%d", time.Now().Unix()), 2)
	e.open(t, n.netJSON, 10*time.Minute)
	oversizeBeforeProofs(t, ctx, conn, lc, e.ballots)
	logPeerLimits(t, n)
}

// oversizeBeforeProofs casts one valid ballot (ballots[0]), a positive
// control that moves the proof counter, then oversize ones (one built from
// ballots[1]): each is SIZE, the proof counters stay, and the SIZE counter
// moves by one each.
func oversizeBeforeProofs(t *testing.T, ctx context.Context, conn *gateway.Conn, lc *ballotclient.Client, ballots [][]byte) {
	before := getStats(t, conn)
	if _, err := lc.CastBallot(ctx, ballots[0]); err != nil {
		t.Fatal(err)
	}
	mid := getStats(t, conn)
	if mid.ProofsChecked+mid.BatchedProofs <= before.ProofsChecked+before.BatchedProofs {
		t.Fatalf("a valid ballot did not move the proof counters: %+v -> %+v", before, mid)
	}
	cases := []struct {
		name string
		arg  []byte
	}{
		{"valid ballot padded to MaxBallotSize+1 KiB", append(append([]byte(nil), ballots[1]...), bytes.Repeat([]byte{0}, election.MaxBallotSize+1024-len(ballots[1]))...)},
		{"1 MiB of 0x01", bytes.Repeat([]byte{election.BallotVersion}, 1<<20)},
		{"8 MiB base64 text", bytes.Repeat([]byte("QUJD"), 2<<20)},
	}
	for _, c := range cases {
		t0 := time.Now()
		_, err := lc.CastBallot(ctx, c.arg)
		nettest.WantReject(t, "oversize: "+c.name, err, election.CodeSize)
		t.Logf("LIMITS %s (%d bytes): SIZE after %s", c.name, len(c.arg), time.Since(t0).Round(time.Millisecond))
	}
	after := getStats(t, conn)
	if after.ProofsChecked != mid.ProofsChecked || after.BatchedProofs != mid.BatchedProofs {
		t.Fatalf("oversize ballots reached the proof check: proofs %d -> %d, batched %d -> %d",
			mid.ProofsChecked, after.ProofsChecked, mid.BatchedProofs, after.BatchedProofs)
	}
	if got := after.Rejected[election.CodeSize] - mid.Rejected[election.CodeSize]; got != uint64(len(cases)) {
		t.Fatalf("SIZE rejections counted %d, want %d (stats %+v)", got, len(cases), after)
	}
	t.Logf("LIMITS proof checks before/after the oversize ballots: %d/%d (batched %d/%d); SIZE rejections +%d",
		mid.ProofsChecked, after.ProofsChecked, mid.BatchedProofs, after.BatchedProofs, len(cases))
}

// logPeerLimits logs the limits the peer actually runs with (its merged
// core.yaml) and requires the concurrency limits to be set.
func logPeerLimits(t *testing.T, n *testNet) {
	b, err := os.ReadFile(filepath.Join(n.runDir, "nodes", "peer0.ea", "core.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var core map[string]any
	if err := yaml.Unmarshal(b, &core); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{
		"peer.limits.concurrency.endorserService", "peer.limits.concurrency.deliverService", "peer.limits.concurrency.gatewayService",
		"peer.gateway.enabled", "peer.gateway.endorsementTimeout", "peer.gateway.broadcastTimeout", "peer.gateway.dialTimeout",
		"chaincode.executetimeout", "peer.maxRecvMsgSize", "peer.maxSendMsgSize",
	} {
		v := lookup(core, k)
		t.Logf("LIMITS %s = %v", k, v)
		if v == nil && strings.HasPrefix(k, "peer.limits.concurrency.") {
			t.Fatalf("%s is not set in the peer's core.yaml", k)
		}
	}
}
