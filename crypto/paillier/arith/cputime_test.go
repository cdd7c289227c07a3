//go:build unix

package arith

import (
	"syscall"
	"testing"
	"time"
)

// processCPU is the CPU time (user + system) used so far by this process.
// Benchmarks report it per operation as "cpu-ns/op": on this shared 2-core
// machine wall time swings with other people's load, CPU time much less.
func processCPU(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU time since start per operation (and per unit,
// when units > 1, e.g. ballots in a batch).
func reportCPU(b *testing.B, start time.Duration, units int) {
	cpu := float64(processCPU(b) - start)
	b.ReportMetric(cpu/float64(b.N), "cpu-ns/op")
	if units > 1 {
		b.ReportMetric(cpu/float64(b.N*units), "cpu-ns/unit")
	}
}
