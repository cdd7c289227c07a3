package protocol

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/big"
	"strings"
	"testing"
)

func ints(xs ...int64) []*big.Int {
	out := make([]*big.Int, len(xs))
	for i, x := range xs {
		out[i] = big.NewInt(x)
	}
	return out
}

// Every body decodes to what was encoded, and its encoding is canonical.
func TestBodyRoundTrip(t *testing.T) {
	huge := new(big.Int).Lsh(big.NewInt(1), 8*maxIntBytes-1)
	for _, tc := range []struct {
		name string
		b    body
	}{
		{"no list", body{kind: kindGamma, lists: [][]*big.Int{}}},
		{"an empty list", body{kind: kindGamma, lists: [][]*big.Int{{}}}},
		{"zero, signs, widths", body{kind: kindSubShare, lists: [][]*big.Int{ints(0, 1, -1, 255, 256, -65536)}}},
		{"two lists", body{kind: kindRoots, lists: [][]*big.Int{ints(7, 8), ints(-9, 10)}}},
		{"the largest integer", body{kind: kindCommitment, lists: [][]*big.Int{{huge, new(big.Int).Neg(huge)}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			enc, err := tc.b.encode()
			if err != nil {
				t.Fatal(err)
			}
			got, err := decodeBody(enc)
			if err != nil {
				t.Fatal(err)
			}
			if got.kind != tc.b.kind || len(got.lists) != len(tc.b.lists) {
				t.Fatalf("kind %s with %d lists, want %s with %d", got.kind, len(got.lists), tc.b.kind, len(tc.b.lists))
			}
			for l := range got.lists {
				if len(got.lists[l]) != len(tc.b.lists[l]) {
					t.Fatalf("list %d has %d integers, want %d", l, len(got.lists[l]), len(tc.b.lists[l]))
				}
				for i, x := range got.lists[l] {
					if x.Cmp(tc.b.lists[l][i]) != 0 {
						t.Fatalf("list %d, integer %d: %v, want %v", l, i, x, tc.b.lists[l][i])
					}
				}
			}
			again, _ := got.encode()
			if !bytes.Equal(again, enc) {
				t.Fatal("re-encoding differs")
			}
		})
	}
}

// header builds kind ‖ lists:u16 ‖ count:u32 by hand.
func header(k kind, lists int, count uint32) []byte {
	b := binary.BigEndian.AppendUint16([]byte{byte(k)}, uint16(lists))
	return binary.BigEndian.AppendUint32(b, count)
}

// Each kind of bad body is refused, naming what is wrong.
func TestDecodeRefuses(t *testing.T) {
	good, err := flat(kindGamma, 1).encode(ints(5))
	if err != nil {
		t.Fatal(err)
	}
	tooLong := append(header(kindGamma, 1, 1), 0, 0x08, 0x01) // 2,049 bytes announced
	tooLong = append(tooLong, make([]byte, maxIntBytes+1)...)
	tooLong[len(header(kindGamma, 1, 1))+3] = 1
	for _, tc := range []struct {
		name string
		data []byte
		sh   shape
		want string
	}{
		{"empty", nil, flat(kindGamma, 1), "truncated header"},
		{"non-minimal magnitude", append(header(kindGamma, 1, 1), 0, 0, 2, 0, 5), flat(kindGamma, 1), "leading zero"},
		{"negative zero", append(header(kindGamma, 1, 1), 1, 0, 0), flat(kindGamma, 1), "negative zero"},
		{"bad sign byte", append(header(kindGamma, 1, 1), 2, 0, 1, 5), flat(kindGamma, 1), "sign byte 2"},
		{"trailing bytes", append(append([]byte(nil), good...), 0), flat(kindGamma, 1), "1 trailing bytes"},
		{"truncated integer", good[:len(good)-1], flat(kindGamma, 1), "announced"},
		{"too many lists", binary.BigEndian.AppendUint16([]byte{byte(kindGamma)}, maxLists+1), flat(kindGamma, 1), "cap 4096"},
		{"more lists than bytes", binary.BigEndian.AppendUint16([]byte{byte(kindGamma)}, 2), flat(kindGamma, 1), "2 lists in 0 bytes"},
		{"too many integers", header(kindGamma, 1, maxInts+1), flat(kindGamma, 1), "more than 65536 integers"},
		{"more integers than bytes", header(kindGamma, 1, 1000), flat(kindGamma, 1), "1000 integers in 0 bytes"},
		{"integer over the cap", tooLong, flat(kindGamma, 1), "2049 bytes, cap 2048"},
		{"body over the cap", make([]byte, maxBodyBytes+1), flat(kindGamma, 1), "cap 16777216"},
		{"wrong kind", good, flat(kindSubShare, 1), "a γ opening body, want a sub-share body"},
		{"wrong list count for the round", good, shape{kind: kindGamma, lists: 2, width: 1}, "1 lists, the round wants 2"},
		{"wrong integer count for the round", good, flat(kindGamma, 2), "1 integers, the round wants 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.sh.decode(tc.data)
			if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %v naming %q", err, ErrMalformed, tc.want)
			}
		})
	}
}

