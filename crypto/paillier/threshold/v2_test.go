package threshold

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"strings"
	"testing"
)

// statisticalBits is κ of the integer sharing in testDealV2: how much longer
// than the secret each random coefficient is.
const statisticalBits = 128

var dealV2Cache = map[string]dealt{}

// testDealV2 makes a version 2 key the way a distributed key generation
// leaves it, from the fixed primes of size: the secret D ≡ 1 (mod N),
// D ≡ 0 (mod Δ·m), made long by a random multiple of N·Δ·m, shared with an
// integer polynomial whose coefficients are κ + |Δ| bits longer than D, so
// that the shares are integers well above N². V is the dealt key's.
func testDealV2(t testing.TB, size string, k, l int) (*PublicParams, []*KeyShare) {
	t.Helper()
	key := fmt.Sprintf("%s/%d/%d", size, k, l)
	pp1, _ := testDeal(t, size, k, l)
	dealMu.Lock()
	defer dealMu.Unlock()
	if d, ok := dealV2Cache[key]; ok {
		return d.pp, d.shares
	}
	p, q := primesFor(t, size)
	n := pp1.PublicKey.N
	m := new(big.Int).Mul(new(big.Int).Rsh(p, 1), new(big.Int).Rsh(q, 1))
	delta := factorial(l)
	dm := new(big.Int).Mul(delta, m)
	d := new(big.Int).ModInverse(dm, n)
	d.Mul(d, dm)
	d.Add(d, new(big.Int).Mul(randBelow(t, n), new(big.Int).Mul(n, dm)))
	coeffBits := d.BitLen() + statisticalBits + delta.BitLen()
	coeffs := []*big.Int{d}
	for j := 1; j < k; j++ {
		coeffs = append(coeffs, randBelow(t, new(big.Int).Lsh(one, uint(coeffBits))))
	}
	shareBits := coeffBits + k*big.NewInt(int64(l)).BitLen() + 1
	if shareBits%8 == 0 {
		shareBits++ // so that a secret one bit too long fits its encoding's width (TestVersion2BadInput)
	}
	pp := &PublicParams{PublicKey: pp1.PublicKey, K: k, L: l, V: pp1.V, VerificationKeys: make([]*big.Int, l), ShareBits: shareBits}
	grp := newSquaresGroup(p, q)
	shares := make([]*KeyShare, l)
	for i := 1; i <= l; i++ {
		s := evalPoly(coeffs, int64(i), new(big.Int).Lsh(one, uint(shareBits+1))) // no reduction: f(i) < 2^shareBits
		ks, err := NewKeyShare(i, k, l, n, shareBits, s)
		if err != nil {
			t.Fatalf("share %d: %v", i, err)
		}
		shares[i-1] = ks
		pp.VerificationKeys[i-1] = grp.exp(pp.V, new(big.Int).Mul(delta, s))
	}
	if err := pp.validate(0); err != nil {
		t.Fatal(err)
	}
	dealV2Cache[key] = dealt{pp, shares}
	return pp, shares
}

// Version 2 shares are longer than N², check against their verification
// keys, and every K-subset of their partials decrypts; the encodings carry
// version 2 and round-trip.
func TestVersion2DecryptsWithLongShares(t *testing.T) {
	pp, shares := testDealV2(t, sizeSmall, 2, 3)
	if pp.ShareBits <= pp.PublicKey.NSquared.BitLen() {
		t.Fatalf("ShareBits %d: the test key's shares should be longer than N² (%d bits)", pp.ShareBits, pp.PublicKey.NSquared.BitLen())
	}
	for _, ks := range shares {
		if err := ks.Check(pp); err != nil {
			t.Fatalf("trustee %d: %v", ks.Index, err)
		}
	}
	msg := big.NewInt(1234567)
	c := encrypt(t, pp.PublicKey, msg)
	for _, set := range subsets(pp.K, pp.L) {
		got, err := pp.Combine(c, partials(t, pp, shares, c, set...))
		if err != nil || got.Cmp(msg) != 0 {
			t.Fatalf("trustees %v: got %v, %v; want %v", set, got, err, msg)
		}
	}
	ppb, err := pp.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	ksb, err := shares[0].MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	pdb, err := partials(t, pp, shares, c, 2)[0].Marshal(pp)
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"params": ppb, "share": ksb, "partial": pdb} {
		if b[4] != 2 {
			t.Errorf("%s: version %d, want 2", name, b[4])
		}
	}
	pp2, err := parsePublicParams(ppb, 0)
	if err != nil || pp2.ShareBits != pp.ShareBits {
		t.Fatalf("params: %v, ShareBits %d", err, pp2.ShareBits)
	}
	ks2, err := ParseKeyShare(ksb)
	if err != nil || ks2.Check(pp) != nil {
		t.Fatalf("share: %v", err)
	}
	if _, err := ParsePartialDecryption(pp, pdb); err != nil {
		t.Fatalf("partial: %v", err)
	}
}

