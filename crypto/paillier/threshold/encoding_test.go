package threshold

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/big"
	"strings"
	"testing"
)

func TestEncodingRoundTrip(t *testing.T) {
	for _, size := range []string{sizeSmall, sizeLarge} {
		t.Run(size, func(t *testing.T) {
			pp, shares := testDeal(t, size, 2, 3)
			minBits := 0
			if size == sizeLarge {
				minBits = 2048
			}
			b, err := pp.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			nLen, w := len(pp.PublicKey.N.Bytes()), elemLen(pp.PublicKey)
			if len(b) != 11+nLen+(1+pp.L)*w {
				t.Fatalf("PublicParams encoding has %d bytes, want 11 + %d + %d·%d", len(b), nLen, 1+pp.L, w)
			}
			got, err := parsePublicParams(b, minBits)
			if err != nil {
				t.Fatal(err)
			}
			if got.K != pp.K || got.L != pp.L || got.PublicKey.N.Cmp(pp.PublicKey.N) != 0 || got.V.Cmp(pp.V) != 0 {
				t.Fatal("PublicParams changed in a round trip")
			}
			for i := range pp.VerificationKeys {
				if got.VerificationKeys[i].Cmp(pp.VerificationKeys[i]) != 0 {
					t.Fatalf("verification key %d changed", i+1)
				}
			}
			for _, ks := range shares {
				kb, err := ks.MarshalBinary()
				if err != nil {
					t.Fatal(err)
				}
				if len(kb) != 13+nLen+w {
					t.Fatalf("KeyShare encoding has %d bytes, want 13 + %d + %d", len(kb), nLen, w)
				}
				back, err := ParseKeyShare(kb)
				if err != nil {
					t.Fatal(err)
				}
				if back.Index != ks.Index || back.secret.Cmp(ks.secret) != 0 || back.N.Cmp(ks.N) != 0 {
					t.Fatalf("share %d changed in a round trip", ks.Index)
				}
				if err := back.Check(got); err != nil {
					t.Fatalf("decoded share %d does not check against decoded params: %v", ks.Index, err)
				}
			}
			m := big.NewInt(77)
			c := encrypt(t, pp.PublicKey, m)
			parts := partials(t, pp, shares, c, 1, 3)
			var decoded []*PartialDecryption
			for _, pd := range parts {
				pb, err := pd.Marshal(pp)
				if err != nil {
					t.Fatal(err)
				}
				if len(pb) != pp.PartialDecryptionLen() {
					t.Fatalf("encoded partial has %d bytes, PartialDecryptionLen says %d", len(pb), pp.PartialDecryptionLen())
				}
				back, err := ParsePartialDecryption(got, pb)
				if err != nil {
					t.Fatal(err)
				}
				decoded = append(decoded, back)
			}
			res, err := got.Combine(c, decoded)
			if err != nil || res.Cmp(m) != 0 {
				t.Fatalf("decoded partials combine to %v, %v; want %v", res, err, m)
			}
		})
	}
}

func TestParsePublicParamsMinimumSize(t *testing.T) {
	pp, _ := testDeal(t, sizeSmall, 2, 3)
	b, err := pp.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParsePublicParams(b); !errors.Is(err, ErrInvalidParams) || !strings.Contains(err.Error(), "PublicKey.N") {
		t.Fatalf("512-bit N: got %v, want ErrInvalidParams naming PublicKey.N", err)
	}
}

