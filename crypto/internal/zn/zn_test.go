package zn

import (
	"math/big"
	"testing"
)

func TestStreamIsDeterministicAndDomainSeparated(t *testing.T) {
	n := new(big.Int).SetUint64(1_000_000_007 * 998_244_353)
	a, b := NewStream(n, []byte("tag"), []byte("x")), NewStream(n, []byte("tag"), []byte("x"))
	// Length prefixes keep ("tagx") and ("tag", "x") apart.
	c := NewStream(n, []byte("tagx"))
	for i := 0; i < 5; i++ {
		x, y, z := a.Next(), b.Next(), c.Next()
		if x.Cmp(y) != 0 {
			t.Fatalf("candidate %d differs between equal streams", i)
		}
		if x.Cmp(z) == 0 {
			t.Fatalf("candidate %d equal across different parts", i)
		}
		if x.Sign() < 0 || x.Cmp(n) >= 0 {
			t.Fatalf("candidate %d out of [0, N)", i)
		}
	}
}

// TestStreamVector pins the stream's definition, which verifier-py mirrors.
func TestStreamVector(t *testing.T) {
	n := new(big.Int).SetUint64(0xffff_fffb) // prime, 4 bytes: 20 bytes drawn
	got := NewStream(n, []byte("fabvote"), U32(7)).Next()
	// Python: int.from_bytes(sha256(b"\0\0\0\7fabvote\0\0\0\4\0\0\0\7" + b"\0"*8).digest()[:20], "big") % 0xfffffffb
	want, _ := new(big.Int).SetString(streamVector, 10)
	if got.Cmp(want) != 0 {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestExpSigned(t *testing.T) {
	n := big.NewInt(77)
	for _, tc := range []struct {
		name    string
		x, e    int64
		want    int64
		wantNil bool
	}{
		{"positive", 3, 5, 243 % 77, false},
		{"zero exponent", 3, 0, 1, false},
		{"negative", 3, -1, 26, false}, // 3·26 = 78 ≡ 1
		{"negative, not invertible", 7, -2, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ExpSigned(big.NewInt(tc.x), big.NewInt(tc.e), n)
			if tc.wantNil {
				if got != nil {
					t.Fatalf("got %v, want nil", got)
				}
				return
			}
			if got == nil || got.Int64() != tc.want {
				t.Fatalf("got %v, want %d", got, tc.want)
			}
		})
	}
}

const streamVector = "3501834796"
