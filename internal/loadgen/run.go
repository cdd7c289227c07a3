package loadgen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// Target performs one transaction. Do fills the Sample's Start, Endorsed,
// Done, OK and Reason; the driver sets Index. Do must be safe for concurrent use.
type Target interface {
	Do(ctx context.Context, index int, payload []byte) Sample
}

// Source yields the workload in order; io.EOF ends it. Next is called from
// one goroutine at a time.
type Source interface {
	Next() ([]byte, error)
}

// Config bounds and paces a run.
type Config struct {
	// Rate > 0 selects the open loop: transaction i starts at i/Rate seconds,
	// whatever the system's latency (fixed-rate mode, as Caliper's fixed-rate
	// controller). Rate = 0 selects the closed loop: Concurrency workers each
	// start a new transaction when their last one completed (max-rate mode).
	Rate float64
	// Concurrency is the closed loop's worker count, and the open loop's cap
	// on transactions in flight (a send that meets the cap waits and is
	// counted in Run.CapWaits: the offered rate was then not met).
	Concurrency int
	// Count bounds the number of transactions (0: until the source ends).
	Count int
	// MaxDuration bounds the whole run, sending and draining (0: 1 hour).
	MaxDuration time.Duration
	// Progress, if not nil, gets a status line every ProgressEvery (default 1 s).
	Progress      io.Writer
	ProgressEvery time.Duration
	// Label starts each progress line.
	Label string
}

// Run is what a run produced.
type Run struct {
	Start, End time.Time
	Samples    []Sample // in completion order
	Sent       int
	CapWaits   int  // open loop: sends that waited for the in-flight cap
	TimedOut   bool // MaxDuration ended the run
}

// Drive runs the workload from src through t under cfg.
func Drive(ctx context.Context, t Target, src Source, cfg Config) (*Run, error) {
	if cfg.Rate < 0 {
		return nil, fmt.Errorf("rate %v: want ≥ 0 (0 = closed loop)", cfg.Rate)
	}
	if cfg.Concurrency <= 0 {
		return nil, fmt.Errorf("concurrency %d: want ≥ 1", cfg.Concurrency)
	}
	if cfg.Count < 0 {
		return nil, fmt.Errorf("count %d: want ≥ 0 (0 = all)", cfg.Count)
	}
	if cfg.MaxDuration <= 0 {
		cfg.MaxDuration = time.Hour
	}
	if cfg.ProgressEvery <= 0 {
		cfg.ProgressEvery = time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.MaxDuration)
	defer cancel()

	var (
		mu       sync.Mutex
		samples  []Sample
		ok, fail atomic.Int64
		inflight atomic.Int64
		srcErr   error
	)
	run := &Run{Start: time.Now()}
	record := func(s Sample) {
		inflight.Add(-1)
		if s.OK {
			ok.Add(1)
		} else {
			fail.Add(1)
		}
		mu.Lock()
		samples = append(samples, s)
		mu.Unlock()
	}
	next := func() (int, []byte, bool) {
		mu.Lock()
		defer mu.Unlock()
		if srcErr != nil || (cfg.Count > 0 && run.Sent >= cfg.Count) || ctx.Err() != nil {
			return 0, nil, false
		}
		p, err := src.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				srcErr = err
			}
			return 0, nil, false
		}
		i := run.Sent
		run.Sent++
		inflight.Add(1)
		return i, p, true
	}
	one := func(i int, p []byte) {
		s := t.Do(ctx, i, p)
		s.Index = i
		record(s)
	}

	stopProgress := make(chan struct{})
	var pwg sync.WaitGroup
	if cfg.Progress != nil {
		pwg.Add(1)
		go func() {
			defer pwg.Done()
			tk := time.NewTicker(cfg.ProgressEvery)
			defer tk.Stop()
			last, lastT := int64(0), time.Now()
			for {
				select {
				case <-stopProgress:
					return
				case now := <-tk.C:
					o := ok.Load()
					mu.Lock()
					sent := run.Sent
					mu.Unlock()
					fmt.Fprintf(cfg.Progress, "%s %5.0fs sent %d ok %d failed %d in flight %d, %.1f tx/s now\n",
						cfg.Label, now.Sub(run.Start).Seconds(), sent, o, fail.Load(), inflight.Load(),
						float64(o-last)/now.Sub(lastT).Seconds())
					last, lastT = o, now
				}
			}
		}()
	}

	var wg sync.WaitGroup
	if cfg.Rate > 0 {
		sem := make(chan struct{}, cfg.Concurrency)
		interval := time.Duration(float64(time.Second) / cfg.Rate)
		for n := 0; ; n++ {
			due := run.Start.Add(time.Duration(n) * interval)
			if d := time.Until(due); d > 0 {
				select {
				case <-ctx.Done():
				case <-time.After(d):
				}
			}
			select {
			case sem <- struct{}{}:
			default:
				mu.Lock()
				run.CapWaits++
				mu.Unlock()
				select {
				case sem <- struct{}{}:
				case <-ctx.Done():
				}
			}
			i, p, more := next()
			if !more {
				break
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				one(i, p)
			}()
		}
	} else {
		for w := 0; w < cfg.Concurrency; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					i, p, more := next()
					if !more {
						return
					}
					one(i, p)
				}
			}()
		}
	}
	wg.Wait()
	run.End = time.Now()
	run.TimedOut = errors.Is(ctx.Err(), context.DeadlineExceeded)
	close(stopProgress)
	pwg.Wait()
	run.Samples = samples
	if srcErr != nil {
		return run, fmt.Errorf("reading the workload after %d transactions: %w", run.Sent, srcErr)
	}
	return run, nil
}
