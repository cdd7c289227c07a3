package paillier

import (
	"math/big"

	"github.com/fabvote/fabvote/crypto/paillier/arith"
	"runtime"
	"sync"
)

// productChunk is the smallest slice worth a goroutine of its own.
const productChunk = 256

// Product returns ∏ cs[i] mod N², the encryption of the sum of the plaintexts
// (the tally). The work is split over GOMAXPROCS goroutines. An empty slice
// gives 1, the encryption of 0 with nonce 1. Entries must be valid ciphertexts
// (callers validate them when they decode them); nil entries panic.
func (pk *PublicKey) Product(cs []*big.Int) *big.Int {
	workers := runtime.GOMAXPROCS(0)
	if n := (len(cs) + productChunk - 1) / productChunk; n < workers {
		workers = n
	}
	if workers <= 1 {
		return pk.productSeq(cs)
	}
	parts := make([]*big.Int, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		lo, hi := w*len(cs)/workers, (w+1)*len(cs)/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			parts[w] = pk.productSeq(cs[lo:hi])
		}()
	}
	wg.Wait()
	return pk.productSeq(parts)
}

// productSeq multiplies sequentially, reducing after every multiplication.
// (Multiplying pairs before reducing was measured and is slower with
// math/big: its division is schoolbook, so a 3-limb-long reduction costs as
// much as two short ones while the longer multiplication costs more.)
func (pk *PublicKey) productSeq(cs []*big.Int) *big.Int {
	return arith.MulAll(big.NewInt(1), cs, pk.NSquared)
}
