package zkp

import (
	"bytes"
	"errors"
	"fmt"
	"math/big"
	"sync"
	"testing"

	"github.com/fabvote/fabvote/crypto/paillier/arith"
)

// batchOf returns n valid ballots from distinct voters.
func batchOf(t *testing.T, bits, n int) []BatchItem {
	t.Helper()
	sk := testKey(t, bits)
	items := make([]BatchItem, n)
	// Two goroutines: making ballots is most of this package's test time.
	var wg sync.WaitGroup
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 2 {
				ctx := testContext(t, sk, fmt.Sprintf("voter-%d", i))
				c, r, err := ctx.PublicKey.Encrypt(nil, ctx.Messages[i%len(ctx.Messages)])
				if err == nil {
					var pr *ValidityProof
					pr, err = ProveValidity(nil, ctx, c, i%len(ctx.Messages), r)
					items[i] = BatchItem{Ctx: ctx, C: c, Proof: pr}
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	return items
}

func TestVerifyBatch(t *testing.T) {
	items := batchOf(t, 2048, 64)
	n := items[0].Ctx.PublicKey.N
	forge := func(name string, f func([]BatchItem) []BatchItem, bad ...int) struct {
		name  string
		items []BatchItem
		bad   []int
	} {
		cp := make([]BatchItem, len(items))
		copy(cp, items)
		return struct {
			name  string
			items []BatchItem
			bad   []int
		}{name, f(cp), bad}
	}
	for _, tc := range []struct {
		name  string
		items []BatchItem
		bad   []int
	}{
		forge("all valid", func(b []BatchItem) []BatchItem { return b }),
		forge("one equation forged", func(b []BatchItem) []BatchItem {
			pr := cloneProof(b[37].Proof)
			pr.Z[2].Lsh(pr.Z[2], 1).Mod(pr.Z[2], n)
			canonicalZ(pr.Z[2], n)
			b[37].Proof = pr
			return b
		}, 37),
		forge("one challenge sum wrong", func(b []BatchItem) []BatchItem {
			pr := cloneProof(b[5].Proof)
			pr.E[0].Xor(pr.E[0], big.NewInt(1))
			b[5].Proof = pr
			return b
		}, 5),
		forge("compensating forgeries across two ballots", func(b []BatchItem) []BatchItem {
			// z·s in one ballot and z·s^-1 in another: the product of the two
			// errors is 1, so equal weights would accept both.
			s := big.NewInt(5)
			p1, p2 := cloneProof(b[10].Proof), cloneProof(b[20].Proof)
			p1.Z[0].Mul(p1.Z[0], s).Mod(p1.Z[0], n)
			p2.Z[0].Mul(p2.Z[0], new(big.Int).ModInverse(s, n)).Mod(p2.Z[0], n)
			canonicalZ(p1.Z[0], n)
			canonicalZ(p2.Z[0], n)
			b[10].Proof, b[20].Proof = p1, p2
			return b
		}, 10, 20),
		forge("many forged, some adjacent", func(b []BatchItem) []BatchItem {
			for _, i := range []int{0, 1, 31, 32, 62, 63} {
				pr := cloneProof(b[i].Proof)
				pr.Z[1].Lsh(pr.Z[1], 1).Mod(pr.Z[1], n)
				canonicalZ(pr.Z[1], n)
				b[i].Proof = pr
			}
			return b
		}, 0, 1, 31, 32, 62, 63),
		forge("ballot replayed under another voter", func(b []BatchItem) []BatchItem {
			b[63].C, b[63].Proof = b[0].C, b[0].Proof
			return b
		}, 63),
		forge("nil proof and nil context", func(b []BatchItem) []BatchItem {
			b[1].Proof = nil
			b[2].Ctx = nil
			return b
		}, 1, 2),
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs := VerifyBatch(nil, tc.items)
			if len(errs) != len(tc.items) {
				t.Fatalf("%d errors for %d items", len(errs), len(tc.items))
			}
			bad := map[int]bool{}
			for _, i := range tc.bad {
				bad[i] = true
			}
			for i, err := range errs {
				if bad[i] {
					if err == nil || !(errors.Is(err, ErrInvalidProof) || errors.Is(err, ErrInvalidContext)) {
						t.Errorf("item %d: err = %v, want a rejection", i, err)
					} else if want := fmt.Sprintf("batch item %d:", i); err.Error()[:len(want)] != want {
						t.Errorf("item %d: error %q does not name the item", i, err)
					}
				} else if err != nil {
					t.Errorf("item %d: valid ballot rejected: %v", i, err)
				}
			}
		})
	}
}

func TestVerifyBatchMixedKeys(t *testing.T) {
	items := append(batchOf(t, 2048, 3), batchOf(t, 3072, 2)...)
	forged := cloneProof(items[4].Proof)
	forged.A[0], forged.A[1] = forged.A[1], forged.A[0]
	items[4].Proof = forged
	errs := VerifyBatch(nil, items)
	for i, err := range errs {
		if (i == 4) != (err != nil) {
			t.Errorf("item %d: err = %v", i, err)
		}
	}
	if errs := VerifyBatch(nil, nil); len(errs) != 0 {
		t.Fatalf("empty batch returned %d errors", len(errs))
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("no entropy") }

func TestVerifyBatchRandomnessFailure(t *testing.T) {
	items := batchOf(t, 2048, 2)
	for i, err := range VerifyBatch(failingReader{}, items) {
		if err == nil {
			t.Errorf("item %d accepted without verifier randomness", i)
		}
	}
}

// TestBitSlicesRecombine: the slices' products recombine to the whole
// multi-exponentiation, for every worker count and exponent length, and the
// slices cover every bit exactly once.
func TestBitSlicesRecombine(t *testing.T) {
	m := big.NewInt(1000003 * 998244353)
	for _, bits := range []int{1, 11, 64, 194} {
		bases, exps := make([]*big.Int, 40), make([]*big.Int, 40) // ≥ minSplitBases
		for i := range bases {
			bases[i] = big.NewInt(int64(7 + 13*i))
			exps[i] = new(big.Int).Rsh(new(big.Int).SetBytes(bytes.Repeat([]byte{byte(0x5b + i)}, 25)), uint(200-bits))
		}
		want := arith.MultiExp(bases, exps, m)
		for _, workers := range []int{1, 2, 3, 8} {
			got, next := big.NewInt(1), 0
			for _, sl := range bitSlices(exps, workers) {
				if sl.lo != next || sl.hi <= sl.lo {
					t.Fatalf("bits=%d workers=%d: slice [%d, %d) after bit %d", bits, workers, sl.lo, sl.hi, next)
				}
				next = sl.hi
				got.Mul(got, multiExpSlice(bases, exps, sl, m)).Mod(got, m)
			}
			if next != bits {
				t.Fatalf("bits=%d workers=%d: slices end at bit %d", bits, workers, next)
			}
			if n := len(bitSlices(exps[:minSplitBases-1], workers)); n != 1 {
				t.Fatalf("bits=%d workers=%d: %d slices for %d bases, want 1", bits, workers, n, minSplitBases-1)
			}
			if got.Cmp(want) != 0 {
				t.Errorf("bits=%d workers=%d: recombined product differs", bits, workers)
			}
		}
	}
}
