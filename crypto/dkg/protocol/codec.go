package protocol

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"
)

// ErrMalformed wraps every refusal of a message body by the decoder.
var ErrMalformed = errors.New("protocol: malformed message body")

// Caps of the body codec. A decoder checks every count against them and
// against the bytes left before it allocates, so a hostile body costs at
// most about its own length in memory.
const (
	maxBodyBytes = 1 << 24 // 16 MiB: MaxBatch candidates' sieve deals for 5 trustees take about 4 MiB
	maxLists     = 1 << 12 // lists in a body
	maxInts      = 1 << 16 // integers in a body, over all lists
	maxIntBytes  = 1 << 11 // magnitude of one integer: 16,384 bits
)

// minIntBytes is the encoded size of the smallest integer (0): sign and
// length.
const minIntBytes = 3

// body is the generic content of every message: a kind tag and lists of
// signed integers. Its encoding is canonical (one byte string per body):
//
//	kind:u8 ‖ lists:u16 ‖ per list: count:u32 ‖ count × integer
//	integer = sign:u8 (0 non-negative, 1 negative) ‖ len:u16 ‖ magnitude
//
// with the magnitude big-endian and minimal (no leading zero byte; zero is
// len 0 with sign 0).
type body struct {
	kind  kind
	lists [][]*big.Int
}

// encode returns the canonical encoding of b. It refuses a body beyond the
// caps, which an honest trustee never builds.
func (b body) encode() ([]byte, error) {
	if len(b.lists) > maxLists {
		return nil, fmt.Errorf("protocol: %s body with %d lists, cap %d", b.kind, len(b.lists), maxLists)
	}
	out := []byte{byte(b.kind)}
	out = binary.BigEndian.AppendUint16(out, uint16(len(b.lists)))
	total := 0
	for _, list := range b.lists {
		total += len(list)
		if total > maxInts {
			return nil, fmt.Errorf("protocol: %s body with more than %d integers", b.kind, maxInts)
		}
		out = binary.BigEndian.AppendUint32(out, uint32(len(list)))
		for _, x := range list {
			var err error
			if out, err = appendInt(out, x); err != nil {
				return nil, fmt.Errorf("protocol: %s body: %w", b.kind, err)
			}
		}
	}
	if len(out) > maxBodyBytes {
		return nil, fmt.Errorf("protocol: %s body of %d bytes, cap %d", b.kind, len(out), maxBodyBytes)
	}
	return out, nil
}

func appendInt(out []byte, x *big.Int) ([]byte, error) {
	if x == nil {
		return nil, errors.New("an integer is missing")
	}
	mag := x.Bytes()
	if len(mag) > maxIntBytes {
		return nil, fmt.Errorf("an integer of %d bytes, cap %d", len(mag), maxIntBytes)
	}
	sign := byte(0)
	if x.Sign() < 0 {
		sign = 1
	}
	out = append(out, sign)
	out = binary.BigEndian.AppendUint16(out, uint16(len(mag)))
	return append(out, mag...), nil
}

// decodeBody parses a canonical body, checking the caps; it does not check
// the kind or the counts a round expects (see shape.decode).
func decodeBody(data []byte) (body, error) {
	if len(data) > maxBodyBytes {
		return body{}, fmt.Errorf("%w: %d bytes, cap %d", ErrMalformed, len(data), maxBodyBytes)
	}
	r := reader{data: data}
	k, lists := r.u8(), int(r.u16())
	if r.short {
		return body{}, fmt.Errorf("%w: truncated header", ErrMalformed)
	}
	if lists > maxLists {
		return body{}, fmt.Errorf("%w: %d lists, cap %d", ErrMalformed, lists, maxLists)
	}
	if lists*4 > r.left() {
		return body{}, fmt.Errorf("%w: %d lists in %d bytes", ErrMalformed, lists, r.left())
	}
	b := body{kind: kind(k), lists: make([][]*big.Int, lists)}
	total := 0
	for l := range b.lists {
		count := int(r.u32())
		switch {
		case r.short:
			return body{}, fmt.Errorf("%w: list %d: truncated count", ErrMalformed, l)
		case count > maxInts-total:
			return body{}, fmt.Errorf("%w: more than %d integers", ErrMalformed, maxInts)
		case count*minIntBytes > r.left():
			return body{}, fmt.Errorf("%w: list %d: %d integers in %d bytes", ErrMalformed, l, count, r.left())
		}
		total += count
		b.lists[l] = make([]*big.Int, count)
		for i := range b.lists[l] {
			x, err := r.integer()
			if err != nil {
				return body{}, fmt.Errorf("%w: list %d, integer %d: %v", ErrMalformed, l, i, err)
			}
			b.lists[l][i] = x
		}
	}
	if r.left() != 0 {
		return body{}, fmt.Errorf("%w: %d trailing bytes", ErrMalformed, r.left())
	}
	return b, nil
}

// reader reads big-endian fields; short records a read past the end.
type reader struct {
	data  []byte
	short bool
}

func (r *reader) left() int { return len(r.data) }

func (r *reader) take(n int) []byte {
	if n > len(r.data) {
		r.short, r.data = true, nil
		return make([]byte, n)
	}
	b := r.data[:n]
	r.data = r.data[n:]
	return b
}

func (r *reader) u8() uint8   { return r.take(1)[0] }
func (r *reader) u16() uint16 { return binary.BigEndian.Uint16(r.take(2)) }
func (r *reader) u32() uint32 { return binary.BigEndian.Uint32(r.take(4)) }

func (r *reader) integer() (*big.Int, error) {
	sign, n := r.u8(), int(r.u16())
	switch {
	case r.short:
		return nil, errors.New("truncated")
	case sign > 1:
		return nil, fmt.Errorf("sign byte %d, want 0 or 1", sign)
	case n > maxIntBytes:
		return nil, fmt.Errorf("%d bytes, cap %d", n, maxIntBytes)
	case n > r.left():
		return nil, fmt.Errorf("%d bytes announced, %d left", n, r.left())
	}
	mag := r.take(n)
	switch {
	case n > 0 && mag[0] == 0:
		return nil, errors.New("magnitude with a leading zero byte (not minimal)")
	case n == 0 && sign == 1:
		return nil, errors.New("negative zero")
	}
	x := new(big.Int).SetBytes(mag)
	if sign == 1 {
		x.Neg(x)
	}
	return x, nil
}
