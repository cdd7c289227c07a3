package votecode

import (
	"errors"
	"math/big"
	"testing"
)

func TestNewPicksSmallestBase(t *testing.T) {
	for _, tc := range []struct {
		maxVoters uint64
		bits      uint
	}{
		{1, 1}, {2, 2}, {3, 2}, {4, 3}, {1023, 10}, {1024, 11}, {1_000_000, 20}, {1 << 63, 64}, {^uint64(0), 64},
	} {
		e, err := New(tc.maxVoters, 3)
		if err != nil {
			t.Fatalf("New(%d): %v", tc.maxVoters, err)
		}
		if e.Bits != tc.bits {
			t.Errorf("New(%d).Bits = %d, want %d", tc.maxVoters, e.Bits, tc.bits)
		}
		// 2^b > maxVoters and 2^(b-1) ≤ maxVoters.
		mv := new(big.Int).SetUint64(tc.maxVoters)
		if e.Base().Cmp(mv) <= 0 || new(big.Int).Rsh(e.Base(), 1).Cmp(mv) > 0 {
			t.Errorf("New(%d): base 2^%d is not the smallest above maxVoters", tc.maxVoters, e.Bits)
		}
	}
	for _, tc := range []struct {
		maxVoters  uint64
		candidates int
	}{{0, 3}, {10, 1}, {10, 0}, {10, -2}, {10, 1<<16 + 1}} {
		if _, err := New(tc.maxVoters, tc.candidates); !errors.Is(err, ErrInvalid) {
			t.Errorf("New(%d, %d): err = %v, want ErrInvalid", tc.maxVoters, tc.candidates, err)
		}
	}
}

func TestEncodeDecode(t *testing.T) {
	e, err := New(1000, 4) // M = 1024
	if err != nil {
		t.Fatal(err)
	}
	msgs := e.Messages()
	if len(msgs) != 4 {
		t.Fatalf("%d messages", len(msgs))
	}
	tally := new(big.Int)
	votes := []int{0, 2, 2, 3, 3, 3}
	for _, j := range votes {
		m, err := e.Encode(j)
		if err != nil {
			t.Fatal(err)
		}
		if m.Cmp(msgs[j]) != 0 || m.Cmp(new(big.Int).Exp(big.NewInt(1024), big.NewInt(int64(j)), nil)) != 0 {
			t.Fatalf("Encode(%d) = %v", j, m)
		}
		tally.Add(tally, m)
	}
	counts, err := e.Decode(tally)
	if err != nil {
		t.Fatal(err)
	}
	want := []uint64{1, 0, 2, 3}
	for j := range want {
		if counts[j] != want[j] {
			t.Fatalf("counts = %v, want %v", counts, want)
		}
	}
	// The largest tally: every digit at maxVoters capacity (M-1).
	full := new(big.Int).Sub(e.Bound(), big.NewInt(1))
	counts, err = e.Decode(full)
	if err != nil || counts[0] != 1023 || counts[3] != 1023 {
		t.Fatalf("Decode(M^p-1) = %v, %v", counts, err)
	}
	for _, tc := range []struct {
		name string
		t    *big.Int
	}{{"negative", big.NewInt(-1)}, {"M^p", e.Bound()}, {"nil", nil}} {
		if _, err := e.Decode(tc.t); !errors.Is(err, ErrInvalid) {
			t.Errorf("Decode(%s): err = %v, want ErrInvalid", tc.name, err)
		}
	}
	for _, j := range []int{-1, 4} {
		if _, err := e.Encode(j); !errors.Is(err, ErrInvalid) {
			t.Errorf("Encode(%d): err = %v, want ErrInvalid", j, err)
		}
	}
}

func TestFitsModulus(t *testing.T) {
	e := Encoding{Bits: 20, Candidates: 4} // M^p = 2^80
	if err := e.FitsModulus(new(big.Int).Lsh(big.NewInt(1), 80)); err != nil {
		t.Fatalf("2^80 rejected: %v", err)
	}
	if err := e.FitsModulus(new(big.Int).Lsh(big.NewInt(1), 79)); !errors.Is(err, ErrInvalid) {
		t.Fatalf("2^79: err = %v, want ErrInvalid", err)
	}
	if (Encoding{Bits: 0, Candidates: 2}).Messages() != nil {
		t.Fatal("Messages of an invalid encoding is not nil")
	}
}
