package threshold

import (
	"crypto/rand"
	"errors"
	"math/big"
	"testing"

	"github.com/fabvote/fabvote/crypto/paillier/threshold/internal/tallyseal"
)

// DecryptTally decrypts a sealed ciphertext, refuses a missing seal, and
// checks the sealed value like any ciphertext.
func TestDecryptTally(t *testing.T) {
	pp, shares := testDeal(t, "small", 2, 3)
	c := encrypt(t, pp.PublicKey, big.NewInt(42))
	pd, err := shares[0].DecryptTally(rand.Reader, pp, tallyseal.Seal(c))
	if err != nil {
		t.Fatal(err)
	}
	if err := pp.VerifyPartial(c, pd); err != nil {
		t.Fatalf("the partial of a sealed tally does not verify: %v", err)
	}
	for name, seal := range map[string]*tallyseal.Ciphertext{"nil": nil, "zero": {}} {
		if _, err := shares[0].DecryptTally(rand.Reader, pp, seal); !errors.Is(err, ErrUnsealedTally) {
			t.Errorf("%s seal: %v, want ErrUnsealedTally", name, err)
		}
	}
	if _, err := shares[0].DecryptTally(rand.Reader, pp, tallyseal.Seal(big.NewInt(0))); !errors.Is(err, ErrInvalidCiphertext) {
		t.Errorf("sealed 0: %v, want ErrInvalidCiphertext", err)
	}
}

// A wiped share is refused as empty.
func TestWipe(t *testing.T) {
	pp, shares := testDeal(t, "small", 2, 3)
	enc, err := shares[0].MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	ks, err := ParseKeyShare(enc) // a copy: the dealt shares are shared by the tests
	if err != nil {
		t.Fatal(err)
	}
	if err := ks.Check(pp); err != nil {
		t.Fatal(err)
	}
	ks.Wipe()
	ks.Wipe() // twice is harmless
	if err := ks.Check(pp); !errors.Is(err, ErrInvalidShare) {
		t.Fatalf("Check after Wipe: %v, want ErrInvalidShare", err)
	}
}