// TestParseErrorsNameField corrupts one field of a valid encoding at a time.
func TestParseErrorsNameField(t *testing.T) {
	pp, shares := testDeal(t, sizeSmall, 2, 3)
	ppb, err := pp.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	ksb, err := shares[0].MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	c := encrypt(t, pp.PublicKey, big.NewInt(1))
	pdb, err := partials(t, pp, shares, c, 2)[0].Marshal(pp)
	if err != nil {
		t.Fatal(err)
	}
	nLen := len(pp.PublicKey.N.Bytes())
	w := elemLen(pp.PublicKey)
	vOff := 11 + nLen // PublicParams: offset of V
	mod := func(src []byte, f func(b []byte) []byte) []byte {
		return f(append([]byte(nil), src...))
	}
	put16 := func(off, v int) func([]byte) []byte {
		return func(b []byte) []byte { binary.BigEndian.PutUint16(b[off:], uint16(v)); return b }
	}
	fill := func(off, n int, v byte) func([]byte) []byte {
		return func(b []byte) []byte {
			for i := off; i < off+n; i++ {
				b[i] = v
			}
			return b
		}
	}
	parsePP := func(b []byte) error { _, err := parsePublicParams(b, 0); return err }
	parseKS := func(b []byte) error { _, err := ParseKeyShare(b); return err }
	parsePD := func(b []byte) error { _, err := ParsePartialDecryption(pp, b); return err }
	for _, tc := range []struct {
		name   string
		parse  func([]byte) error
		in     []byte
		field  string
		wantIs error
	}{
		{"params: empty", parsePP, nil, "PublicParams.magic", ErrMalformed},
		{"params: magic", parsePP, mod(ppb, fill(0, 1, 'X')), "PublicParams.magic", ErrMalformed},
		{"params: version", parsePP, mod(ppb, fill(4, 1, 3)), "PublicParams.version", ErrMalformed},
		{"params: truncated", parsePP, ppb[:len(ppb)-1], "PublicParams", ErrMalformed},
		{"params: trailing byte", parsePP, append(append([]byte(nil), ppb...), 0), "PublicParams", ErrMalformed},
		{"params: K = 0", parsePP, mod(ppb, put16(5, 0)), "K:", ErrInvalidParams},
		{"params: K > L", parsePP, mod(ppb, put16(5, 4)), "K:", ErrInvalidParams},
		{"params: L > max", parsePP, mod(ppb, put16(7, MaxTrustees+1)), "L:", ErrInvalidParams},
		{"params: L disagrees with length", parsePP, mod(ppb, put16(7, 4)), "PublicParams", ErrMalformed},
		{"params: nLen 0", parsePP, mod(ppb, put16(9, 0)), "PublicParams.nLen", ErrMalformed},
		{"params: N leading zero", parsePP, mod(ppb, fill(11, 1, 0)), "PublicParams.N", ErrMalformed},
		{"params: N even", parsePP, mod(ppb, func(b []byte) []byte { b[10+nLen] &^= 1; return b }), "PublicParams.N", ErrMalformed},
		{"params: V = 0", parsePP, mod(ppb, fill(vOff, w, 0)), "V:", ErrInvalidParams},
		{"params: V ≥ N²", parsePP, mod(ppb, fill(vOff, w, 0xff)), "V:", ErrInvalidParams},
		{"params: V = 1", parsePP, mod(ppb, func(b []byte) []byte { fill(vOff, w, 0)(b); b[vOff+w-1] = 1; return b }), "V:", ErrInvalidParams},
		{"params: V_2 ≥ N²", parsePP, mod(ppb, fill(vOff+2*w, w, 0xff)), "VerificationKeys: trustee 2", ErrInvalidParams},
		{"share: magic", parseKS, mod(ksb, fill(0, 4, 'Z')), "KeyShare.magic", ErrMalformed},
		{"share: index 0", parseKS, mod(ksb, put16(5, 0)), "Index:", ErrInvalidShare},
		{"share: index > L", parseKS, mod(ksb, put16(5, 4)), "Index:", ErrInvalidShare},
		{"share: K > L", parseKS, mod(ksb, put16(7, 9)), "K, L", ErrInvalidShare},
		{"share: truncated", parseKS, ksb[:len(ksb)-3], "KeyShare.secret", ErrMalformed},
		{"share: trailing", parseKS, append(append([]byte(nil), ksb...), 1), "KeyShare", ErrMalformed},
		{"share: secret ≥ N²", parseKS, mod(ksb, fill(len(ksb)-w, w, 0xff)), "KeyShare.secret", ErrMalformed},
		{"partial: wrong length", parsePD, pdb[:len(pdb)-1], "PartialDecryption", ErrMalformed},
		{"partial: magic", parsePD, mod(pdb, fill(0, 4, 0)), "PartialDecryption.magic", ErrMalformed},
		{"partial: version", parsePD, mod(pdb, fill(4, 1, 0)), "PartialDecryption.version", ErrMalformed},
		{"partial: index 0", parsePD, mod(pdb, put16(5, 0)), "Index:", ErrInvalidPartial},
		{"partial: Ci = 0", parsePD, mod(pdb, fill(7, w, 0)), "Ci:", ErrInvalidPartial},
		{"partial: Ci ≥ N²", parsePD, mod(pdb, fill(7, w, 0xff)), "Ci:", ErrInvalidPartial},
		{"partial: Z too long", parsePD, mod(pdb, fill(7+w+32, 1, 0xff)), "Proof.Z:", ErrInvalidPartial},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.parse(tc.in)
			if !errors.Is(err, tc.wantIs) || !strings.Contains(err.Error(), tc.field) {
				t.Fatalf("got %v, want %v naming %q", err, tc.wantIs, tc.field)
			}
		})
	}
	// The unmodified encodings parse (the cases above really are single changes).
	for name, err := range map[string]error{"params": parsePP(ppb), "share": parseKS(ksb), "partial": parsePD(pdb)} {
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
}

// TestCommittedFuzzSeedsParse: the valid seeds of the committed corpus still
// decode (so the corpus exercises the success path, not only errors).
func TestCommittedFuzzSeedsParse(t *testing.T) {
	pp, _ := testDeal(t, sizeSmall, 2, 3)
	for _, tc := range []struct {
		target, name string
		parse        func([]byte) error
	}{
		{"FuzzParsePublicParams", "small-2of3", func(b []byte) error { _, err := parsePublicParams(b, 0); return err }},
		{"FuzzParsePublicParams", "large-2of3", func(b []byte) error { _, err := ParsePublicParams(b); return err }},
		{"FuzzParseKeyShare", "large-share3", func(b []byte) error { _, err := ParseKeyShare(b); return err }},
		{"FuzzParsePartialDecryption", "small-trustee2", func(b []byte) error { _, err := ParsePartialDecryption(pp, b); return err }},
	} {
		t.Run(tc.target+"/"+tc.name, func(t *testing.T) {
			b := readFuzzSeed(t, tc.target, tc.name)
			if err := tc.parse(b); err != nil {
				t.Fatal(err)
			}
			if bytes.Equal(b, nil) {
				t.Fatal("empty seed")
			}
		})
	}
}
