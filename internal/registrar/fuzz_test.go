package registrar

import (
	"strings"
	"testing"
)

func FuzzParseRoll(f *testing.F) {
	f.Add("voter_id,code\nalice,ABCDEFGHIJKLMNOPQRST\nbob,KLMNOPQRSTUVWXYZ2345\n")
	f.Add("# comment\n\nalice,1234567890123456789012345\n")
	f.Add("alice,short\n")
	f.Add("a,b,c,d\n")
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
	})
}
