package lockless

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Flags of BenchmarkEndorseBesideCommit. Every duration is multiplied by
// -gate.scale, so -gate.scale=0.1 runs the same shape ten times faster.
var (
	benchScale   = flag.Float64("gate.scale", 1, "multiply every simulated duration of BenchmarkEndorseBesideCommit by this")
	benchWorkers = flag.Int("gate.workers", 16, "concurrent simulated endorsements in BenchmarkEndorseBesideCommit")
	benchEvery   = flag.Duration("gate.commitevery", 100*time.Millisecond, "pause between two commits in BenchmarkEndorseBesideCommit (before scaling)")
	benchApply   = flag.Duration("gate.apply", 5*time.Millisecond, "time a commit holds the write lock in BenchmarkEndorseBesideCommit (before scaling)")
	benchJitter  = flag.Float64("gate.jitter", 0, "draw each simulation's D uniformly from D·[1-j, 1+j] in BenchmarkEndorseBesideCommit")
)

func scaled(d time.Duration) time.Duration { return time.Duration(float64(d) * *benchScale) }

// BenchmarkEndorseBesideCommit has the shape of Paneru (2021), Table 6.1:
// -gate.workers endorsements run at once, each holding its session for D
// (50, 200 or 500 ms; sleep-based, so no CPU is needed), while a committer
// commits every -gate.commitevery, holding the write lock for -gate.apply.
// With -gate.jitter each simulation's D varies, which keeps the locked
// endorsements from falling into lockstep. One b.N is one simulation. Reported: simulations per second, the time a
// commit waited for the lock (mean and max), retries per simulation.
//
// Workloads: "cast" is a transaction of one key as the patched peer runs
// it (the endorser's _lifecycle sequence read, then one key: delaywork's
// shape); "2keys" reads two keys before its work, as a ballot cast does
// (its ballot key and its tracker key), so it escalates in Lockless mode
// and, when a commit overlapped, retries with BeginLocked.
func BenchmarkEndorseBesideCommit(b *testing.B) {
	for _, work := range []string{"cast", "2keys"} {
		for _, ms := range []int{50, 200, 500} {
			for _, mode := range []Mode{Locked, Lockless} {
				name := fmt.Sprintf("%s/D=%dms/%s", work, ms, mode)
				b.Run(name, func(b *testing.B) {
					runEndorseBesideCommit(b, mode, work, scaled(time.Duration(ms)*time.Millisecond))
				})
			}
		}
	}
}

func runEndorseBesideCommit(b *testing.B, mode Mode, work string, d time.Duration) {
	g := New(mode)
	every, apply := scaled(*benchEvery), scaled(*benchApply)

	stop := make(chan struct{})
	var waits []time.Duration
	committerDone := make(chan struct{})
	go func() {
		defer close(committerDone)
		for {
			select {
			case <-stop:
				return
			case <-time.After(every):
			}
			t0 := time.Now()
			g.LockCommit()
			waits = append(waits, time.Since(t0))
			time.Sleep(apply)
			g.UnlockCommit()
		}
	}()

	var next atomic.Int64
	var retries atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for w := 0; w < *benchWorkers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(b.N) {
				for attempt := 0; ; attempt++ {
					var s *Session
					if attempt == 0 {
						s = g.Begin()
					} else {
						s = g.BeginLocked() // bounded retry, as the package doc advises
					}
					err := endorse(s, work, d)
					s.Done()
					if err == nil {
						break
					}
					if !IsRetryable(err) {
						b.Error(err)
						return
					}
					retries.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	close(stop)
	<-committerDone

	var sum, max time.Duration
	for _, w := range waits {
		sum += w
		if w > max {
			max = w
		}
	}
	mean := time.Duration(0)
	if len(waits) > 0 {
		mean = sum / time.Duration(len(waits))
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "sims/s")
	b.ReportMetric(float64(mean)/float64(time.Millisecond), "commit-wait-mean-ms")
	b.ReportMetric(float64(max)/float64(time.Millisecond), "commit-wait-max-ms")
	b.ReportMetric(float64(len(waits)), "commits")
	b.ReportMetric(float64(retries.Load())/float64(b.N), "retries/sim")
}

// endorse is one simulated endorsement: its reads, then d of work while the
// session is open.
func endorse(s *Session, work string, d time.Duration) error {
	if err := s.ReadUncounted("_lifecycle", "namespaces/fields/ballot/Sequence"); err != nil {
		return err
	}
	if err := s.Read("ballot", "voter"); err != nil {
		return err
	}
	if work == "2keys" {
		if err := s.Read("ballot", "manifest"); err != nil {
			return err
		}
	}
	if j := *benchJitter; j > 0 {
		d = time.Duration(float64(d) * (1 - j + 2*j*rand.Float64()))
	}
	time.Sleep(d)
	return nil
}

// BenchmarkSessionOverhead compares the cost of one session (Begin, reads,
// Done) with a bare RWMutex RLock/RUnlock, from all Ps at once.
func BenchmarkSessionOverhead(b *testing.B) {
	b.Run("RWMutex", func(b *testing.B) {
		var mu sync.RWMutex
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				mu.RLock()
				mu.RUnlock()
			}
		})
	})
	for _, tc := range []struct {
		mode Mode
		keys int
	}{{Locked, 1}, {Lockless, 1}, {Lockless, 2}} {
		b.Run(fmt.Sprintf("%s/keys=%d", tc.mode, tc.keys), func(b *testing.B) {
			g := New(tc.mode)
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					s := g.Begin()
					if err := s.Read("ns", "a"); err != nil {
						b.Error(err)
					}
					if tc.keys == 2 {
						if err := s.Read("ns", "b"); err != nil {
							b.Error(err)
						}
					}
					s.Done()
				}
			})
		})
	}
}
