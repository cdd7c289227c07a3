package ballotcheck

import (
	"fmt"
	"testing"

	"github.com/fabvote/fabvote/election/electiontest"
)

// BenchmarkCheckBlock500 is the plugin's check of a block of 500 valid
// ballots (2048-bit N, 4 candidates): every cheap check and one batched
// proof verification. Reported per ballot (ns/ballot, CPU of all cores).
//
// Physical bound: per ballot the combined check costs p = 4 weighted bases
// a_k and z_k with 64-bit exponents and one c with a ~192-bit exponent
// (Σ e_k ρ_k), i.e. with a shared multi-exponentiation about 64 squarings
// shared by the batch plus one multiplication per base and set exponent
// bit window: roughly 4·2 + 1 bases × (64/w + 1) multiplications mod N² for
// window width w, plus the block's one exponentiation by N (~2100
// multiplications, amortised over 500 ballots). With w = 4 that is on the
// order of 150–200 4096-bit modular multiplications per ballot; at ≈ 2 µs
// each (GMP) the proof check's floor is ≈ 0.3–0.4 ms per ballot, before
// the token and voter signature (two P-256 verifications).
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
	for it := 0; it < b.N; it++ {
		for i, err := range CheckBlock(nil, m, txs) {
			if err != nil {
				b.Fatal(fmt.Errorf("tx %d: %w", i, err))
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/ballot")
}
