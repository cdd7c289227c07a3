//go:build reliability

package reliability

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fabvote/fabvote/internal/ballotclient"
	"github.com/fabvote/fabvote/internal/gateway"
	"github.com/fabvote/fabvote/internal/nettest"
)

const (
	isoAccounts = 20
	isoAmount   = 1000
	// staleText is the lockless gate's retryable error (txmgr/lockless.ErrStaleSnapshot).
	staleText = "simulation overlapped a ledger commit"
	// endorserRetryLog is what patch 0006 logs (endorser, debug) when it simulates again.
	endorserRetryLog = "simulation overlapped a commit; simulating again"
)

// TestIsolation runs kvtransfer's two-key Transfers and multi-key reads
// (ReadMany of every account, Total by range query) concurrently with ballot
// casting and block commits, first with FABVOTE_COMMIT_GATE=lockless and then
// locked, and asserts that every successful read sees the invariant total.
func TestIsolation(t *testing.T) {
	transfers := envInt(t, "RELIABILITY_TRANSFERS", 400)
	ballots := envInt(t, "RELIABILITY_ISO_BALLOTS", 100)
	bin := fabvoteBin(t)
	for _, mode := range []string{"lockless", "locked"} {
		t.Run(mode, func(t *testing.T) { runIsolation(t, bin, mode, transfers, ballots) })
	}
}

// isoTotal is the invariant: the sum of every account's balance.
const isoTotal = isoAccounts * isoAmount

// runIsolation is one mode of TestIsolation on its own network: the load,
// then the final state by both read paths, then the counts.
func runIsolation(t *testing.T, bin, mode string, transfers, ballots int) {
	n := startNet(t, "iso-"+mode, "solo-org", 0,
		"kvtransfer=./chaincode/kvtransfer/cmd/kvtransfer-cc ballot=./chaincode/ballot/cmd/ballot-cc",
		"FABVOTE_COMMIT_GATE="+mode, "BATCH_TIMEOUT=50ms", "NET_LOG_SPEC=endorser=debug:info")
	peerLog := filepath.Join(n.runDir, "logs", "peer0.ea.log")
	if c := countInLog(peerLog, `commit gate mode "`+mode+`"`); c == 0 {
		t.Fatalf("the peer's log does not say it runs the commit gate in mode %q", mode)
	}
	ctx := nettest.Context(t, 10*time.Minute)
	l := &isoLoad{ctx: ctx, kv: n.connect("EAMSP", "user1", "kvtransfer", 20)}
	if _, err := l.kv.Submit(ctx, "Init", []byte(strconv.Itoa(isoAccounts)), []byte(strconv.Itoa(isoAmount))); err != nil {
		t.Fatalf("Init: %v", err)
	}
	for i := 0; i < isoAccounts; i++ {
		l.keys = append(l.keys, fmt.Sprintf("acct%06d", i))
	}
	l.keysJSON, _ = json.Marshal(l.keys)
	// Ballots cast alongside: single-key transactions, the gate's fast path.
	e := newElection(t, bin, fmt.Sprintf("iso-%s-%d", mode, time.Now().Unix()), ballots)
	e.open(t, n.netJSON, 10*time.Minute)
	l.lc = ballotclient.New(n.connect("EAMSP", "user1", "ballot", 12))
	// Readers see the raw errors: one attempt each, counted, then again.
	l.rd = n.connect("EAMSP", "user2", "kvtransfer", 1)
	el := l.run(t, transfers/8, e.ballots)
	l.checkFinal(t, n.connect("EAMSP", "admin", "kvtransfer", 8))
	endorserRetries := countInLog(peerLog, endorserRetryLog)
	height := strings.TrimSpace(n.mustNetsh("height"))
	t.Logf("ISOLATION %s: %s; %d transfers committed (%d gateway-client retries after MVCC conflicts, %d failed), "+
		"%d ballots committed (%d failed); %d multi-key reads all saw total %d (%d inconsistent); "+
		"reads failing with the gate's stale-snapshot error at the client: %d, other read errors: %d; "+
		"simulations the endorser re-ran after a stale snapshot (peer log): %d; height %s",
		mode, el.Round(time.Millisecond), l.xfer.Load(), l.xferRetries.Load(), l.xferFail.Load(), l.cast.Load(), l.castFail.Load(),
		l.reads.Load(), isoTotal, l.bad.Load(), l.readStale.Load(), l.readOther.Load(), endorserRetries, height)
	l.check(t, mode, transfers, endorserRetries)
}

// isoLoad is the concurrent load of one isolation run and what it counted.
type isoLoad struct {
	ctx      context.Context
	kv, rd   *gateway.Conn        // transfers; reads (one attempt each)
	lc       *ballotclient.Client // ballots
	keys     []string
	keysJSON []byte

	reads, readStale, readOther atomic.Int64
	bad                         atomic.Int64
	badSample                   atomic.Value
	xfer, xferRetries, xferFail atomic.Int64
	cast, castFail              atomic.Int64
}

