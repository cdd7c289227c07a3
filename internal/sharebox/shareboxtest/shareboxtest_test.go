package shareboxtest

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
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
	writeFile := func(dir, name, content string) {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	plain := mustMarshal(t, shares[1])
	tests := []struct {
		name  string
		setup func(dir string)
		want  string
	}{
		{"apart", func(string) {}, ""},
		{"a trustee's own identity beside its own share", func(dir string) {
			writeFile(dir, "t1/identity.txt", ids[0][0].(*age.X25519Identity).String()+"\n")
			data, _ := os.ReadFile(filepath.Join(dir, "trustee-1.share.age"))
			writeFile(dir, "t1/share.age", string(data))
		}, ""},
		{"two identities beside their shares", func(dir string) {
			writeFile(dir, "identity-1.txt", ids[0][0].(*age.X25519Identity).String()+"\n")
			writeFile(dir, "identity-2.txt", ids[1][0].(*age.X25519Identity).String()+"\n")
		}, "holds 2 usable shares"},
		{"an age file under any name, sealed to two trustees", func(dir string) {
			sealTo(dir, 0, rcps[0], rcps[1])
			os.Rename(filepath.Join(dir, filepath.Base(dir)+"-1.share.age"), filepath.Join(dir, "backup.bin"))
		}, "backup.bin opened by trustee 2 is share 1"},
		{"a share in hex in a log", func(dir string) { writeFile(dir, "logs/peer.log", "x share="+hex.EncodeToString(plain)+"\n") }, "peer.log holds a key share in the clear (hex)"},
		{"a share in base64 in JSON", func(dir string) {
			writeFile(dir, "state.json", `{"s":"`+base64.StdEncoding.EncodeToString(plain)+`"}`)
		}, "state.json holds a key share in the clear (base64)"},
		{"a share's bytes inside another file", func(dir string) { writeFile(dir, "core", "\x00\x01"+string(plain)+"\x02") }, "core holds a key share in the clear (raw)"},
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
