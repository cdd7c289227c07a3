// Package thresholdtest lets the tests of other packages make partial
// decryptions of ciphertexts of their choosing: fixtures for result checks,
// and wrong partials for negative tests.
//
// The product offers no such thing (see threshold.KeyShare.DecryptTally), so
// PartialDecrypt works only inside a test binary: in any other program it
// returns an error and decrypts nothing. It seals through threshold's
// internal test hook, not the Sealer, which the trustee of a test binary may
// hold.
package thresholdtest

import (
	"crypto/rand"
	"errors"
	"math/big"
	"testing"

	"github.com/fabvote/fabvote/crypto/paillier/threshold"
	"github.com/fabvote/fabvote/crypto/paillier/threshold/internal/testseal"
)

// ErrNotTest is returned outside test binaries.
var ErrNotTest = errors.New("thresholdtest: partial decryption of an arbitrary ciphertext is for tests only")

// PartialDecrypt is ks's partial decryption of c, for tests only.
func PartialDecrypt(ks *threshold.KeyShare, pp *threshold.PublicParams, c *big.Int) (*threshold.PartialDecryption, error) {
	if !testing.Testing() {
		return nil, ErrNotTest
	}
	sealed, _ := testseal.Seal(c).(*threshold.SealedTally)
	return ks.DecryptTally(rand.Reader, pp, sealed)
}
