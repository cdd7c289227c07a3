package threshold

import (
	"crypto/rand"
	"errors"
	"math/big"
	"sync"
	"testing"
)

// DecryptTally decrypts a sealed ciphertext, refuses a missing seal, and
// checks the sealed value like any ciphertext. It seals with the package's
// own seal, so that this test binary's Sealer stays unclaimed for
// TestClaimSealer.
func TestDecryptTally(t *testing.T) {
	pp, shares := testDeal(t, "small", 2, 3)
	c := encrypt(t, pp.PublicKey, big.NewInt(42))
	pd, err := shares[0].DecryptTally(rand.Reader, pp, seal(c))
	if err != nil {
		t.Fatal(err)
	}
	if err := pp.VerifyPartial(c, pd); err != nil {
		t.Fatalf("the partial of a sealed tally does not verify: %v", err)
	}
	for name, sealed := range map[string]*SealedTally{"nil": nil, "zero": {}, "seal(nil)": seal(nil)} {
		if _, err := shares[0].DecryptTally(rand.Reader, pp, sealed); !errors.Is(err, ErrUnsealedTally) {
			t.Errorf("%s seal: %v, want ErrUnsealedTally", name, err)
		}
	}
	if _, err := shares[0].DecryptTally(rand.Reader, pp, seal(big.NewInt(0))); !errors.Is(err, ErrInvalidCiphertext) {
		t.Errorf("sealed 0: %v, want ErrInvalidCiphertext", err)
	}
}

// ClaimSealer hands out one Sealer, to one of many concurrent callers, and
// refuses every other and every later call; only that Sealer seals, and
// what it seals decrypts. It is the only test of this binary that claims.
func TestClaimSealer(t *testing.T) {
	pp, shares := testDeal(t, "small", 2, 3)
	c := encrypt(t, pp.PublicKey, big.NewInt(7))
	var zero Sealer
	if zero.Seal(c) != nil || (*Sealer)(nil).Seal(c) != nil {
		t.Fatal("an unclaimed Sealer seals")
	}
	const callers = 8
	var (
		wg      sync.WaitGroup
		sealers = make([]*Sealer, callers)
		errs    = make([]error, callers)
	)
	for i := range callers {
		wg.Go(func() { sealers[i], errs[i] = ClaimSealer() })
	}
	wg.Wait()
	var won *Sealer
	for i := range callers {
		switch {
		case errs[i] == nil && sealers[i] != nil && won == nil:
			won = sealers[i]
		case !errors.Is(errs[i], ErrSealerClaimed) || sealers[i] != nil:
			t.Errorf("caller %d: ClaimSealer = %p, %v; want one winner and ErrSealerClaimed for the others", i, sealers[i], errs[i])
		}
	}
	if won == nil {
		t.Fatal("no caller got the Sealer")
	}
	if s, err := ClaimSealer(); !errors.Is(err, ErrSealerClaimed) || s != nil {
		t.Fatalf("a later ClaimSealer = %p, %v; want ErrSealerClaimed", s, err)
	}
	copied := *won
	for name, s := range map[string]*Sealer{"zero": &zero, "copy": &copied} {
		if s.Seal(c) != nil {
			t.Errorf("a %s Sealer seals after the claim", name)
		}
	}
	if won.Seal(nil) != nil {
		t.Error("the Sealer seals nil")
	}
	want := new(big.Int).Set(c)
	sealed := won.Seal(c)
	c.SetInt64(1) // the seal holds a copy
	pd, err := shares[1].DecryptTally(rand.Reader, pp, sealed)
	if err != nil {
		t.Fatal(err)
	}
	if err := pp.VerifyPartial(want, pd); err != nil {
		t.Fatalf("the partial of the claimed Sealer's seal does not verify: %v", err)
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
