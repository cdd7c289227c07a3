//go:build unix

// Package benchcpu lets benchmarks report process CPU time per operation
// ("cpu-ns/op") beside wall time. On a shared 2-core machine wall time swings
// with other people's load; CPU time much less, so the two together tell
// what a quiet machine would show.
package benchcpu

import (
	"syscall"
	"testing"
	"time"
)

// Now is the CPU time (user + system, all threads) this process has used so far.
func Now(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Report reports the CPU time since start per operation, and per unit when
// units > 1 (e.g. ballots in a batch).
func Report(b *testing.B, start time.Duration, units int) {
	cpu := float64(Now(b) - start)
	b.ReportMetric(cpu/float64(b.N), "cpu-ns/op")
	if units > 1 {
		b.ReportMetric(cpu/float64(b.N*units), "cpu-ns/unit")
	}
}
