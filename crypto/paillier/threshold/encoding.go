package threshold

import (
	"encoding/binary"
	"math/big"

	"github.com/fabvote/fabvote/crypto/paillier"
)

// Binary encodings. All integers are big-endian. Elements of Z_{N²} take a
// fixed |N²| bytes; N takes its minimal length, given first. Every decoder
// checks the exact length, the magic and version, and every range, and
// re-encoding a decoded value gives back the input byte for byte.
//
// Version 1 (a dealer's key, shares below N²):
//
//	PublicParams:      "FVTP" 0x01 K:u16 L:u16 nLen:u16 N V V_1 … V_L
//	KeyShare:          "FVKS" 0x01 Index:u16 K:u16 L:u16 nLen:u16 N s_i(|N²| bytes)
//	PartialDecryption: "FVPD" 0x01 Index:u16 c_i E(32 bytes) Z(⌈(|N²|+|Δ|+513)/8⌉ bytes)
//
// Version 2 (integer shares below 2^S, S = ShareBits):
//
//	PublicParams:      "FVTP" 0x02 K:u16 L:u16 S:u16 nLen:u16 N V V_1 … V_L
//	KeyShare:          "FVKS" 0x02 Index:u16 K:u16 L:u16 S:u16 nLen:u16 N s_i(⌈S/8⌉ bytes)
//	PartialDecryption: "FVPD" 0x02 Index:u16 c_i E(32 bytes) Z(⌈(S+|Δ|+513)/8⌉ bytes)
//
// A PartialDecryption is encoded relative to the PublicParams it belongs to,
// and carries their version.
const (
	magicParams  = "FVTP"
	magicShare   = "FVKS"
	magicPartial = "FVPD"
	// maxModulusBytes bounds nLen (16384-bit N) so a decoder never allocates
	// more than a few megabytes.
	maxModulusBytes = 2048
)

func appendU16(b []byte, v int) []byte { return binary.BigEndian.AppendUint16(b, uint16(v)) }

// putFixed appends x as exactly width big-endian bytes.
func putFixed(b []byte, x *big.Int, width int) []byte {
	start := len(b)
	b = append(b, make([]byte, width)...)
	x.FillBytes(b[start:])
	return b
}

// MarshalBinary encodes the parameters canonically. They must be valid.
func (pp *PublicParams) MarshalBinary() ([]byte, error) {
	if err := pp.validate(0); err != nil {
		return nil, err
	}
	n := pp.PublicKey.N.Bytes()
	if len(n) > maxModulusBytes {
		return nil, fieldError(ErrInvalidParams, "PublicKey.N", "longer than %d bytes", maxModulusBytes)
	}
	w := elemLen(pp.PublicKey)
	b := make([]byte, 0, 13+len(n)+(1+pp.L)*w)
	b = append(b, magicParams...)
	b = append(b, pp.version())
	b = appendU16(b, pp.K)
	b = appendU16(b, pp.L)
	if pp.version() == 2 {
		b = appendU16(b, pp.ShareBits)
	}
	b = appendU16(b, len(n))
	b = append(b, n...)
	b = putFixed(b, pp.V, w)
	for _, vi := range pp.VerificationKeys {
		b = putFixed(b, vi, w)
	}
	return b, nil
}

// ParsePublicParams decodes and validates parameters (N of at least
// paillier.MinModulusBits bits).
func ParsePublicParams(b []byte) (*PublicParams, error) {
	return parsePublicParams(b, paillier.MinModulusBits)
}

func parsePublicParams(b []byte, minBits int) (*PublicParams, error) {
	d := decoder{b: b, what: "PublicParams"}
	version, err := d.header(magicParams)
	if err != nil {
		return nil, err
	}
	k, l := d.u16("K"), d.u16("L")
	shareBits := d.shareBits(version)
	n := d.modulus()
	if d.err != nil {
		return nil, d.err
	}
	if err := checkThreshold(k, l); err != nil {
		return nil, err
	}
	pk := &paillier.PublicKey{N: n, NSquared: new(big.Int).Mul(n, n)}
	w := elemLen(pk)
	// Check the length before allocating L elements.
	if want := d.off + (1+l)*w; len(b) != want {
		return nil, fieldError(ErrMalformed, "PublicParams", "length %d, want %d for L = %d and a %d-byte N", len(b), want, l, len(n.Bytes()))
	}
	pp := &PublicParams{PublicKey: pk, K: k, L: l, V: d.fixed("V", w), VerificationKeys: make([]*big.Int, l), ShareBits: shareBits}
	for i := range pp.VerificationKeys {
		pp.VerificationKeys[i] = d.fixed("VerificationKeys", w)
	}
	if err := d.end(); err != nil {
		return nil, err
	}
	if err := pp.validate(minBits); err != nil {
		return nil, err
	}
	return pp, nil
}