// A 2048-bit version 2 key passes Validate with shares of the length a
// distributed key generation gives (about 3·|N|).
func TestVersion2LargeKeyValidates(t *testing.T) {
	if testing.Short() {
		t.Skip("2048-bit exponentiations")
	}
	pp, shares := testDealV2(t, sizeLarge, 2, 3)
	if err := pp.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := shares[2].Check(pp); err != nil {
		t.Fatal(err)
	}
	c := encrypt(t, pp.PublicKey, big.NewInt(7))
	if got, err := pp.Combine(c, partials(t, pp, shares, c, 1, 3)); err != nil || got.Int64() != 7 {
		t.Fatalf("got %v, %v", got, err)
	}
}

// A proof made under one version never verifies under the other: the
// domain tags differ, and so do the bounds.
func TestVersionsDoNotCrossVerify(t *testing.T) {
	pp2, shares2 := testDealV2(t, sizeSmall, 2, 3)
	pp1, shares1 := testDeal(t, sizeSmall, 2, 3)
	c := encrypt(t, pp1.PublicKey, big.NewInt(5))
	pd2 := partials(t, pp2, shares2, c, 1)[0]
	asV1 := *pp2
	asV1.ShareBits = 0
	if err := asV1.VerifyPartial(c, pd2); err == nil {
		t.Fatal("a version 2 partial verified under version 1 parameters")
	}
	pd1 := partials(t, pp1, shares1, c, 1)[0]
	asV2 := *pp1
	asV2.ShareBits = pp2.ShareBits
	if err := asV2.VerifyPartial(c, pd1); !errors.Is(err, ErrInvalidProof) {
		t.Fatalf("a version 1 proof under version 2 parameters: got %v, want %v", err, ErrInvalidProof)
	}
	b, err := pd1.Marshal(pp1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParsePartialDecryption(pp2, b); err == nil {
		t.Fatal("a version 1 partial's encoding parsed under version 2 parameters")
	}
	if _, err := shares1[0].DecryptTally(rand.Reader, pp2, nil); err == nil {
		t.Fatal("a version 1 share was used with version 2 parameters")
	}
}

// The share bound's limits are |N²| and 2·|N²|, both included, and
// parameters at either limit round-trip.
func TestShareBitsLimits(t *testing.T) {
	pp, _ := testDealV2(t, sizeSmall, 2, 3)
	n2Bits := pp.PublicKey.NSquared.BitLen()
	for _, bits := range []int{n2Bits, 2 * n2Bits} {
		at := *pp
		at.ShareBits = bits
		b, err := at.MarshalBinary()
		if err != nil {
			t.Fatalf("ShareBits %d: %v", bits, err)
		}
		back, err := parsePublicParams(b, 0)
		if err != nil || back.ShareBits != bits {
			t.Fatalf("ShareBits %d: parsed %v, %v", bits, back, err)
		}
	}
	if err := checkShareBits(1<<16, new(big.Int).Lsh(one, 40000)); err == nil {
		t.Fatal("a share bound past its u16 encoding was accepted")
	}
}

// Each kind of bad version 2 input is refused, naming what is wrong.
func TestVersion2BadInput(t *testing.T) {
	pp, shares := testDealV2(t, sizeSmall, 2, 3)
	n := pp.PublicKey.N
	n2Bits := pp.PublicKey.NSquared.BitLen()
	ppb, _ := pp.MarshalBinary()
	ksb, _ := shares[1].MarshalBinary()
	sb := func(b []byte, off, v int) []byte {
		b = append([]byte(nil), b...)
		b[off], b[off+1] = byte(v>>8), byte(v)
		return b
	}
	long := new(big.Int).Lsh(one, uint(pp.ShareBits))
	for _, tc := range []struct {
		name string
		err  func() error
		want string
	}{
		{"params: ShareBits 0 in version 2", func() error { _, err := parsePublicParams(sb(ppb, 9, 0), 0); return err }, "PublicParams.ShareBits"},
		{"params: ShareBits below |N²|", func() error { _, err := parsePublicParams(sb(ppb, 9, n2Bits-1), 0); return err }, "ShareBits"},
		{"params: ShareBits above 2·|N²|", func() error { _, err := parsePublicParams(sb(ppb, 9, 2*n2Bits+1), 0); return err }, "ShareBits"},
		{"params: unknown version", func() error {
			b := append([]byte(nil), ppb...)
			b[4] = 3
			_, err := parsePublicParams(b, 0)
			return err
		}, "PublicParams.version"},
		{"share: ShareBits 0 in version 2", func() error { _, err := ParseKeyShare(sb(ksb, 11, 0)); return err }, "KeyShare.ShareBits"},
		{"share: ShareBits above 2·|N²|", func() error { _, err := ParseKeyShare(sb(ksb, 11, 2*n2Bits+1)); return err }, "KeyShare.ShareBits"},
		{"share: secret of ShareBits+1 bits", func() error {
			b := append([]byte(nil), ksb...)
			b[len(b)-(pp.ShareBits+7)/8] = 0xff
			_, err := ParseKeyShare(b)
			return err
		}, "KeyShare.secret"},
		{"share and parameters of different versions", func() error {
			_, s1 := testDeal(t, sizeSmall, 2, 3)
			return s1[0].Check(pp)
		}, "ShareBits"},
		{"new share: ShareBits 0", func() error { _, err := NewKeyShare(1, 2, 3, n, 0, one); return err }, "comes from Deal"},
		{"new share: secret too long", func() error { _, err := NewKeyShare(1, 2, 3, n, pp.ShareBits, long); return err }, "secret"},
		{"new share: negative secret", func() error { _, err := NewKeyShare(1, 2, 3, n, pp.ShareBits, big.NewInt(-1)); return err }, "secret"},
		{"new share: index 0", func() error { _, err := NewKeyShare(0, 2, 3, n, pp.ShareBits, one); return err }, "Index"},
		{"new share: even N", func() error { _, err := NewKeyShare(1, 2, 3, big.NewInt(10), pp.ShareBits, one); return err }, "N:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.err()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error naming %q", err, tc.want)
			}
		})
	}
	if !bytes.Equal(ksb[:5], []byte("FVKS\x02")) {
		t.Fatalf("share header %q", ksb[:5])
	}
}

