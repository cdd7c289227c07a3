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
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	ctx, cancel := context.WithTimeout(ctx, cfg.MaxDuration)
	defer cancel()

	d := &driver{t: t, src: src, cfg: cfg, run: &Run{Start: time.Now()}}
	stopProgress := d.startProgress()
	if cfg.Rate > 0 {
		d.openLoop(ctx)
	} else {
		d.closedLoop(ctx)
	}
	d.run.End = time.Now()
	d.run.TimedOut = errors.Is(ctx.Err(), context.DeadlineExceeded)
	stopProgress()
	d.run.Samples = d.samples
	if d.srcErr != nil {
		return d.run, fmt.Errorf("reading the workload after %d transactions: %w", d.run.Sent, d.srcErr)
	}
	return d.run, nil
}

// validate rejects a Config no run can follow.
func (cfg Config) validate() error {
	if cfg.Rate < 0 {
		return fmt.Errorf("rate %v: want ≥ 0 (0 = closed loop)", cfg.Rate)
	}
	if cfg.Concurrency <= 0 {
		return fmt.Errorf("concurrency %d: want ≥ 1", cfg.Concurrency)
	}
	if cfg.Count < 0 {
		return fmt.Errorf("count %d: want ≥ 0 (0 = all)", cfg.Count)
	}
	return nil
}

// withDefaults fills the zero durations of cfg with the documented defaults.
func (cfg Config) withDefaults() Config {
	if cfg.MaxDuration <= 0 {
		cfg.MaxDuration = time.Hour
	}
	if cfg.ProgressEvery <= 0 {
		cfg.ProgressEvery = time.Second
	}
	return cfg
}

// driver is the state of one Drive call, shared by its sending goroutines,
// the transactions in flight and the progress reporter.
type driver struct {
	t   Target
	src Source
	cfg Config

	mu      sync.Mutex // guards src, samples, srcErr, run.Sent and run.CapWaits
	run     *Run
	samples []Sample
	srcErr  error

	ok, fail, inflight atomic.Int64
}

// next takes the next payload from the source and numbers it, or reports
// false once the source, the Count or the context has ended the run.
func (d *driver) next(ctx context.Context) (int, []byte, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.srcErr != nil || (d.cfg.Count > 0 && d.run.Sent >= d.cfg.Count) || ctx.Err() != nil {
		return 0, nil, false
	}
	p, err := d.src.Next()
	if err != nil {
		if !errors.Is(err, io.EOF) {
			d.srcErr = err
		}
		return 0, nil, false
	}
	i := d.run.Sent
	d.run.Sent++
	d.inflight.Add(1)
	return i, p, true
}

// one performs transaction i and records its sample.
func (d *driver) one(ctx context.Context, i int, p []byte) {
	s := d.t.Do(ctx, i, p)
	s.Index = i
	d.record(s)
}

// record counts a completed transaction and keeps its sample.
func (d *driver) record(s Sample) {
	d.inflight.Add(-1)
	if s.OK {
		d.ok.Add(1)
	} else {
		d.fail.Add(1)
	}
	d.mu.Lock()
	d.samples = append(d.samples, s)
	d.mu.Unlock()
}

// openLoop starts transaction n at n/Rate seconds after the run's start,
// whatever the latency, with at most Concurrency in flight, and returns when
// all have completed.
func (d *driver) openLoop(ctx context.Context) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, d.cfg.Concurrency)
	interval := time.Duration(float64(time.Second) / d.cfg.Rate)
	for n := 0; ; n++ {
		sleepUntil(ctx, d.run.Start.Add(time.Duration(n)*interval))
		d.acquireSlot(ctx, sem)
		i, p, more := d.next(ctx)
		if !more {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			d.one(ctx, i, p)
		}()
	}
	wg.Wait()
}

// sleepUntil waits until due or until ctx ends.
func sleepUntil(ctx context.Context, due time.Time) {
	if d := time.Until(due); d > 0 {
		select {
		case <-ctx.Done():
		case <-time.After(d):
		}
	}
}

// acquireSlot takes a place in sem, the open loop's in-flight cap. A send
// that has to wait for one is counted in Run.CapWaits, since the offered
// rate was then not met. It gives up when ctx ends, and the caller's next
// then ends the loop.
func (d *driver) acquireSlot(ctx context.Context, sem chan struct{}) {
	select {
	case sem <- struct{}{}:
		return
	default:
	}
	d.mu.Lock()
	d.run.CapWaits++
	d.mu.Unlock()
	select {
	case sem <- struct{}{}:
	case <-ctx.Done():
	}
}

// closedLoop runs Concurrency workers, each starting a transaction when its
// last one completed, and returns when all have stopped.
func (d *driver) closedLoop(ctx context.Context) {
	var wg sync.WaitGroup
	for w := 0; w < d.cfg.Concurrency; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i, p, more := d.next(ctx)
				if !more {
					return
				}
				d.one(ctx, i, p)
			}
		}()
	}
	wg.Wait()
}

// startProgress starts writing a status line to cfg.Progress every
// cfg.ProgressEvery, if a writer is set; the returned func stops it and
// waits until the last line is out.
func (d *driver) startProgress() (stop func()) {
	if d.cfg.Progress == nil {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		d.reportProgress(done)
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}

// reportProgress writes a status line on every tick until done is closed.
// The rate it shows is of the last interval, not the run's average.
func (d *driver) reportProgress(done <-chan struct{}) {
	tk := time.NewTicker(d.cfg.ProgressEvery)
	defer tk.Stop()
	last, lastT := int64(0), time.Now()
	for {
		select {
		case <-done:
			return
		case now := <-tk.C:
			o := d.ok.Load()
			d.mu.Lock()
			sent := d.run.Sent
			d.mu.Unlock()
			fmt.Fprintf(d.cfg.Progress, "%s %5.0fs sent %d ok %d failed %d in flight %d, %.1f tx/s now\n",
				d.cfg.Label, now.Sub(d.run.Start).Seconds(), sent, o, d.fail.Load(), d.inflight.Load(),
				float64(o-last)/now.Sub(lastT).Seconds())
			last, lastT = o, now
		}
	}
}
