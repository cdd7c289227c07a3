package election

import (
	"math/big"
	"testing"

	"github.com/fabvote/fabvote/crypto/paillier"
	"github.com/fabvote/fabvote/crypto/votecode"
)

// checkNoWrap accepts ballotCount·M^(p-1) up to N-1 and refuses from N on.
// No manifest with the test key's 2048-bit N reaches the bound with a
// 64-bit ballotCount, so the encoding is set by hand (64 bits, 32 candidates).
func TestCheckNoWrapEdge(t *testing.T) {
	n := new(big.Int).Lsh(big.NewInt(1), 2047)
	n.Add(n, big.NewInt(12345)) // odd, 2048 bits
	p := &Prepared{PublicKey: &paillier.PublicKey{N: n}, Encoding: votecode.Encoding{Bits: 64, Candidates: 32}}
	top := new(big.Int).Lsh(big.NewInt(1), 64*31)
	limit := new(big.Int).Div(new(big.Int).Sub(n, big.NewInt(1)), top) // largest count with count·M^31 < N
	if !limit.IsUint64() {
		t.Fatal("test bound does not fit 64 bits")
	}
	if err := p.checkNoWrap(limit.Uint64()); err != nil {
		t.Fatalf("count %d: %v", limit.Uint64(), err)
	}
	if err := p.checkNoWrap(limit.Uint64() + 1); CodeOf(err) != CodeResult {
		t.Fatalf("count %d: %v, want RESULT", limit.Uint64()+1, err)
	}
}
