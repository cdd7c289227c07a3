package arith

import (
	"fmt"
	"math/big"
	"testing"

	"github.com/fabvote/fabvote/internal/benchcpu"
)

// BenchmarkMultiExp: n bases modulo a 4096-bit modulus (N² for 2048-bit N),
// 64-bit exponents as in batch verification.
func BenchmarkMultiExp(b *testing.B) {
	m := new(big.Int).Add(randInt(b, 4095), new(big.Int).Lsh(big.NewInt(1), 4095))
	for _, n := range []int{4, 64, 256} {
		bases, exps := make([]*big.Int, n), make([]*big.Int, n)
		for i := range bases {
			bases[i] = new(big.Int).Mod(randInt(b, 4200), m)
			exps[i] = randInt(b, 64)
		}
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			start := benchcpu.Now(b)
			for b.Loop() {
				MultiExp(bases, exps, m)
			}
			benchcpu.Report(b, start, 1)
		})
		b.Run(fmt.Sprintf("n=%d/separate", n), func(b *testing.B) {
			start := benchcpu.Now(b)
			for b.Loop() {
				naive(bases, exps, m)
			}
			benchcpu.Report(b, start, 1)
		})
	}
}

// BenchmarkExpN is r^N mod N² at N = 2048 bits (a random odd 2048-bit N).
func BenchmarkExpN(b *testing.B) {
	n := new(big.Int).Add(randInt(b, 2047), new(big.Int).Lsh(big.NewInt(1), 2047))
	n.SetBit(n, 0, 1)
	n2 := new(big.Int).Mul(n, n)
	x := new(big.Int).Mod(randInt(b, 2048), n)
	start := benchcpu.Now(b)
	for b.Loop() {
		Exp(x, n, n2)
	}
	benchcpu.Report(b, start, 1)
}

// BenchmarkMulMod4096 is one multiplication modulo a 4096-bit modulus (N²
// for 2048-bit N), as the multi-exponentiations do it: MulAll over 1000
// values, reported per multiplication (ns/mul). With BenchmarkExpN (about
// 2048 squarings and 400 multiplications per op) it gives the cost that the
// batch check's count of multiplications is priced at.
func BenchmarkMulMod4096(b *testing.B) {
	m := new(big.Int).Add(randInt(b, 4095), new(big.Int).Lsh(big.NewInt(1), 4095))
	m.SetBit(m, 0, 1)
	xs := make([]*big.Int, 1000)
	for i := range xs {
		xs[i] = new(big.Int).Mod(randInt(b, 4096), m)
	}
	acc := big.NewInt(3)
	for b.Loop() {
		MulAll(acc, xs, m)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(xs)), "ns/mul")
}
