package zkp

import (
	"fmt"
	"math/big"
	"testing"

	"github.com/fabvote/fabvote/internal/benchcpu"
)

func BenchmarkEncryptAndProve(b *testing.B) {
	for _, bits := range []int{2048, 3072} {
		b.Run(fmt.Sprintf("N=%d", bits), func(b *testing.B) {
			ctx := testContext(b, testKey(b, bits), "voter")
			start := benchcpu.Now(b)
			for b.Loop() {
				c, r, err := ctx.PublicKey.Encrypt(nil, ctx.Messages[1])
				if err != nil {
					b.Fatal(err)
				}
				if _, err := ProveValidity(nil, ctx, c, 1, r); err != nil {
					b.Fatal(err)
				}
			}
			benchcpu.Report(b, start, 1)
		})
	}
}

func BenchmarkVerifyValidity(b *testing.B) {
	for _, bits := range []int{2048, 3072} {
		ctx := testContext(b, testKey(b, bits), "voter")
		c, pr := ballot(b, ctx, 2)
		for _, v := range []struct {
			name string
			f    func(*Context, *big.Int, *ValidityProof) error
		}{{"naive", VerifyValidityNaive}, {"optimized", VerifyValidity}} {
			b.Run(fmt.Sprintf("N=%d/%s", bits, v.name), func(b *testing.B) {
				start := benchcpu.Now(b)
				for b.Loop() {
					if err := v.f(ctx, c, pr); err != nil {
						b.Fatal(err)
					}
				}
				benchcpu.Report(b, start, 1)
			})
		}
	}
}

// BenchmarkVerifyBatch reports the cost per ballot (ns/ballot).
func BenchmarkVerifyBatch(b *testing.B) {
	sk := testKey(b, 2048)
	for _, size := range []int{16, 64, 256} {
		items := make([]BatchItem, size)
		for i := range items {
			ctx := testContext(b, sk, fmt.Sprintf("voter-%d", i))
			c, pr := ballot(b, ctx, i%len(ctx.Messages))
			items[i] = BatchItem{Ctx: ctx, C: c, Proof: pr}
		}
		b.Run(fmt.Sprintf("batch=%d", size), func(b *testing.B) {
			start := benchcpu.Now(b)
			for b.Loop() {
				for i, err := range VerifyBatch(nil, items) {
					if err != nil {
						b.Fatalf("item %d: %v", i, err)
					}
				}
			}
			benchcpu.Report(b, start, size)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*size), "ns/ballot")
		})
	}
}
