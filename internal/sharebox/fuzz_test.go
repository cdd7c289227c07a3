package sharebox

import (
	"strings"
	"testing"

	"filippo.io/age"

	"github.com/fabvote/fabvote/election/electiontest"
)

// FuzzParseRecipients: any input gives a list of the asked length without
// repeats, or an error; never a panic.
func FuzzParseRecipients(f *testing.F) {
	id, _ := age.GenerateX25519Identity()
	f.Add(id.Recipient().String()+"\n", 1)
	f.Add("# c\n\n"+id.Recipient().String()+"\n"+id.Recipient().String(), 2)
	f.Add("age1", 1)
	f.Fuzz(func(t *testing.T, in string, want int) {
		if want < 0 || want > 64 {
			return
		}
		rs, err := ParseRecipients(strings.NewReader(in), want)
		if err != nil {
			return
		}
		if len(rs) != want {
			t.Fatalf("%d recipients, want %d", len(rs), want)
		}
		seen := map[string]bool{}
		for _, r := range rs {
			s := r.(*age.X25519Recipient).String()
			if seen[s] {
				t.Fatalf("recipient %s twice", s)
			}
			seen[s] = true
		}
	})
}

// FuzzOpen: any bytes either open to a share that re-encodes to a valid
// share or give an error; never a panic.
func FuzzOpen(f *testing.F) {
	id, err := age.GenerateX25519Identity()
	if err != nil {
		f.Fatal(err)
	}
	_, _, shares := electiontest.Load().ThresholdManifest("fuzz", 2, 3)
	sealed, err := Seal(shares[0], id.Recipient())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(sealed)
	f.Add([]byte("age-encryption.org/v1\n"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		ks, err := Open(b, id)
		if err != nil {
			return
		}
		if _, err := ks.MarshalBinary(); err != nil {
			t.Fatalf("an opened share does not re-encode: %v", err)
		}
	})
}