// MarshalBinary encodes the share, secret included. Treat the bytes as secret.
func (ks *KeyShare) MarshalBinary() ([]byte, error) {
	if ks == nil || ks.N == nil || ks.secret == nil {
		return nil, fieldError(ErrInvalidShare, "KeyShare", "missing or empty")
	}
	if err := checkShareHeader(ks.Index, ks.K, ks.L); err != nil {
		return nil, err
	}
	n := ks.N.Bytes()
	if len(n) == 0 || len(n) > maxModulusBytes {
		return nil, fieldError(ErrInvalidShare, "N", "length %d bytes, need 1..%d", len(n), maxModulusBytes)
	}
	n2 := new(big.Int).Mul(ks.N, ks.N)
	if err := checkShareBits(ks.ShareBits, n2); err != nil {
		return nil, fieldError(ErrInvalidShare, "ShareBits", "%v", err)
	}
	if err := ks.checkSecretRange(); err != nil {
		return nil, err
	}
	version, w := shareLayout(ks.ShareBits, n2)
	b := make([]byte, 0, 15+len(n)+w)
	b = append(b, magicShare...)
	b = append(b, version)
	b = appendU16(b, ks.Index)
	b = appendU16(b, ks.K)
	b = appendU16(b, ks.L)
	if version == 2 {
		b = appendU16(b, ks.ShareBits)
	}
	b = appendU16(b, len(n))
	b = append(b, n...)
	return putFixed(b, ks.secret, w), nil
}

// shareLayout is a share's encoding version and the width of its secret:
// version 1 and |N²| bytes, or version 2 and ⌈ShareBits/8⌉ bytes.
func shareLayout(shareBits int, n2 *big.Int) (version byte, width int) {
	if shareBits == 0 {
		return 1, (n2.BitLen() + 7) / 8
	}
	return 2, (shareBits + 7) / 8
}

func checkShareHeader(index, k, l int) error {
	if err := checkThreshold(k, l); err != nil {
		return fieldError(ErrInvalidShare, "K, L", "%v", err)
	}
	if index < 1 || index > l {
		return fieldError(ErrInvalidShare, "Index", "%d not in 1..%d", index, l)
	}
	return nil
}

// ParseKeyShare decodes a share. It checks the encoding and ranges; use
// Check to verify the share against the public parameters.
func ParseKeyShare(b []byte) (*KeyShare, error) {
	d := decoder{b: b, what: "KeyShare"}
	version, err := d.header(magicShare)
	if err != nil {
		return nil, err
	}
	index, k, l := d.u16("Index"), d.u16("K"), d.u16("L")
	shareBits := d.shareBits(version)
	n := d.modulus()
	if d.err != nil {
		return nil, d.err
	}
	if err := checkShareHeader(index, k, l); err != nil {
		return nil, err
	}
	n2 := new(big.Int).Mul(n, n)
	if err := checkShareBits(shareBits, n2); err != nil {
		return nil, fieldError(ErrMalformed, "KeyShare.ShareBits", "%v", err)
	}
	_, w := shareLayout(shareBits, n2)
	s := d.fixed("secret", w)
	if err := d.end(); err != nil {
		return nil, err
	}
	ks := &KeyShare{Index: index, K: k, L: l, N: n, ShareBits: shareBits, secret: s}
	if ks.checkSecretRange() != nil {
		return nil, fieldError(ErrMalformed, "KeyShare.secret", "not below N² (version 1) or 2^ShareBits (version 2)")
	}
	return ks, nil
}

// Marshal encodes the partial decryption relative to pp (fixed length).
func (pd *PartialDecryption) Marshal(pp *PublicParams) ([]byte, error) {
	if err := pp.validate(0); err != nil {
		return nil, err
	}
	if err := pp.checkPartialRanges(pd); err != nil {
		return nil, &PartialError{Index: pd.indexOrZero(), Position: -1, Err: err}
	}
	w := elemLen(pp.PublicKey)
	zw := (pp.proofZBits() + 7) / 8
	b := make([]byte, 0, 7+w+ChallengeBits/8+zw)
	b = append(b, magicPartial...)
	b = append(b, pp.version())
	b = appendU16(b, pd.Index)
	b = putFixed(b, pd.Ci, w)
	b = putFixed(b, pd.Proof.E, ChallengeBits/8)
	return putFixed(b, pd.Proof.Z, zw), nil
}

func (pd *PartialDecryption) indexOrZero() int {
	if pd == nil {
		return 0
	}
	return pd.Index
}

