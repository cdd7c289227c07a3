//go:build reliability

package reliability

import (
	"errors"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fabvote/fabvote/internal/ballotclient"
	"github.com/fabvote/fabvote/internal/gateway"
	"github.com/fabvote/fabvote/internal/nettest"
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
// send at 2·S open loop for 60 s (RELIABILITY_OVERLOAD_SECONDS), one
// attempt per send so that every refusal is seen, a refused ballot going back
// into the queue (castFor); then cast again what is still open. Asserted: every ballot ends up on the ledger exactly once,
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
	once := ballotclient.New(n.connect("EAMSP", "user1", "ballot", 1))
	retry := ballotclient.New(n.connect("EAMSP", "user2", "ballot", 12))
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
	overFor := time.Duration(envInt(t, "RELIABILITY_OVERLOAD_SECONDS", 60)) * time.Second
	over, attempts, recycled, open := castFor(t, once, left, rate, 20000, overFor)
	op50, op99 := over.latencies()
	t.Logf("OVERLOAD 2x: %d attempts at %.1f/s for %s (%d of them a refused ballot sent again): %d committed in the first pass (%.1f commits/s), "+
		"latency p50 %s p99 %s; %d attempts refused or failed %v; %d ballots left open (refused at the end, or commit status unknown)",
		attempts, rate, over.duration.Round(time.Second), recycled, len(over.commits), over.throughput(), op50.Round(time.Millisecond), op99.Round(time.Millisecond),
		over.firstFailed, over.errSamples, len(open))
	for k, v := range over.committed {
		all[k] = v
	}
	if len(open) > 0 {
		again := castSteady(t, retry, retry, open, 200, 64, 0, nil)
		if len(again.committed) != len(open) {
			t.Fatalf("%d of the %d ballots left open by the overload committed when cast again", len(again.committed), len(open))
		}
		t.Logf("OVERLOAD second pass: the %d open ballots cast again with retries: all committed (%d of them needed a second round, %s)", len(open), again.secondPass, again.duration.Round(time.Second))
		for k, v := range again.committed {
			all[k] = v
		}
	}
	checkLedger(t, once, set.id, all)
	// Recovery: a cast after the overload commits as fast as under saturation.
	after := castSteady(t, once, retry, set.ballots[total-afterN:], 2, 4, 0, nil)
	ap50, _ := after.latencies()
	t.Logf("OVERLOAD after: 20 ballots at 2/s: latency p50 %s (saturation p50 %s)", ap50.Round(time.Millisecond), p50.Round(time.Millisecond))
	if after.firstFailed > 0 || len(after.commits) != afterN || ap50 > 2*p50+time.Second {
		t.Fatalf("the network did not recover: %d failures, p50 %s", after.firstFailed, ap50)
	}
}

// castFor sends ballots open loop at rate per second for dur, one attempt per
// send through lc. A ballot refused before it could commit (the client gave
// up on a retryable error: the gateway's concurrency limit, an unavailable
// endorser, an MVCC conflict) goes back to the end of the queue, as a voter
// whose cast was refused tries again; so the offered load lasts the whole of
// dur even when most sends are refused, without needing rate×dur distinct
// ballots. It returns the run (firstFailed and errSamples count refused or
// failed sends), the number of sends and of re-sends, and the ballots whose
// outcome is still open: refused and not yet sent again when dur ended, or
// commit status unknown, or any other error. Ballots never sent are not part
// of the run.
func castFor(t *testing.T, lc *ballotclient.Client, ballots [][]byte, rate float64, inFlight int, dur time.Duration) (run *castRun, attempts, recycled int, open [][]byte) {
	t.Helper()
	ctx := nettest.Context(t, 20*time.Minute)
	run = newCastRun()
	q := newResendQueue(len(ballots))
	sem := make(chan struct{}, inFlight)
	var wg sync.WaitGroup
	interval := time.Duration(float64(time.Second) / rate)
	start := time.Now()
	for k := 0; ; k++ {
		at := start.Add(time.Duration(k) * interval)
		if at.Sub(start) >= dur {
			break
		}
		if d := time.Until(at); d > 0 {
			time.Sleep(d)
		}
		i, ok := q.next()
		if !ok { // every ballot is in flight: this slot's send is skipped
			continue
		}
		b := ballots[i]
		vkh := voterHash(t, b)
		sem <- struct{}{}
		wg.Add(1)
		attempts++
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			sent := time.Now()
			_, err := castOnce(ctx, lc, b)
			q.done(i, err)
			if err != nil {
				run.fail(err)
				return
			}
			run.commit(vkh, b, sent, 1)
		}(i)
	}
	wg.Wait()
	run.finish(start)
	for _, i := range q.open() {
		open = append(open, ballots[i])
	}
	return run, attempts, q.recycled, open
}

// resendQueue is castFor's queue of ballot indices waiting to be sent, in
// which a ballot refused before it could commit queues again.
type resendQueue struct {
	mu       sync.Mutex
	queue    []int
	tried    map[int]bool // sent at least once
	settled  map[int]bool // committed, or left for the caller (not to be sent again here)
	pending  []int        // settled without a commit: their outcome is open
	recycled int          // sends of a ballot sent before
}

func newResendQueue(n int) *resendQueue {
	q := &resendQueue{queue: make([]int, n), tried: map[int]bool{}, settled: map[int]bool{}}
	for i := range q.queue {
		q.queue[i] = i
	}
	return q
}

// next takes the next ballot to send; false when all are in flight.
func (q *resendQueue) next() (int, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.queue) == 0 {
		return 0, false
	}
	i := q.queue[0]
	q.queue = q.queue[1:]
	if q.tried[i] {
		q.recycled++
	}
	q.tried[i] = true
	return i, true
}

// done records the outcome of a send of ballot i: committed (err nil),
// refused before it could commit (sent again), or open (commit status
// unknown, any other error).
func (q *resendQueue) done(i int, err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if err != nil && !errors.Is(err, gateway.ErrCommitStatusUnknown) && strings.Contains(err.Error(), "gave up after") {
		q.queue = append(q.queue, i)
		return
	}
	q.settled[i] = true
	if err != nil {
		q.pending = append(q.pending, i)
	}
}

// open is the ballots whose outcome is open once sending stopped: settled
// without a commit, or refused and waiting to be sent again, in index
// order.
func (q *resendQueue) open() []int {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := append([]int(nil), q.pending...)
	for _, i := range q.queue {
		if q.tried[i] && !q.settled[i] {
			out = append(out, i)
		}
	}
	sort.Ints(out)
	return out
}
