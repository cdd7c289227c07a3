//go:build reliability

package reliability

import (
	"context"
	"encoding/json"
	"errors"
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
		t.Run(mode, func(t *testing.T) {
			n := startNet(t, "iso-"+mode, "solo-org", 0,
				"kvtransfer=./chaincode/kvtransfer/cmd/kvtransfer-cc ballot=./chaincode/ballot/cmd/ballot-cc",
				"FABVOTE_COMMIT_GATE="+mode, "BATCH_TIMEOUT=50ms", "NET_LOG_SPEC=endorser=debug:info")
			peerLog := filepath.Join(n.runDir, "logs", "peer0.ea.log")
			if c := countInLog(peerLog, `commit gate mode "`+mode+`"`); c == 0 {
				t.Fatalf("the peer's log does not say it runs the commit gate in mode %q", mode)
			}
			kv := n.connect("EAMSP", "user1", "kvtransfer", 20)
			ctx := testCtx(t, 10*time.Minute)
			if _, err := kv.Submit(ctx, "Init", []byte(strconv.Itoa(isoAccounts)), []byte(strconv.Itoa(isoAmount))); err != nil {
				t.Fatalf("Init: %v", err)
			}
			const want = isoAccounts * isoAmount
			var keys []string
			for i := 0; i < isoAccounts; i++ {
				keys = append(keys, fmt.Sprintf("acct%06d", i))
			}
			keysJSON, _ := json.Marshal(keys)

			// Ballots cast alongside: single-key transactions, the gate's fast path.
			e := newElection(t, bin, fmt.Sprintf("iso-%s-%d", mode, time.Now().Unix()), ballots)
			e.open(t, n.netJSON, 10*time.Minute)
			lc := ballotclient.New(n.connect("EAMSP", "user1", "ballot", 12))

			// Readers see the raw errors: one attempt each, counted, then again.
			rd := n.connect("EAMSP", "user2", "kvtransfer", 1)
			var (
				reads, readStale, readOther atomic.Int64
				bad                         atomic.Int64
				badSample                   atomic.Value
				xfer, xferRetries, xferFail atomic.Int64
				cast, castFail              atomic.Int64
			)
			stop := make(chan struct{})
			var readers, writers sync.WaitGroup
			for r := 0; r < 4; r++ {
				readers.Add(1)
				go func(r int) {
					defer readers.Done()
					for i := 0; ; i++ {
						select {
						case <-stop:
							return
						default:
						}
						fn, args := "Total", [][]byte(nil)
						if (i+r)%2 == 0 {
							fn, args = "ReadMany", [][]byte{keysJSON}
						}
						out, err := rd.Evaluate(ctx, fn, args...)
						if err != nil {
							if strings.Contains(err.Error(), staleText) {
								readStale.Add(1)
							} else {
								readOther.Add(1)
							}
							continue
						}
						reads.Add(1)
						if got, _ := strconv.Atoi(strings.TrimSpace(string(out))); got != want {
							bad.Add(1)
							badSample.Store(fmt.Sprintf("%s returned %q, want %d", fn, out, want))
						}
					}
				}(r)
			}
			per := transfers / 8
			for w := 0; w < 8; w++ {
				writers.Add(1)
				go func() {
					defer writers.Done()
					for i := 0; i < per; i++ {
						a, b := rand.IntN(isoAccounts), rand.IntN(isoAccounts-1)
						if b >= a {
							b++
						}
						r, err := kv.Submit(ctx, "Transfer", []byte(keys[a]), []byte(keys[b]), []byte(strconv.Itoa(1+rand.IntN(5))))
						if err != nil {
							xferFail.Add(1)
							t.Logf("transfer failed: %v", err)
							continue
						}
						xfer.Add(1)
						xferRetries.Add(int64(r.Attempts - 1))
					}
				}()
			}
			for w := 0; w < 4; w++ {
				writers.Add(1)
				go func(w int) {
					defer writers.Done()
					for i := w; i < len(e.ballots); i += 4 {
						if _, err := lc.CastBallot(ctx, e.ballots[i]); err != nil {
							castFail.Add(1)
							t.Logf("cast failed: %v", err)
							continue
						}
						cast.Add(1)
					}
				}(w)
			}
			t0 := time.Now()
			writers.Wait()
			close(stop)
			readers.Wait()
			el := time.Since(t0)

			// The final state holds the invariant, by both read paths.
			chk := n.connect("EAMSP", "admin", "kvtransfer", 8)
			for _, q := range []struct {
				fn   string
				args [][]byte
			}{{"Total", nil}, {"ReadMany", [][]byte{keysJSON}}} {
				out, err := chk.Evaluate(ctx, q.fn, q.args...)
				if err != nil {
					t.Fatalf("final %s: %v", q.fn, err)
				}
				if got, _ := strconv.Atoi(strings.TrimSpace(string(out))); got != want {
					t.Fatalf("final %s = %s, want %d", q.fn, out, want)
				}
			}
			endorserRetries := countInLog(peerLog, endorserRetryLog)
			height := strings.TrimSpace(n.mustNetsh("height"))
			t.Logf("ISOLATION %s: %s; %d transfers committed (%d gateway-client retries after MVCC conflicts, %d failed), "+
				"%d ballots committed (%d failed); %d multi-key reads all saw total %d (%d inconsistent); "+
				"reads failing with the gate's stale-snapshot error at the client: %d, other read errors: %d; "+
				"simulations the endorser re-ran after a stale snapshot (peer log): %d; height %s",
				mode, el.Round(time.Millisecond), xfer.Load(), xferRetries.Load(), xferFail.Load(), cast.Load(), castFail.Load(),
				reads.Load(), want, bad.Load(), readStale.Load(), readOther.Load(), endorserRetries, height)
			if bad.Load() > 0 {
				t.Fatalf("%d reads saw an inconsistent total, e.g. %v", bad.Load(), badSample.Load())
			}
			if reads.Load() == 0 {
				t.Fatal("no read succeeded")
			}
			if xfer.Load() == 0 || xferFail.Load() > int64(transfers/10) {
				t.Fatalf("%d transfers committed, %d failed", xfer.Load(), xferFail.Load())
			}
			if castFail.Load() > 0 {
				t.Fatalf("%d ballots failed", castFail.Load())
			}
			if mode == "locked" && (readStale.Load() > 0 || endorserRetries > 0) {
				t.Fatalf("mode locked produced stale-snapshot errors (client %d, endorser %d)", readStale.Load(), endorserRetries)
			}
		})
	}
}

var _ = errors.Is
var _ = context.Background
var _ = gateway.IsRetryable