// An encoder refuses what no decoder would accept.
func TestEncodeRefuses(t *testing.T) {
	over := new(big.Int).Lsh(big.NewInt(1), 8*maxIntBytes)
	for _, tc := range []struct {
		name string
		call func() error
		want string
	}{
		{"missing integer", func() error { _, err := flat(kindGamma, 1).encode([]*big.Int{nil}); return err }, "missing"},
		{"integer over the cap", func() error { _, err := flat(kindGamma, 1).encode([]*big.Int{over}); return err }, "cap 2048"},
		{"wrong count", func() error { _, err := flat(kindGamma, 1).encode(ints(1, 2)); return err }, "round wants 1"},
		{"too many lists", func() error {
			_, err := body{kind: kindGamma, lists: make([][]*big.Int, maxLists+1)}.encode()
			return err
		}, "cap 4096"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.call(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error naming %q", err, tc.want)
			}
		})
	}
}

// A decoded body re-encodes to the same bytes: one encoding per body.
func FuzzDecodeBody(f *testing.F) {
	for _, b := range []body{
		{kind: kindRoots, lists: [][]*big.Int{ints(1, -2), ints(300)}},
		{kind: kindGamma, lists: [][]*big.Int{{}}},
	} {
		enc, err := b.encode()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(enc)
	}
	f.Add(append(header(kindGamma, 1, 1), 0, 0, 2, 0, 5))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := decodeBody(data)
		if err != nil {
			return
		}
		enc, err := b.encode()
		if err != nil {
			t.Fatalf("a decoded body does not encode: %v", err)
		}
		if !bytes.Equal(enc, data) {
			t.Fatal("a decoded body re-encodes differently")
		}
	})
}

// Rounds encode canonically and distinctly, and bad encodings are refused.
func TestRoundEncoding(t *testing.T) {
	rounds := []Round{
		{PhaseSieve, 0, stepSieveDeal}, {PhaseSieve, 1, stepSieveDeal}, {PhaseSieve, 0, stepSieveOpen},
		{PhaseKeyShare, 0, stepKeyDeal}, {PhaseSelfTest, 0, stepPartial}, {PhaseSieve, 1 << 31, stepReshare + 1},
	}
	seen := map[string]bool{}
	for _, r := range rounds {
		b, _ := r.MarshalBinary()
		if seen[string(b)] {
			t.Fatalf("round %s shares an encoding", r)
		}
		seen[string(b)] = true
		got, err := ParseRound(b)
		if err != nil || got != r {
			t.Fatalf("round %s: parsed %v, %v", r, got, err)
		}
	}
	for _, tc := range []struct {
		name string
		b    []byte
		want string
	}{
		{"short", []byte{1, 0, 0, 0, 0, 0}, "6 bytes"},
		{"long", make([]byte, RoundLen+1), "8 bytes"},
		{"unknown phase", []byte{9, 0, 0, 0, 0, 0, 1}, "unknown phase 9"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := ParseRound(tc.b); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error naming %q", err, tc.want)
			}
		})
	}
}
