package shareboxtest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"filippo.io/age"

	"github.com/fabvote/fabvote/election/electiontest"
	"github.com/fabvote/fabvote/internal/sharebox"
)

// CheckApart passes shares sealed one to each trustee, and names each way
// shares can sit together.
func TestCheckApart(t *testing.T) {
	_, pp, shares := electiontest.Load().ThresholdManifest("apart", 2, 3)
	var ids [][]age.Identity
	var rcps []*age.X25519Recipient
	for range shares {
		id, err := age.GenerateX25519Identity()
		if err != nil {
			t.Fatal(err)
		}
		ids, rcps = append(ids, []age.Identity{id}), append(rcps, id.Recipient())
	}
	other, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}
	stranger := other.Recipient()
	sealTo := func(dir string, i int, to ...age.Recipient) {
		plain, _ := shares[i].MarshalBinary()
		var buf bytes.Buffer
		w, err := age.Encrypt(&buf, to...)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(plain)
		w.Close()
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(dir)+"-"+string(rune('1'+i))+".share.age"), buf.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name  string
		setup func(dir string)
		want  string
	}{
		{"apart", func(string) {}, ""},
		{"a share in the clear", func(dir string) {
			if err := os.WriteFile(filepath.Join(dir, "trustee-1.key"), mustMarshal(t, shares[0]), 0o600); err != nil {
				t.Fatal(err)
			}
		}, "in the clear"},
		{"sealed to two trustees", func(dir string) { sealTo(dir, 0, rcps[0], rcps[1]) }, "opened by trustee 2 is share 1"},
		{"sealed to no trustee", func(dir string) { sealTo(dir, 0, stranger) }, "opens with trustees [], want exactly one"},
		{"sealed to the wrong trustee", func(dir string) { sealTo(dir, 0, rcps[2]) }, "opened by trustee 3 is share 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for i, s := range shares {
				if err := sharebox.WriteSealed(filepath.Join(dir, "trustee-"+string(rune('1'+i))+".share.age"), s, rcps[i]); err != nil {
					t.Fatal(err)
				}
			}
			tc.setup(dir)
			problems, _, err := CheckApart(dir, ids, pp)
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join(problems, "\n")
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Fatalf("problems:\n%s\nwant one containing %q", got, tc.want)
			}
		})
	}
}

func mustMarshal(t *testing.T, v interface{ MarshalBinary() ([]byte, error) }) []byte {
	b, err := v.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return b
}
