package wellformed

import (
	"fmt"
	"math/big"
)

// Binary encoding, relative to N; every element takes exactly W = ⌈|N|/8⌉
// bytes, big-endian:
//
//	"FVPM" 0x01 w 80 × (flags:u8 x z)
//
// flags holds a_k in bit 0 and b_k in bit 1; its other bits are 0. The
// decoder checks the exact length, the magic and version, the flags and
// that every element is below N, so re-encoding a decoded proof gives back
// the input byte for byte.
const (
	magic      = "FVPM"
	encVersion = 1
	flagA      = 1 << 0
	flagB      = 1 << 1
)

// EncodedLen is the length of every encoded proof for N.
func EncodedLen(n *big.Int) int {
	w := byteLen(n)
	return len(magic) + 1 + w + Challenges*(1+2*w)
}

// Marshal encodes the proof for N. Every element must be in [0, N).
func (p *Proof) Marshal(n *big.Int) ([]byte, error) {
	if n == nil || n.Sign() <= 0 || p == nil {
		return nil, fmt.Errorf("%w: no modulus or no proof", ErrBadInput)
	}
	w := byteLen(n)
	b := make([]byte, 0, EncodedLen(n))
	b = append(b, magic...)
	b = append(b, encVersion)
	var err error
	if b, err = appendElem(b, n, p.W, w, "w"); err != nil {
		return nil, err
	}
	for k, r := range p.Responses {
		var flags byte
		if r.A {
			flags |= flagA
		}
		if r.B {
			flags |= flagB
		}
		b = append(b, flags)
		if b, err = appendElem(b, n, r.X, w, fmt.Sprintf("x_%d", k+1)); err != nil {
			return nil, err
		}
		if b, err = appendElem(b, n, r.Z, w, fmt.Sprintf("z_%d", k+1)); err != nil {
			return nil, err
		}
	}
	return b, nil
}

func appendElem(b []byte, n, x *big.Int, width int, name string) ([]byte, error) {
	if x == nil || x.Sign() < 0 || x.Cmp(n) >= 0 {
		return nil, fmt.Errorf("%w: %s not in [0, N)", ErrBadInput, name)
	}
	return append(b, fixed(x, width)...), nil
}

// Parse decodes a proof for N. It checks the encoding, not the proof: that
// is Verify.
func Parse(n *big.Int, b []byte) (*Proof, error) {
	if n == nil || n.Sign() <= 0 {
		return nil, fmt.Errorf("%w: no modulus", ErrBadInput)
	}
	if len(b) != EncodedLen(n) {
		return nil, fmt.Errorf("%w: length %d, want %d for a %d-bit N", ErrMalformed, len(b), EncodedLen(n), n.BitLen())
	}
	if string(b[:len(magic)]) != magic {
		return nil, fmt.Errorf("%w: magic %q, want %q", ErrMalformed, b[:len(magic)], magic)
	}
	if v := b[len(magic)]; v != encVersion {
		return nil, fmt.Errorf("%w: version %d, want %d", ErrMalformed, v, encVersion)
	}
	d := elemReader{n: n, b: b[len(magic)+1:], w: byteLen(n)}
	p := &Proof{W: d.elem("w")}
	for k := range p.Responses {
		flags := d.flags(k + 1)
		r := &p.Responses[k]
		r.A, r.B = flags&flagA != 0, flags&flagB != 0
		r.X = d.elem(fmt.Sprintf("x_%d", k+1))
		r.Z = d.elem(fmt.Sprintf("z_%d", k+1))
	}
	if d.err != nil {
		return nil, d.err
	}
	return p, nil
}

// elemReader reads the fields after the header, whose total length is
// already checked; the first error sticks.
type elemReader struct {
	n   *big.Int
	b   []byte
	w   int
	err error
}

func (d *elemReader) elem(name string) *big.Int {
	x := new(big.Int).SetBytes(d.b[:d.w])
	d.b = d.b[d.w:]
	if d.err == nil && x.Cmp(d.n) >= 0 {
		d.err = fmt.Errorf("%w: %s not below N", ErrMalformed, name)
	}
	return x
}

func (d *elemReader) flags(k int) byte {
	f := d.b[0]
	d.b = d.b[1:]
	if d.err == nil && f&^(flagA|flagB) != 0 {
		d.err = fmt.Errorf("%w: flags of challenge %d: unknown bits 0x%02x", ErrMalformed, k, f&^(flagA|flagB))
	}
	return f
}
