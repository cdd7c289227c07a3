// Package testseal carries package threshold's sealing of an arbitrary
// ciphertext to thresholdtest, whose PartialDecrypt lets tests decrypt
// ciphertexts of their choosing and refuses to run outside a test binary.
//
// It is internal to crypto/paillier/threshold, so Go lets no package outside
// that tree import it: the rest of fabvote can seal a tally only with the
// Sealer that threshold.ClaimSealer hands out once (see threshold.Sealer).
// A test of internal/trustee checks that the shipped programs link no
// package that imports it other than threshold.
package testseal

import "math/big"

// Seal returns c sealed, as a *threshold.SealedTally. Package threshold sets
// it at initialisation; it is typed any because this package cannot import
// threshold, which imports it.
var Seal func(c *big.Int) any
