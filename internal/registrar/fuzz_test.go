package registrar

import (
	"math"
	"strings"
	"testing"
)

func FuzzParseRoll(f *testing.F) {
	f.Add("voter_id,code\nalice,ABCDEFGHIJKLMNOPQRST\nbob,KLMNOPQRSTUVWXYZ2345\n")
	f.Add("# comment\n\nalice,1234567890123456789012345\n")
	f.Add("alice,short\n")
	f.Add("a,b,c,d\n")
	f.Add("voter_id,code,style\nalice,ABCDEFGHIJKLMNOPQRST,north\nbob,KLMNOPQRSTUVWXYZ2345,south\n")
	f.Add("alice,ABCDEFGHIJKLMNOPQRST,\n")
	f.Fuzz(func(t *testing.T, data string) {
		r, err := ParseRoll(strings.NewReader(data), "fuzz")
		if err != nil {
			return
		}
		// Every accepted id is valid and checks against its own code only.
		for _, id := range r.IDs() {
			if err := CheckVoterID(id); err != nil {
				t.Fatalf("accepted invalid id %q: %v", id, err)
			}
			if !r.Has(id) {
				t.Fatalf("id %q listed but not found", id)
			}
			if r.Check(id, "") {
				t.Fatalf("empty code accepted for %q", id)
			}
		}
		// A style is given only to a voter of the roll, and never empty.
		for id, style := range r.Styles() {
			if !r.Has(id) || style == "" {
				t.Fatalf("style %q for %q", style, id)
			}
		}
	})
}

// FuzzCodeBits: the estimate is len × log2(|A|) for an alphabet A that holds
// every character, and CheckCodeStrength agrees with it.
func FuzzCodeBits(f *testing.F) {
	for _, s := range []string{"", "0123456789", "ABCDEFGHIJKLMNOPQRST", "aB3-_x", "a!b c", "é", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, code string) {
		bits, alphabet, size, err := CodeBits(code)
		if err != nil {
			if CheckCodeStrength(code) == nil {
				t.Fatalf("%q: CodeBits fails but the strength check passes", code)
			}
			return
		}
		if want := float64(len(code)) * math.Log2(float64(size)); bits != want {
			t.Fatalf("%q: %v bits, want %v", code, bits, want)
		}
		if !onlyFrom(code, alphabetOf(t, alphabet)) {
			t.Fatalf("%q: alphabet %q does not hold it", code, alphabet)
		}
		if (CheckCodeStrength(code) == nil) != (bits >= MinCodeBits) {
			t.Fatalf("%q: %v bits, strength check disagrees", code, bits)
		}
	})
}

func alphabetOf(t *testing.T, name string) string {
	for _, a := range codeAlphabets {
		if a.name == name {
			return a.chars
		}
	}
	t.Fatalf("no alphabet %q", name)
	return ""
}
