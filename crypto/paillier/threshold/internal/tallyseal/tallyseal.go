// Package tallyseal holds the one value that unlocks a trustee's partial
// decryption in fabvote's code: a tally ciphertext sealed by the code that
// recomputed it from verified ballots on the ledger.
//
// It is an internal package of crypto/paillier/threshold, so Go lets only
// that package and the packages below it import it: threshold, which opens a
// sealed tally in KeyShare.DecryptTally, and threshold/trustee, which seals
// one only after checking the ledger (see its package comment). Any other
// package of fabvote can hold a *Ciphertext it was given but cannot make
// one, so fabvote's own tools cannot point a share at a ciphertext of
// someone's choosing (a test checks that the shipped programs link no
// other importer of this package). The seal is no barrier to a program
// written against the library: it can import threshold/trustee, or work on
// a share's bytes directly, and decrypt anything with k shares. Keeping
// shares apart (internal/sharebox) is what stands in its way.
package tallyseal

import "math/big"

// Ciphertext is a sealed tally ciphertext.
type Ciphertext struct {
	c *big.Int
}

// Seal wraps a copy of c.
func Seal(c *big.Int) *Ciphertext {
	if c == nil {
		return nil
	}
	return &Ciphertext{c: new(big.Int).Set(c)}
}

// Value returns a copy of the sealed ciphertext, or nil for a nil or zero
// Ciphertext.
func (t *Ciphertext) Value() *big.Int {
	if t == nil || t.c == nil {
		return nil
	}
	return new(big.Int).Set(t.c)
}
