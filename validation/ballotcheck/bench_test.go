package ballotcheck

import (
	"fmt"
	"testing"

	"github.com/fabvote/fabvote/election/electiontest"
	"github.com/fabvote/fabvote/internal/benchcpu"
)

// BenchmarkCheckBlock500 is the plugin's check of a block of 500 valid
// ballots (2048-bit N, 4 candidates): every cheap check and one batched
// proof verification. Reported per ballot: wall time (ns/ballot) and the
// process's CPU time over all cores (cpu-ns/unit), which is what the
// plugin's cost per ballot means on a peer whose cores are busy anyway.
//
// Physical bound, counted in multiplications mod N² (4096-bit, ≈ 2 µs each
// on GMP here). Per ballot of p = 4 candidates the combined check has 2p = 8
// bases (a_k, z_k) with 64-bit weights and one base c with a ≈ 192-bit
// exponent (Σ e_k·ρ_k); the exponentiation by N (≈ 2048 squarings) is one
// per block, ≈ 4 per ballot over 500. With a 4-bit-window multi-
// exponentiation each 64-bit base costs ≈ 16 table and ≈ 16 window
// multiplications, and c ≈ 64: ≈ 8·32 + 64 ≈ 320 multiplications ≈ 0.64 ms.
// A Pippenger multi-exponentiation over the block's 4000 short bases
// (window ≈ 10 bits: ≈ 64/10·(4000 + 2^10) ≈ 32k multiplications) costs
// ≈ 64 per ballot, and ≈ 60 for c: ≈ 130 multiplications ≈ 0.26 ms, the
// floor of the proof check; the token and the voter signature (two P-256
// verifications) come on top.
func BenchmarkCheckBlock500(b *testing.B) {
	setup(b)
	const n = 500
	txs := make([]*Tx, n)
	for i := range txs {
		v := electiontest.NewVoter()
		txs[i] = castTx(fix.Ballot(fixMan, v, i%4), i)
	}
	m := manifests(b)
	b.ResetTimer()
	cpu0 := benchcpu.Now(b)
	for it := 0; it < b.N; it++ {
		for i, err := range CheckBlock(nil, m, txs) {
			if err != nil {
				b.Fatal(fmt.Errorf("tx %d: %w", i, err))
			}
		}
	}
	benchcpu.Report(b, cpu0, n)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/ballot")
}
