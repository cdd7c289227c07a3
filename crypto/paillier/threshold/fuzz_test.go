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

// addV2Seeds adds the encodings of a small version 2 key (testDealV2) to f:
// its parameters, a share, or a partial decryption, as what asks.
func addV2Seeds(f *testing.F, what string) {
	pp, shares := testDealV2(f, sizeSmall, 2, 3)
	var b []byte
	var err error
	switch what {
	case "params":
		b, err = pp.MarshalBinary()
	case "share":
		b, err = shares[2].MarshalBinary()
	case "partial":
		b, err = partials(f, pp, shares, encrypt(f, pp.PublicKey, big.NewInt(3)), 2)[0].Marshal(pp)
	}
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add(b[:len(b)/2])
}

func FuzzParsePublicParams(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte(magicParams + "\x01"))
	addV2Seeds(f, "params")
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
	addV2Seeds(f, "share")
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
	f.Add([]byte{})
	f.Add([]byte(magicPartial + "\x01"))
	fuzzPartials(f, pp)
}

// FuzzParsePartialDecryptionV2 is FuzzParsePartialDecryption under version 2
// parameters.
func FuzzParsePartialDecryptionV2(f *testing.F) {
	pp, _ := testDealV2(f, sizeSmall, 2, 3)
	f.Add([]byte(magicPartial + "\x02"))
	addV2Seeds(f, "partial")
	fuzzPartials(f, pp)
}

// fuzzPartials decodes partial decryptions under pp: an error wraps a
// package sentinel, a success re-encodes byte for byte and verifies without
// a panic.
func fuzzPartials(f *testing.F, pp *PublicParams) {
	c := new(big.Int).Add(pp.PublicKey.N, one) // Enc(1) with r = 1
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
