package protocol

import (
	"context"
	"testing"
)

// BenchmarkCeremony2048 runs whole 2-of-3 ceremonies of a 2048-bit N over
// the memory transport, batches of 512 candidates. The work is geometric:
// compare runs with the reported candidates per op, not alone.
func BenchmarkCeremony2048(b *testing.B) {
	cfg := Config{Trustees: 3, K: 2, Bits: 2048, Ceremony: ceremony, Batch: 512}
	candidates, rounds := 0, 0
	for i := 0; b.Loop(); i++ {
		res := runAll(context.Background(), cfg, uint64(100+i), nil, nil)
		for j, err := range res.errs {
			if err != nil {
				b.Fatalf("trustee %d: %v", j+1, err)
			}
		}
		candidates += res.outs[0].Stats.Candidates
		rounds += res.outs[0].Stats.Rounds
	}
	b.ReportMetric(float64(candidates)/float64(b.N), "candidates/op")
	b.ReportMetric(float64(rounds)/float64(b.N), "rounds/op")
}
