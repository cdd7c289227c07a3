package loadgen

import (
	"math"
	"sort"
	"time"
)

// Sample is the outcome of one transaction as the driver saw it.
type Sample struct {
	Index int       // position in the workload (ballot or prepared tx index)
	Start time.Time // when the driver began the transaction (proposal built)
	// Endorsed is when the endorsement came back (zero in replay mode, where
	// there is none, and on an endorsement failure).
	Endorsed time.Time
	// Done is when the outcome was known: commit event, endorsement result in
	// skip-commit mode, or the failure.
	Done   time.Time
	OK     bool
	Reason string // failure reason ("" when OK), see Reason* helpers
}

// Latency is Done − Start.
func (s *Sample) Latency() time.Duration { return s.Done.Sub(s.Start) }

// Percentiles of a latency distribution, in milliseconds.
type Percentiles struct {
	N    int     `json:"n"`
	Min  float64 `json:"min"`
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P95  float64 `json:"p95"`
	P99  float64 `json:"p99"`
	Max  float64 `json:"max"`
}

// Window is the steady part of a run: the interval between the completion of
// the ⌊trim·n⌋-th and the (n−⌊trim·n⌋)-th successful transaction (by completion
// time). Transactions completing before it belong to the ramp-up (the
// pipeline filling: the first blocks wait for the batch timeout or for enough
// load), those after it to the ramp-down (the tail draining with less than
// full blocks). TPS over the window is the committed count inside it divided
// by its length.
type Window struct {
	Trim    float64     `json:"trim"`      // fraction cut from each end
	From    float64     `json:"from"`      // seconds since the run started
	To      float64     `json:"to"`        // seconds since the run started
	Txs     int         `json:"txs"`       // successful transactions completing inside (From, To]
	TPS     float64     `json:"tps"`       // Txs / (To − From)
	Latency Percentiles `json:"latencyMs"` // of the transactions inside the window
}

// percentile returns the nearest-rank q-quantile (0 < q ≤ 1) of sorted.
func percentile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	r := int(math.Ceil(q*float64(len(sorted)))) - 1
	r = max(0, min(r, len(sorted)-1))
	return sorted[r]
}

// Summarize computes percentiles of durations (any order).
func Summarize(ds []time.Duration) Percentiles {
	if len(ds) == 0 {
		return Percentiles{}
	}
	ms := make([]float64, len(ds))
	sum := 0.0
	for i, d := range ds {
		ms[i] = float64(d) / float64(time.Millisecond)
		sum += ms[i]
	}
	sort.Float64s(ms)
	return Percentiles{
		N:    len(ms),
		Min:  round3(ms[0]),
		Mean: round3(sum / float64(len(ms))),
		P50:  round3(percentile(ms, 0.50)),
		P90:  round3(percentile(ms, 0.90)),
		P95:  round3(percentile(ms, 0.95)),
		P99:  round3(percentile(ms, 0.99)),
		Max:  round3(ms[len(ms)-1]),
	}
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

// SteadyWindow finds the steady window of the successful samples (see
// Window). With fewer than 3 successes left after trimming, or when they all
// completed at one instant (one block), it falls back to the whole run
// (From = 0, To = last completion).
func SteadyWindow(samples []Sample, runStart time.Time, trim float64) Window {
	var ok []Sample
	for _, s := range samples {
		if s.OK {
			ok = append(ok, s)
		}
	}
	w := Window{Trim: trim}
	if len(ok) == 0 {
		return w
	}
	sort.Slice(ok, func(i, j int) bool { return ok[i].Done.Before(ok[j].Done) })
	k := int(trim * float64(len(ok)))
	lo, hi := k, len(ok)-1-k
	// Commits arrive a block at a time, so completion instants repeat; a
	// window without at least two distinct instants (or too few samples) is
	// no window: fall back to the whole run.
	from, to := ok[lo].Done, ok[hi].Done
	whole := hi-lo < 2 || !to.After(from)
	if whole {
		from, to = runStart, ok[len(ok)-1].Done
	}
	// The window holds the transactions completing in (from, to]: whole
	// blocks, since a block's transactions share its commit instant. The
	// block that completes at from opens the window and is not in it, even
	// where the trim cut it in the middle.
	var lat []time.Duration
	for _, s := range ok {
		if (whole || s.Done.After(from)) && !s.Done.After(to) {
			lat = append(lat, s.Latency())
		}
	}
	w.From = round3(from.Sub(runStart).Seconds())
	w.To = round3(to.Sub(runStart).Seconds())
	w.Txs = len(lat)
	if d := to.Sub(from).Seconds(); d > 0 {
		w.TPS = round3(float64(w.Txs) / d)
	}
	w.Latency = Summarize(lat)
	return w
}

// Timeline counts successful completions per whole second since runStart.
func Timeline(samples []Sample, runStart time.Time) []int {
	var out []int
	for _, s := range samples {
		if !s.OK {
			continue
		}
		sec := int(s.Done.Sub(runStart) / time.Second)
		if sec < 0 {
			sec = 0
		}
		for len(out) <= sec {
			out = append(out, 0)
		}
		out[sec]++
	}
	return out
}
