package registrar

import (
	"strings"
	"testing"
)

func TestParseRollErrors(t *testing.T) {
	strong := strings.Repeat("A", 20)
	tests := []struct{ name, data, want string }{
		{"empty", "voter_id,code\n", "no voters"},
		{"no comma", "alice\n", "want \"voter_id,code\""},
		{"short code", "alice,abcdefgh\n", "fewer than 80"},
		{"dup", "alice," + strong + "\nalice," + strings.Repeat("B", 20) + "\n", "appears twice"},
		{"same code twice", "alice," + strong + "\nbob," + strong + "\n", "same code"},
		{"bad id", "a b," + strong + "\n", "voter id"},
		{"non-ASCII code", "alice," + strings.Repeat("é", 20) + "\n", "outside printable ASCII"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseRoll(strings.NewReader(tc.data), "roll.csv")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want mention of %q", err, tc.want)
			}
		})
	}
}

// TestCodeStrength pins the entropy estimate: len × log2(|A|) for the
// smallest listed alphabet A holding the code, at least 80 bits.
func TestCodeStrength(t *testing.T) {
	tests := []struct {
		code     string
		alphabet string
		ok       bool
	}{
		{strings.Repeat("7", 24), "decimal digits", false}, // 79.7 bits
		{strings.Repeat("7", 25), "decimal digits", true},  // 83.0
		{strings.Repeat("f", 19), "lower-case hex", false}, // 76
		{strings.Repeat("f", 20), "lower-case hex", true},  // 80
		{strings.Repeat("Q", 15), "base32", false},         // 75
		{strings.Repeat("Q", 16), "base32", true},          // 80
		{strings.Repeat("z", 15), "lower-case letters and digits", false},
		{strings.Repeat("z", 16), "lower-case letters and digits", true}, // 82.7
		{"aB" + strings.Repeat("c", 11), "letters and digits", false},    // 77.4
		{"aB" + strings.Repeat("c", 12), "letters and digits", true},     // 83.4
		{"a-" + strings.Repeat("c", 12), "base64url", true},              // 84
		{"a!" + strings.Repeat("c", 10), "printable ASCII", false},       // 78.8
		{"a!" + strings.Repeat("c", 11), "printable ASCII", true},        // 85.4
		{"", "decimal digits", false},
	}
	for _, tc := range tests {
		bits, alphabet, _, err := CodeBits(tc.code)
		if err != nil || alphabet != tc.alphabet {
			t.Errorf("%q: alphabet %q (err %v), want %q", tc.code, alphabet, err, tc.alphabet)
		}
		err = CheckCodeStrength(tc.code)
		if (err == nil) != tc.ok {
			t.Errorf("%q (%.1f bits): err = %v, want ok=%v", tc.code, bits, err, tc.ok)
		}
	}
	code, err := NewCode()
	if err != nil {
		t.Fatal(err)
	}
	if bits, _, _, _ := CodeBits(code); bits < 100 {
		t.Fatalf("NewCode %q holds %.0f bits, want 100", code, bits)
	}
}
