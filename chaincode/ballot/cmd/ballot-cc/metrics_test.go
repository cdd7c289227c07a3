package main

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/fabvote/fabvote/chaincode/ballot"
	"github.com/fabvote/fabvote/internal/nettest"
)

// The collector exports exactly the contract's counters, read at scrape
// time: a change of the counters shows in the next scrape.
func TestStatsCollector(t *testing.T) {
	s := ballot.Stats{ProofsChecked: 7, Accepted: 5, Rejected: map[string]uint64{"DUPLICATE": 1, "BAD_PROOF": 2},
		Batches: 2, BatchedProofs: 6, CachedManifests: 1}
	c := newStatsCollector(func() ballot.Stats { return s })
	want := `
# HELP fabvote_chaincode_ballots_accepted_total CastBallot executions that returned a receipt (an endorsement, not yet a commit).
# TYPE fabvote_chaincode_ballots_accepted_total counter
fabvote_chaincode_ballots_accepted_total 5
# HELP fabvote_chaincode_ballots_rejected_total CastBallot executions refused, by error code.
# TYPE fabvote_chaincode_ballots_rejected_total counter
fabvote_chaincode_ballots_rejected_total{code="BAD_PROOF"} 2
fabvote_chaincode_ballots_rejected_total{code="DUPLICATE"} 1
# HELP fabvote_chaincode_proofs_checked_total Validity proofs this process handed to its verifier.
# TYPE fabvote_chaincode_proofs_checked_total counter
fabvote_chaincode_proofs_checked_total 7
`
	names := []string{"fabvote_chaincode_ballots_accepted_total", "fabvote_chaincode_ballots_rejected_total", "fabvote_chaincode_proofs_checked_total"}
	if err := testutil.CollectAndCompare(c, strings.NewReader(want), names...); err != nil {
		t.Fatal(err)
	}
	s.Accepted = 6
	if err := testutil.CollectAndCompare(c, strings.NewReader(strings.Replace(want, "total 5", "total 6", 1)), names...); err != nil {
		t.Fatalf("after one more ballot: %v", err)
	}
	if n := testutil.CollectAndCount(c); n != 7 {
		t.Fatalf("%d series, want 7 (5 counters and a gauge, one of them by 2 rejection codes)", n)
	}
}

// FABVOTE_OPS_ADDR: /metrics carries the contract's counters and /healthz
// fails (503, naming the chaincode listener) while CHAINCODE_SERVER_ADDRESS
// accepts no connection, and passes once it does.
func TestServeOps(t *testing.T) {
	cc := nettest.FreeAddr(t)
	t.Setenv("CHAINCODE_SERVER_ADDRESS", cc)
	addr := nettest.FreeAddr(t)
	if err := serveOps(addr, ballot.New(ballot.Config{})); err != nil {
		t.Fatal(err)
	}
	get := func(path string) (int, string) {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("/healthz"); code != 503 || !strings.Contains(body, "chaincode listener") {
		t.Fatalf("/healthz with the chaincode listener down: %d %s", code, body)
	}
	ln, err := net.Listen("tcp", cc)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if code, body := get("/healthz"); code != 200 {
		t.Fatalf("/healthz with the chaincode listener up: %d %s", code, body)
	}
	if _, body := get("/metrics"); !strings.Contains(body, "fabvote_chaincode_ballots_accepted_total 0") {
		t.Fatalf("/metrics lacks the contract's counters:\n%s", body)
	}
}

func TestServeOpsRefusesBusyAddress(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, addr := range []string{busy.Addr().String(), "not an address"} {
		if err := serveOps(addr, ballot.New(ballot.Config{})); err == nil || !strings.Contains(err.Error(), "FABVOTE_OPS_ADDR") {
			t.Errorf("serveOps(%q) = %v, want an error naming FABVOTE_OPS_ADDR", addr, err)
		}
	}
}
