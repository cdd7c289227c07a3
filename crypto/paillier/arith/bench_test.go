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