// PartialDecryptionLen is the length of every encoded partial decryption
// under pp.
func (pp *PublicParams) PartialDecryptionLen() int {
	return 7 + elemLen(pp.PublicKey) + ChallengeBits/8 + (pp.proofZBits()+7)/8
}

// ParsePartialDecryption decodes a partial decryption encoded under pp and
// checks its ranges (not its proof: that is VerifyPartial).
func ParsePartialDecryption(pp *PublicParams, b []byte) (*PartialDecryption, error) {
	if err := pp.validate(0); err != nil {
		return nil, err
	}
	if len(b) != pp.PartialDecryptionLen() {
		return nil, fieldError(ErrMalformed, "PartialDecryption", "length %d, want %d", len(b), pp.PartialDecryptionLen())
	}
	d := decoder{b: b, what: "PartialDecryption"}
	version, err := d.header(magicPartial)
	if err != nil {
		return nil, err
	}
	if version != pp.version() {
		return nil, fieldError(ErrMalformed, "PartialDecryption.version", "%d, but the parameters are version %d", version, pp.version())
	}
	pd := &PartialDecryption{Index: d.u16("Index")}
	pd.Ci = d.fixed("Ci", elemLen(pp.PublicKey))
	pd.Proof = &EqualityProof{E: d.fixed("Proof.E", ChallengeBits/8)}
	pd.Proof.Z = d.fixed("Proof.Z", (pp.proofZBits()+7)/8)
	if err := d.end(); err != nil {
		return nil, err
	}
	if err := pp.checkPartialRanges(pd); err != nil {
		return nil, &PartialError{Index: pd.Index, Position: -1, Err: err}
	}
	return pd, nil
}

// decoder reads fields in order; the first error sticks and names the field.
type decoder struct {
	b    []byte
	off  int
	what string
	err  error
}

func (d *decoder) take(field string, n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || len(d.b)-d.off < n {
		d.err = fieldError(ErrMalformed, d.what+"."+field, "truncated: need %d bytes at offset %d, have %d", n, d.off, len(d.b)-d.off)
		return nil
	}
	s := d.b[d.off : d.off+n]
	d.off += n
	return s
}

// header reads the magic and the version, 1 or 2.
func (d *decoder) header(magic string) (byte, error) {
	m := d.take("magic", len(magic))
	if d.err == nil && string(m) != magic {
		d.err = fieldError(ErrMalformed, d.what+".magic", "got %q, want %q", m, magic)
	}
	v := d.take("version", 1)
	if d.err != nil {
		return 0, d.err
	}
	if v[0] != 1 && v[0] != 2 {
		d.err = fieldError(ErrMalformed, d.what+".version", "got %d, want 1 or 2", v[0])
		return 0, d.err
	}
	return v[0], nil
}

// shareBits reads the share bound S of version 2, which must not be 0 (a
// zero would re-encode as version 1); version 1 has none and gives 0.
func (d *decoder) shareBits(version byte) int {
	if version == 1 {
		return 0
	}
	s := d.u16("ShareBits")
	if d.err == nil && s == 0 {
		d.err = fieldError(ErrMalformed, d.what+".ShareBits", "0 in version 2")
	}
	return s
}

func (d *decoder) u16(field string) int {
	s := d.take(field, 2)
	if d.err != nil {
		return 0
	}
	return int(binary.BigEndian.Uint16(s))
}

// modulus reads nLen:u16 then N, which must be minimal (no leading zero),
// odd and at most maxModulusBytes long.
func (d *decoder) modulus() *big.Int {
	nLen := d.u16("nLen")
	if d.err != nil {
		return nil
	}
	if nLen == 0 || nLen > maxModulusBytes {
		d.err = fieldError(ErrMalformed, d.what+".nLen", "%d, need 1..%d", nLen, maxModulusBytes)
		return nil
	}
	s := d.take("N", nLen)
	if d.err != nil {
		return nil
	}
	if s[0] == 0 {
		d.err = fieldError(ErrMalformed, d.what+".N", "leading zero byte")
		return nil
	}
	if s[nLen-1]&1 == 0 {
		d.err = fieldError(ErrMalformed, d.what+".N", "even")
		return nil
	}
	return new(big.Int).SetBytes(s)
}

func (d *decoder) fixed(field string, width int) *big.Int {
	s := d.take(field, width)
	if d.err != nil {
		return new(big.Int)
	}
	return new(big.Int).SetBytes(s)
}

func (d *decoder) end() error {
	if d.err == nil && d.off != len(d.b) {
		d.err = fieldError(ErrMalformed, d.what, "%d trailing bytes", len(d.b)-d.off)
	}
	return d.err
}
