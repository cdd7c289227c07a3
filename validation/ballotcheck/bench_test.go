package ballotcheck

import (
	"fmt"
	"testing"

	"github.com/fabvote/fabvote/crypto/votecode"
	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/election/electiontest"
	"github.com/fabvote/fabvote/internal/benchcpu"
)

// BenchmarkCheckBlock500 is the plugin's check of a block of 500 valid
// ballots (2048-bit N, 4 candidates): every cheap check and one batched
// proof verification. Reported per ballot: wall time (ns/ballot) and the
// process's CPU time over all cores (cpu-ns/unit), which is what the
// plugin's cost per ballot means on a peer whose cores are busy anyway.
//
// Physical bound, counted in multiplications mod N² (4096-bit). Per ballot
// of p = 4 candidates the combined check has 2p = 8 bases (a_k mod N², z_k mod
// N) with 64-bit weights and one base c with a ≈ 194-bit exponent
// (Σ e_k·ρ_k); the exponentiation by N (≈ 2048 squarings and ≈ 400
// multiplications) is one per block. Pippenger over a block of 500: the
// 2000 a-bases at 8-bit windows take 8·(2000 + 2·2^8) ≈ 20.1k
// multiplications, the 500 c-bases at 6-bit windows 33·(500 + 2·2^6) ≈
// 20.7k, the 2000 z-bases as many as the a-bases but mod N (≈ 1/3.4 the
// cost), and the exponentiation by N ≈ 2.5k: ≈ 98 multiplications mod N² a
// ballot. One costs 4.1 µs as mpz_mul + mpz_tdiv_r and ≈ 2.9 µs inside
// GMP's own mpz_powm on the reference machine (Intel Xeon, 2 vCPUs;
// arith's BenchmarkMulMod4096 and BenchmarkExpN), so the proof alone needs
// 0.28–0.40 ms CPU a ballot; the token and the voter signature (two P-256
// verifications, ≈ 0.07 ms each there) come on top.
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

// BenchmarkCheckBlock500Contests is BenchmarkCheckBlock500 for ballots of
// three contests (a mayor, 1 of 4; a council, up to 2 of 5 or blank; a
// referendum, yes or no), each in the encoding of the cost rule
// (docs/PROTOCOL.md 3.7): what the plugin pays for the ballot of a
// municipal election against the one-question ballot.
func BenchmarkCheckBlock500Contests(b *testing.B) {
	setup(b)
	const id = "bench-contests"
	m := fix.Manifest(id)
	m.Contests = []election.Contest{
		election.NewContest("mayor", "Mayor", []string{"a", "b", "c", "d"}, 1, 1, false),
		election.NewContest("council", "Council", []string{"a", "b", "c", "d", "e"}, 0, 2, true),
		election.NewContest("referendum", "Referendum", []string{"yes", "no"}, 1, 1, false),
	}
	m.Styles = []election.Style{{ID: "all", Contests: []string{"mayor", "council", "referendum"}}}
	raw, err := m.Marshal()
	if err != nil {
		b.Fatal(err)
	}
	const n = 500
	txs := make([]*Tx, n)
	for i := range txs {
		v := electiontest.NewVoter()
		sels := []votecode.Selection{{Options: []int{i % 4}}, {Options: []int{i % 5}}, {Options: []int{i % 2}}}
		txs[i] = castTx(fix.ContestBallot(m, v, "all", sels), i)
	}
	cache := ManifestCache(func(key string) ([]byte, error) {
		if key == election.LedgerKey(election.ObjManifest, id) {
			return raw, nil
		}
		return nil, nil
	})
	b.ResetTimer()
	cpu0 := benchcpu.Now(b)
	for it := 0; it < b.N; it++ {
		for i, err := range CheckBlock(nil, cache, txs) {
			if err != nil {
				b.Fatal(fmt.Errorf("tx %d: %w", i, err))
			}
		}
	}
	benchcpu.Report(b, cpu0, n)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/ballot")
}
