package keygen

import (
	"crypto/rand"
	"errors"
	"math/big"
	"strings"
	"sync"
	"testing"

	"github.com/fabvote/fabvote/crypto/dkg/internal/dkgtest"
	"github.com/fabvote/fabvote/crypto/paillier/threshold"
	"github.com/fabvote/fabvote/crypto/paillier/threshold/thresholdtest"
)

var ceremony = []byte("0123456789abcdef")

var (
	finishOnce   sync.Once
	finishedPub  *Public
	finishedKeys []*threshold.KeyShare
	finishErr    error
)

// finished is one 2-of-3 ceremony over a 2048-bit N of the committed test
// primes, run once for the test binary.
func finished(t *testing.T) (*Public, []*threshold.KeyShare) {
	t.Helper()
	finishOnce.Do(func() {
		set := dkgtest.PrimeSet(1024)
		p, q := set.Blum[0], set.Blum[1]
		n := new(big.Int).Mul(p, q)
		finishedPub, finishedKeys, finishErr = FinishInProcess(n, 2, dkgtest.Split(rand.Reader, p, 3), dkgtest.Split(rand.Reader, q, 3), ceremony, nil)
	})
	if finishErr != nil {
		t.Fatal(finishErr)
	}
	return finishedPub, finishedKeys
}

// A ceremony's result verifies, its shares check against it, and any two of
// them decrypt.
func TestFinishInProcess(t *testing.T) {
	pub, shares := finished(t)
	if err := pub.Verify(); err != nil {
		t.Fatal(err)
	}
	if pub.Params.PublicKey.N.BitLen() != 2048 || pub.Params.ShareBits == 0 || len(shares) != 3 {
		t.Fatalf("N of %d bits, ShareBits %d, %d shares", pub.Params.PublicKey.N.BitLen(), pub.Params.ShareBits, len(shares))
	}
	msg := big.NewInt(424242)
	c, _, err := pub.Params.PublicKey.Encrypt(rand.Reader, msg)
	if err != nil {
		t.Fatal(err)
	}
	var parts []*threshold.PartialDecryption
	for _, ks := range shares {
		if err := ks.Check(pub.Params); err != nil {
			t.Fatalf("trustee %d: %v", ks.Index, err)
		}
		pd, err := thresholdtest.PartialDecrypt(ks, pub.Params, c)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, pd)
	}
	for _, set := range [][]int{{0, 1}, {0, 2}, {1, 2}} {
		got, err := pub.Params.Combine(c, []*threshold.PartialDecryption{parts[set[0]], parts[set[1]]})
		if err != nil || got.Cmp(msg) != 0 {
			t.Fatalf("trustees %v: %v, %v", set, got, err)
		}
	}
}

// Each kind of bad result is refused, naming what is wrong.
func TestVerifyRefuses(t *testing.T) {
	pub, _ := finished(t)
	asVersion1 := *pub.Params
	asVersion1.ShareBits = 0
	otherSelfTest := func() []*threshold.PartialDecryption {
		_, shares := finished(t)
		var out []*threshold.PartialDecryption
		for _, ks := range shares {
			pd, err := ks.DecryptSelfTest(rand.Reader, pub.Params, []byte("another ceremony"))
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, pd)
		}
		return out
	}
	flipped := *pub.ModulusProof
	flipped.Responses[7].Z = new(big.Int).Add(flipped.Responses[7].Z, big.NewInt(1))
	for _, tc := range []struct {
		name   string
		mutate func(p *Public)
		want   string
	}{
		{"a short ceremony id", func(p *Public) { p.Ceremony = p.Ceremony[:8] }, "ceremony id of 8 bytes"},
		{"no parameters", func(p *Public) { p.Params = nil }, "no parameters"},
		{"version 1 parameters", func(p *Public) { p.Params = &asVersion1 }, "version 1"},
		{"another ceremony's id", func(p *Public) { p.Ceremony = []byte("fedcba9876543210") }, "modulus proof"},
		{"a changed proof", func(p *Public) { p.ModulusProof = &flipped }, "modulus proof"},
		{"no proof", func(p *Public) { p.ModulusProof = nil }, "modulus proof"},
		{"a missing self-test partial", func(p *Public) { p.SelfTest = p.SelfTest[:2] }, "2 partial decryptions"},
		{"self-test partials out of order", func(p *Public) {
			p.SelfTest = []*threshold.PartialDecryption{p.SelfTest[1], p.SelfTest[0], p.SelfTest[2]}
		}, "not trustee 1's"},
		{"another ceremony's self-test", func(p *Public) { p.SelfTest = otherSelfTest() }, "self-test"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := *pub
			tc.mutate(&bad)
			err := bad.Verify()
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %v naming %q", err, ErrInvalid, tc.want)
			}
		})
	}
	if err := pub.Verify(); err != nil {
		t.Fatalf("the cases above changed the original: %v", err)
	}
}
