package benchprobe

import (
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	r, err := Run(3, 20)
	if err != nil {
		t.Fatal(err)
	}
	if r.ExpNs <= 0 || r.VerifyNs <= 0 || r.ExpOps != 3 || r.VerifyOps != 20 {
		t.Fatalf("Run(3, 20) = %+v", r)
	}
	if _, err := Run(0, 1); err == nil {
		t.Fatal("Run(0, 1) ran no exponentiation and did not say so")
	}
}

// TestExpInputsFixed: every machine runs the same exponentiation.
func TestExpInputsFixed(t *testing.T) {
	b1, e1, m1 := expInputs()
	b2, e2, m2 := expInputs()
	if b1.Cmp(b2) != 0 || e1.Cmp(e2) != 0 || m1.Cmp(m2) != 0 {
		t.Fatal("expInputs differs between calls")
	}
	if m1.BitLen() != 4096 || m1.Bit(0) != 1 || b1.BitLen() > 2048 || e1.BitLen() > 2048 {
		t.Fatalf("modulus of %d bits (odd: %d), base %d bits, exponent %d bits", m1.BitLen(), m1.Bit(0), b1.BitLen(), e1.BitLen())
	}
}

func TestParseSteal(t *testing.T) {
	for _, tc := range []struct {
		name, stat string
		steal      uint64
		ok         bool
	}{
		{"linux", "cpu  4705 356 584 3699176 23 23 0 17 0 0\ncpu0 1 2 3 4 5 6 7 8 9 10\n", 17, true},
		{"short cpu line", "cpu  1 2 3 4 5 6 7\n", 0, false},
		{"no cpu line", "intr 1 2\n", 0, false},
		{"not a number", "cpu  1 2 3 4 5 6 7 x\n", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseSteal(strings.NewReader(tc.stat))
			if (err == nil) != tc.ok || got != tc.steal {
				t.Fatalf("parseSteal = %d, %v; want %d, ok %v", got, err, tc.steal, tc.ok)
			}
		})
	}
}
