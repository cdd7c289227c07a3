//go:build reliability

package reliability

import (
	"os"
	"sort"
	"testing"
	"time"

	"github.com/fabvote/fabvote/internal/ledger"
)

// latencies returns the median and 99th percentile of the first-pass commits.
func (r *castRun) latencies() (p50, p99 time.Duration) {
	var l []time.Duration
	for _, c := range r.commits {
		l = append(l, c.done.Sub(c.sent))
	}
	if len(l) == 0 {
		return 0, 0
	}
	sort.Slice(l, func(i, j int) bool { return l[i] < l[j] })
	return l[len(l)/2], l[len(l)*99/100]
}

// throughput is first-pass commits per second from the first send to the last commit.
func (r *castRun) throughput() float64 {
	if len(r.commits) == 0 {
		return 0
	}
	first, last := r.commits[0].sent, r.commits[0].done
	for _, c := range r.commits {
		if c.sent.Before(first) {
			first = c.sent
		}
		if c.done.After(last) {
			last = c.done
		}
	}
	return float64(len(r.commits)) / last.Sub(first).Seconds()
}

// TestOverload (RELIABILITY_OVERLOAD=1): on solo-org, measure the saturation
// rate S with 64 casts in flight for RELIABILITY_SAT_BALLOTS ballots, then
// send at 2·S open loop for up to 60 s (bounded by the ballots available),
// with one attempt per ballot so that every refusal is seen; then cast again
// what failed. Asserted: every ballot ends up on the ledger exactly once,
// nothing else is there, and after the overload a cast commits again within
// twice the saturation median latency.
func TestOverload(t *testing.T) {
	if os.Getenv("RELIABILITY_OVERLOAD") != "1" {
		t.Skip("RELIABILITY_OVERLOAD=1 runs the 2x saturation overload (several minutes and thousands of ballots)")
	}
	satN := envInt(t, "RELIABILITY_SAT_BALLOTS", 1500)
	total := envInt(t, "RELIABILITY_OVERLOAD_BALLOTS", 4000)
	bin := fabvoteBin(t)
	set := crashBallots(t, bin, total)
	n := startNet(t, "overload", "solo-org", 5, "ballot=./chaincode/ballot/cmd/ballot-cc")
	set.open(t, n.netJSON, 20*time.Minute)
	once := ledger.New(n.connect("EAMSP", "user1", "ballot", 1))
	retry := ledger.New(n.connect("EAMSP", "user2", "ballot", 12))
	all := map[string][]byte{}

	satConc := envInt(t, "RELIABILITY_SAT_CONCURRENCY", 400) // below gatewayService 500
	sat := castSteady(t, once, retry, set.ballots[:satN], 10000, satConc, 0, nil)
	s := sat.throughput()
	p50, p99 := sat.latencies()
	t.Logf("OVERLOAD saturation: %d ballots, %d in flight: %.1f commits/s, latency p50 %s p99 %s, first-pass failures %d %v",
		satN, satConc, s, p50.Round(time.Millisecond), p99.Round(time.Millisecond), sat.firstFailed, sat.errSamples)
	for k, v := range sat.committed {
		all[k] = v
	}
	rate := 2 * s
	const afterN = 20
	left := set.ballots[satN : total-afterN]
	count := min(len(left), int(rate*60))
	over := castSteady(t, once, retry, left[:count], rate, 20000, 0, nil)
	op50, op99 := over.latencies()
	t.Logf("OVERLOAD 2x: %d ballots sent at %.1f/s (%.0f s): %d committed in the first pass (%.1f commits/s), latency p50 %s p99 %s; "+
		"%d refused or failed in the first pass %v, all cast again and committed; total %s",
		count, rate, float64(count)/rate, len(over.commits), over.throughput(), op50.Round(time.Millisecond), op99.Round(time.Millisecond),
		over.firstFailed, over.errSamples, over.duration.Round(time.Second))
	for k, v := range over.committed {
		all[k] = v
	}
	if len(over.committed) != count {
		t.Fatalf("%d of %d ballots committed after the overload", len(over.committed), count)
	}
	checkLedger(t, once, set.id, all)
	// Recovery: a cast after the overload commits as fast as under saturation.
	after := castSteady(t, once, retry, set.ballots[satN+count:satN+count+afterN], 2, 4, 0, nil)
	ap50, _ := after.latencies()
	t.Logf("OVERLOAD after: 20 ballots at 2/s: latency p50 %s (saturation p50 %s)", ap50.Round(time.Millisecond), p50.Round(time.Millisecond))
	if after.firstFailed > 0 || len(after.commits) != afterN || ap50 > 2*p50+time.Second {
		t.Fatalf("the network did not recover: %d failures, p50 %s", after.firstFailed, ap50)
	}
}