// run has 4 readers read while 8 writers make per transfers each and 4
// more cast the ballots; it returns how long the writers took.
func (l *isoLoad) run(t *testing.T, per int, ballots [][]byte) time.Duration {
	stop := make(chan struct{})
	var readers, writers sync.WaitGroup
	for r := 0; r < 4; r++ {
		readers.Add(1)
		go func(r int) { defer readers.Done(); l.read(r, stop) }(r)
	}
	for w := 0; w < 8; w++ {
		writers.Add(1)
		go func() { defer writers.Done(); l.transfer(t, per) }()
	}
	for w := 0; w < 4; w++ {
		writers.Add(1)
		go func(w int) { defer writers.Done(); l.castEvery4th(t, ballots, w) }(w)
	}
	t0 := time.Now()
	writers.Wait()
	close(stop)
	readers.Wait()
	return time.Since(t0)
}

// read alternates Total and ReadMany (reader r starting at its own one)
// until stop, counting the reads that fail and those that see a total other
// than the invariant.
func (l *isoLoad) read(r int, stop <-chan struct{}) {
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		fn, args := "Total", [][]byte(nil)
		if (i+r)%2 == 0 {
			fn, args = "ReadMany", [][]byte{l.keysJSON}
		}
		out, err := l.rd.Evaluate(l.ctx, fn, args...)
		if err != nil {
			if strings.Contains(err.Error(), staleText) {
				l.readStale.Add(1)
			} else {
				l.readOther.Add(1)
			}
			continue
		}
		l.reads.Add(1)
		if got, _ := strconv.Atoi(strings.TrimSpace(string(out))); got != isoTotal {
			l.bad.Add(1)
			l.badSample.Store(fmt.Sprintf("%s returned %q, want %d", fn, out, isoTotal))
		}
	}
}

// transfer moves 1 to 5 units between two random distinct accounts, n
// times.
func (l *isoLoad) transfer(t *testing.T, n int) {
	for i := 0; i < n; i++ {
		a, b := rand.IntN(isoAccounts), rand.IntN(isoAccounts-1)
		if b >= a {
			b++
		}
		r, err := l.kv.Submit(l.ctx, "Transfer", []byte(l.keys[a]), []byte(l.keys[b]), []byte(strconv.Itoa(1+rand.IntN(5))))
		if err != nil {
			l.xferFail.Add(1)
			t.Logf("transfer failed: %v", err)
			continue
		}
		l.xfer.Add(1)
		l.xferRetries.Add(int64(r.Attempts - 1))
	}
}

// castEvery4th casts ballots w, w+4, w+8, ….
func (l *isoLoad) castEvery4th(t *testing.T, ballots [][]byte, w int) {
	for i := w; i < len(ballots); i += 4 {
		if _, err := l.lc.CastBallot(l.ctx, ballots[i]); err != nil {
			l.castFail.Add(1)
			t.Logf("cast failed: %v", err)
			continue
		}
		l.cast.Add(1)
	}
}

// checkFinal requires the final state to hold the invariant, by both read
// paths.
func (l *isoLoad) checkFinal(t *testing.T, chk *gateway.Conn) {
	for _, q := range []struct {
		fn   string
		args [][]byte
	}{{"Total", nil}, {"ReadMany", [][]byte{l.keysJSON}}} {
		out, err := chk.Evaluate(l.ctx, q.fn, q.args...)
		if err != nil {
			t.Fatalf("final %s: %v", q.fn, err)
		}
		if got, _ := strconv.Atoi(strings.TrimSpace(string(out))); got != isoTotal {
			t.Fatalf("final %s = %s, want %d", q.fn, out, isoTotal)
		}
	}
}

// check asserts on the counts: no inconsistent read, some reads and
// transfers through, at most a tenth of the transfers failed, no ballot
// failed, and in mode locked no stale snapshot at all.
func (l *isoLoad) check(t *testing.T, mode string, transfers, endorserRetries int) {
	if l.bad.Load() > 0 {
		t.Fatalf("%d reads saw an inconsistent total, e.g. %v", l.bad.Load(), l.badSample.Load())
	}
	if l.reads.Load() == 0 {
		t.Fatal("no read succeeded")
	}
	if l.xfer.Load() == 0 || l.xferFail.Load() > int64(transfers/10) {
		t.Fatalf("%d transfers committed, %d failed", l.xfer.Load(), l.xferFail.Load())
	}
	if l.castFail.Load() > 0 {
		t.Fatalf("%d ballots failed", l.castFail.Load())
	}
	if mode == "locked" && (l.readStale.Load() > 0 || endorserRetries > 0) {
		t.Fatalf("mode locked produced stale-snapshot errors (client %d, endorser %d)", l.readStale.Load(), endorserRetries)
	}
}
