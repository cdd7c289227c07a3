package threshold

import (
	"math/big"
	"sync/atomic"

	"github.com/fabvote/fabvote/crypto/paillier/threshold/internal/testseal"
)

// SealedTally is a tally ciphertext sealed by the program's Sealer: the only
// input KeyShare.DecryptTally accepts. Its fields are unexported, so outside
// this package a SealedTally comes only from Sealer.Seal (or is the zero
// value, which DecryptTally refuses).
type SealedTally struct {
	c *big.Int
}

// Ciphertext returns a copy of the sealed ciphertext, or nil for a nil or
// zero SealedTally.
func (t *SealedTally) Ciphertext() *big.Int {
	if t == nil || t.c == nil {
		return nil
	}
	return new(big.Int).Set(t.c)
}

// seal wraps a copy of c; nil for a nil c.
func seal(c *big.Int) *SealedTally {
	if c == nil {
		return nil
	}
	return &SealedTally{c: new(big.Int).Set(c)}
}

// Sealer seals tally ciphertexts for KeyShare.DecryptTally. A process has at
// most one: ClaimSealer hands it to its first caller and refuses every later
// one, so the package that claims it at initialisation is the only code of
// the program that can have a share decrypt. In fabvote that is
// internal/trustee, which seals a tally only after recomputing it from the
// verified ballots of the ledger; a test of that package checks that no
// other package of the module calls ClaimSealer.
//
// This binds fabvote's own code, not a program written against this
// library: such a program can claim the Sealer itself, or work on a share's
// bytes directly, and decrypt anything with K shares. Keeping shares apart
// (internal/sharebox) is what stands in its way.
type Sealer struct {
	// A non-zero size: two Sealers then never share an address, and Seal
	// recognises the claimed one by its pointer alone.
	_ byte
}

// theSealer is the Sealer ClaimSealer handed out, nil until then.
var theSealer atomic.Pointer[Sealer]

// ClaimSealer returns the process's Sealer to its first caller; every later
// call returns ErrSealerClaimed. It is safe for concurrent use.
func ClaimSealer() (*Sealer, error) {
	s := new(Sealer)
	if !theSealer.CompareAndSwap(nil, s) {
		return nil, ErrSealerClaimed
	}
	return s, nil
}

// Seal wraps a copy of c for DecryptTally. It returns nil, which
// DecryptTally refuses with ErrUnsealedTally, for a nil c and for any
// Sealer other than the one ClaimSealer handed out (a nil, zero or copied
// Sealer).
func (s *Sealer) Seal(c *big.Int) *SealedTally {
	if s == nil || s != theSealer.Load() {
		return nil
	}
	return seal(c)
}

// thresholdtest's PartialDecrypt seals through this hook, in test binaries
// only; Go's internal-package rule keeps the hook from every package outside
// crypto/paillier/threshold.
func init() {
	testseal.Seal = func(c *big.Int) any { return seal(c) }
}
