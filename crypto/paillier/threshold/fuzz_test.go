package threshold

import (
	"bytes"
	"errors"
	"math/big"
	"testing"
)

// writeFuzzCorpus regenerates the committed seed corpus (called by
// TestGenerateVectors -update).
func writeFuzzCorpus(t *testing.T) {
	for _, size := range []string{sizeSmall, sizeLarge} {
		pp, shares := testDeal(t, size, 2, 3)
		b, err := pp.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		writeFuzzSeed(t, "FuzzParsePublicParams", size+"-2of3", b)
		writeFuzzSeed(t, "FuzzParsePublicParams", size+"-truncated", b[:len(b)/2])
		kb, err := shares[2].MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		writeFuzzSeed(t, "FuzzParseKeyShare", size+"-share3", kb)
	}
	pp, shares := testDeal(t, sizeSmall, 2, 3)
	c := encrypt(t, pp.PublicKey, big.NewInt(42))
	pd := partials(t, pp, shares, c, 2)[0]
	b, err := pd.Marshal(pp)
	if err != nil {
		t.Fatal(err)
	}
	writeFuzzSeed(t, "FuzzParsePartialDecryption", "small-trustee2", b)
	b[5], b[6] = 0, 9 // index 9 > L
	writeFuzzSeed(t, "FuzzParsePartialDecryption", "small-bad-index", b)
}

func isPackageError(err error) bool {
	for _, s := range []error{ErrMalformed, ErrInvalidParams, ErrInvalidShare, ErrInvalidPartial} {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

func FuzzParsePublicParams(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte(magicParams + "\x01"))
	f.Fuzz(func(t *testing.T, b []byte) {
		pp, err := parsePublicParams(b, 0)
		if err != nil {
			if !isPackageError(err) {
				t.Fatalf("error %v wraps no package sentinel", err)
			}
			return
		}
		out, err := pp.MarshalBinary()
		if err != nil {
			t.Fatalf("parsed but does not marshal: %v", err)
		}
		if !bytes.Equal(out, b) {
			t.Fatal("decoding is not canonical: re-encoding differs")
		}
	})
}

func FuzzParseKeyShare(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte(magicShare + "\x01"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ks, err := ParseKeyShare(b)
		if err != nil {
			if !isPackageError(err) {
				t.Fatalf("error %v wraps no package sentinel", err)
			}
			return
		}
		out, err := ks.MarshalBinary()
		if err != nil {
			t.Fatalf("parsed but does not marshal: %v", err)
		}
		if !bytes.Equal(out, b) {
			t.Fatal("decoding is not canonical: re-encoding differs")
		}
	})
}

func FuzzParsePartialDecryption(f *testing.F) {
	pp, _ := testDeal(f, sizeSmall, 2, 3)
	c := new(big.Int).Add(pp.PublicKey.N, one) // Enc(1) with r = 1
	f.Add([]byte{})
	f.Add([]byte(magicPartial + "\x01"))
	f.Fuzz(func(t *testing.T, b []byte) {
		pd, err := ParsePartialDecryption(pp, b)
		if err != nil {
			if !isPackageError(err) {
				t.Fatalf("error %v wraps no package sentinel", err)
			}
			return
		}
		out, err := pd.Marshal(pp)
		if err != nil {
			t.Fatalf("parsed but does not marshal: %v", err)
		}
		if !bytes.Equal(out, b) {
			t.Fatal("decoding is not canonical: re-encoding differs")
		}
		// A decoded partial must never make verification panic.
		_ = pp.VerifyPartial(c, pd)
	})
}
