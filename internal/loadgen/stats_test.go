package loadgen

import (
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	tests := []struct {
		name   string
		sorted []float64
		q      float64
		want   float64
	}{
		{"empty", nil, 0.5, 0},
		{"one", []float64{7}, 0.99, 7},
		{"median of 4 is the 2nd", []float64{1, 2, 3, 4}, 0.5, 2},
		{"p90 of 10", []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0.9, 9},
		{"p99 of 10 is the max", []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0.99, 10},
		{"p100", []float64{1, 5}, 1, 5},
	}
	for _, tc := range tests {
		if got := percentile(tc.sorted, tc.q); got != tc.want {
			t.Errorf("%s: percentile(%v, %v) = %v, want %v", tc.name, tc.sorted, tc.q, got, tc.want)
		}
	}
}

func TestSummarize(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- { // unsorted on purpose
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	p := Summarize(ds)
	want := Percentiles{N: 100, Min: 1, Mean: 50.5, P50: 50, P90: 90, P95: 95, P99: 99, Max: 100}
	if p != want {
		t.Fatalf("Summarize = %+v, want %+v", p, want)
	}
	if z := Summarize(nil); z.N != 0 {
		t.Fatalf("Summarize(nil) = %+v", z)
	}
}

// samples makes n successes completing at 1 s, 2 s, … n s after t0, each
// started lat before its completion, plus failures that must be ignored.
func samples(t0 time.Time, n int, lat time.Duration) []Sample {
	var ss []Sample
	for i := 1; i <= n; i++ {
		done := t0.Add(time.Duration(i) * time.Second)
		ss = append(ss, Sample{Index: i, Start: done.Add(-lat), Done: done, OK: true})
		ss = append(ss, Sample{Index: -i, Start: t0, Done: done.Add(time.Hour), Reason: "commit: timeout"})
	}
	return ss
}

func TestSteadyWindow(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name     string
		n        int
		trim     float64
		from, to float64
		txs      int
		tps      float64
	}{
		// 10 successes at 1..10 s; trim 0.1 cuts one each end: window (2 s, 9 s], 7 tx.
		{"trim 10%", 10, 0.1, 2, 9, 7, 1},
		// trim 0: window (1 s, 10 s], 9 tx (the first completion opens it).
		{"no trim", 10, 0, 1, 10, 9, 1},
		// too few left: the whole run.
		{"fallback", 3, 0.4, 0, 3, 3, 1},
	}
	for _, tc := range tests {
		w := SteadyWindow(samples(t0, tc.n, 250*time.Millisecond), t0, tc.trim)
		if w.From != tc.from || w.To != tc.to || w.Txs != tc.txs || w.TPS != tc.tps {
			t.Errorf("%s: window %+v, want from %v to %v txs %d tps %v", tc.name, w, tc.from, tc.to, tc.txs, tc.tps)
		}
		if w.Latency.P50 != 250 {
			t.Errorf("%s: latency p50 %v, want 250", tc.name, w.Latency.P50)
		}
	}
	// One block: every completion at the same instant, 2 s after the start.
	var one []Sample
	for i := 0; i < 20; i++ {
		one = append(one, Sample{Start: t0.Add(time.Second), Done: t0.Add(2 * time.Second), OK: true})
	}
	if w := SteadyWindow(one, t0, 0.1); w.From != 0 || w.To != 2 || w.Txs != 20 || w.TPS != 10 {
		t.Fatalf("one-block run: %+v, want the whole run (0..2 s, 20 tx, 10 tx/s)", w)
	}
	if w := SteadyWindow(nil, t0, 0.1); w.Txs != 0 || w.TPS != 0 {
		t.Fatalf("empty run: %+v", w)
	}
}

// TestSteadyWindowWholeBlocks: with transactions committed a block at a
// time, the window counts whole blocks completing in (from, to], never the
// block that opens it, wherever the trim cuts.
func TestSteadyWindowWholeBlocks(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	blocks := func(n, size int) []Sample {
		var ss []Sample
		for b := 1; b <= n; b++ {
			done := t0.Add(time.Duration(b) * time.Second)
			for i := 0; i < size; i++ {
				ss = append(ss, Sample{Start: done.Add(-time.Second), Done: done, OK: true})
			}
		}
		return ss
	}
	tests := []struct {
		name     string
		ss       []Sample
		trim     float64
		from, to float64
		txs      int
	}{
		// 10 blocks of 100 at 1..10 s; trim 0.1 cuts at the first
		// transaction of block 2 and the last of block 9: blocks 3..9.
		{"cut at block edges", blocks(10, 100), 0.1, 2, 9, 700},
		// 10 blocks of 10; trim 0.15 cuts inside blocks 2 and 9: the
		// window is still (2 s, 9 s], blocks 3..9 whole.
		{"cut inside blocks", blocks(10, 10), 0.15, 2, 9, 70},
	}
	for _, tc := range tests {
		w := SteadyWindow(tc.ss, t0, tc.trim)
		if w.From != tc.from || w.To != tc.to || w.Txs != tc.txs {
			t.Errorf("%s: window %+v, want (%v s, %v s] with %d tx", tc.name, w, tc.from, tc.to, tc.txs)
		}
		if want := float64(tc.txs) / (tc.to - tc.from); w.TPS != round3(want) {
			t.Errorf("%s: TPS %v, want %v", tc.name, w.TPS, round3(want))
		}
	}
}

func TestTimeline(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ss := []Sample{
		{Done: t0.Add(100 * time.Millisecond), OK: true},
		{Done: t0.Add(900 * time.Millisecond), OK: true},
		{Done: t0.Add(2500 * time.Millisecond), OK: true},
		{Done: t0.Add(1500 * time.Millisecond), OK: false},
	}
	got := Timeline(ss, t0)
	want := []int{2, 0, 1}
	if len(got) != len(want) {
		t.Fatalf("Timeline = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Timeline = %v, want %v", got, want)
		}
	}
}