// v2VectorFile is a version 2 key's public parameters, a ciphertext, two
// partial decryptions of it and its plaintext, for the Python verifier
// (verifier-py/tests/test_threshold_v2.py) to check against this code.
const v2VectorFile = "testdata/v2_vector.json"

type v2Vector struct {
	Comment   string   `json:"comment"`
	Params    []byte   `json:"params"`
	C         string   `json:"c"` // hex
	Partials  [][]byte `json:"partials"`
	Plaintext string   `json:"plaintext"` // decimal
}

// TestVersion2Vector checks the committed vector: its partials verify and
// combine to its plaintext. With -update it writes a new one from a small
// version 2 key:
//
//	go test ./crypto/paillier/threshold -run TestVersion2Vector -update
func TestVersion2Vector(t *testing.T) {
	if *update {
		writeV2Vector(t)
	}
	raw, err := os.ReadFile(v2VectorFile)
	if err != nil {
		t.Fatalf("%v (write it with go test -run TestVersion2Vector -update)", err)
	}
	var v v2Vector
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	pp, err := parsePublicParams(v.Params, 0)
	if err != nil || pp.ShareBits == 0 {
		t.Fatalf("params: %v (ShareBits %d, want version 2)", err, pp.ShareBits)
	}
	c, ok := new(big.Int).SetString(v.C, 16)
	if !ok {
		t.Fatal("c: bad hex")
	}
	var parts []*PartialDecryption
	for _, b := range v.Partials {
		pd, err := ParsePartialDecryption(pp, b)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, pd)
	}
	got, err := pp.Combine(c, parts)
	if err != nil || got.String() != v.Plaintext {
		t.Fatalf("combined %v, %v; want %s", got, err, v.Plaintext)
	}
}

func writeV2Vector(t *testing.T) {
	pp, shares := testDealV2(t, sizeSmall, 2, 3)
	msg := big.NewInt(31337)
	c := encrypt(t, pp.PublicKey, msg)
	v := v2Vector{Comment: "a version 2 (integer shares) threshold key of 512-bit N, for tests only; write it with go test -run TestVersion2Vector -update",
		C: c.Text(16), Plaintext: msg.String()}
	var err error
	if v.Params, err = pp.MarshalBinary(); err != nil {
		t.Fatal(err)
	}
	for _, pd := range partials(t, pp, shares, c, 1, 3) {
		b, err := pd.Marshal(pp)
		if err != nil {
			t.Fatal(err)
		}
		v.Partials = append(v.Partials, b)
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(v2VectorFile, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The self-test ciphertext is a function of the ceremony and the key alone,
// every trustee's DecryptSelfTest partial verifies against it, any K of them
// decrypt it to M*, and another ceremony's partial does not verify.
func TestDecryptSelfTest(t *testing.T) {
	pp, shares := testDealV2(t, sizeSmall, 2, 3)
	ceremony := []byte("ceremony-1")
	c, m, err := SelfTestCiphertext(pp, ceremony)
	if err != nil {
		t.Fatal(err)
	}
	if c2, m2, _ := SelfTestCiphertext(pp, ceremony); c2.Cmp(c) != 0 || m2.Cmp(m) != 0 {
		t.Fatal("the self-test ciphertext is not a function of the ceremony and the key")
	}
	var parts []*PartialDecryption
	for _, ks := range shares {
		pd, err := ks.DecryptSelfTest(rand.Reader, pp, ceremony)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, pd)
	}
	if got, err := pp.Combine(c, parts[1:]); err != nil || got.Cmp(m) != 0 {
		t.Fatalf("combined %v, %v; want M* = %v", got, err, m)
	}
	other, err := shares[0].DecryptSelfTest(rand.Reader, pp, []byte("ceremony-2"))
	if err != nil {
		t.Fatal(err)
	}
	if err := pp.VerifyPartial(c, other); err == nil {
		t.Fatal("another ceremony's self-test partial verified")
	}
	_, s1 := testDeal(t, sizeSmall, 2, 3)
	if _, err := s1[0].DecryptSelfTest(rand.Reader, pp, ceremony); err == nil {
		t.Fatal("a share of other parameters decrypted the self-test")
	}
}
