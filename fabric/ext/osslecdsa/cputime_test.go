package osslecdsa

import (
	"syscall"
	"testing"
)

// processCPU returns the CPU time (user + system) this process has used, in
// nanoseconds. Benchmarks report it per operation as "cpu-ns/op" beside the
// wall time: on a machine shared with other work, wall time measures the
// contention as much as the code, CPU time much less so.
func processCPU(b *testing.B) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// reportCPU runs the benchmark loop f and reports cpu-ns/op.
func reportCPU(b *testing.B, f func()) {
	start := processCPU(b)
	n := 0
	for b.Loop() {
		f()
		n++
	}
	if n > 0 {
		b.ReportMetric(float64(processCPU(b)-start)/float64(n), "cpu-ns/op")
	}
}

// reportCPUParallel runs f from b.RunParallel's goroutines and reports
// cpu-ns/op; the benchmark fails if f reports a failure (returns false).
func reportCPUParallel(b *testing.B, f func() bool) {
	start := processCPU(b)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if !f() {
				b.Error("the benchmarked operation failed")
				return
			}
		}
	})
	b.ReportMetric(float64(processCPU(b)-start)/float64(b.N), "cpu-ns/op")
}
