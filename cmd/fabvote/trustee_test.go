package main

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"filippo.io/age"

	"github.com/fabvote/fabvote/crypto/paillier/threshold"
	"github.com/fabvote/fabvote/election/electiontest"
	"github.com/fabvote/fabvote/internal/sharebox"
	"github.com/fabvote/fabvote/internal/sharebox/shareboxtest"
)

// keygen runs `trustee keygen` for n trustees under dir and returns their
// directories and a recipients file in trustee order.
func keygen(t *testing.T, dir string, n int) ([]string, string) {
	t.Helper()
	var dirs, lines []string
	for i := 1; i <= n; i++ {
		d := filepath.Join(dir, "trustee-"+string(rune('0'+i)))
		if code, stderr := fv(t, "trustee", "keygen", "--out", d); code != 0 {
			t.Fatalf("trustee keygen: exit %d: %s", code, stderr)
		}
		b, err := os.ReadFile(filepath.Join(d, sharebox.RecipientFile))
		if err != nil {
			t.Fatal(err)
		}
		dirs, lines = append(dirs, d), append(lines, strings.TrimSpace(string(b)))
	}
	rf := filepath.Join(dir, "recipients.txt")
	if err := os.WriteFile(rf, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dirs, rf
}

func identities(t *testing.T, dirs []string) [][]age.Identity {
	t.Helper()
	var out [][]age.Identity
	for _, d := range dirs {
		ids, err := sharebox.ReadIdentityFile(filepath.Join(d, sharebox.IdentityFile))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ids)
	}
	return out
}

// After the dealer writes the shares, no directory holds two usable
// shares: no file anywhere is a share in the clear, each sealed share opens
// with its own trustee's identity and with no other, and the dealer's
// copies are wiped.
func TestSealedSharesApart(t *testing.T) {
	root := t.TempDir()
	dirs, rf := keygen(t, root, 3)
	f, err := os.Open(rf)
	if err != nil {
		t.Fatal(err)
	}
	recipients, err := sharebox.ParseRecipients(f, 3)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	_, pp, shares := electiontest.Load().ThresholdManifest("apart", 2, 3)
	out := filepath.Join(root, "election")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	stage := &staging{dir: out}
	if _, err := writeSealedShares(stage, shares, recipients); err != nil {
		t.Fatal(err)
	}
	if err := stage.commit(); err != nil {
		t.Fatal(err)
	}
	for _, s := range shares {
		if err := s.Check(pp); !errors.Is(err, threshold.ErrInvalidShare) {
			t.Errorf("the dealer's share %d is still usable after sealing: Check = %v", s.Index, err)
		}
	}
	problems, sealed, err := shareboxtest.CheckApart(root, identities(t, dirs), pp)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
	if sealed != 3 {
		t.Fatalf("%d sealed shares, want 3", sealed)
	}
}

// Each bad invocation of the trustee commands and of election create's
// trustee flags exits with its own message and writes nothing.
func TestTrusteeRefusals(t *testing.T) {
	root := t.TempDir()
	dirs, rf := keygen(t, root, 3)
	manifest, sealed := writeThresholdElection(t, root, dirs[0])
	short, dup := writeBadRecipients(t, root, rf)
	create := func(extra ...string) []string {
		return append([]string{"election", "create", "--election", "x", "--candidates", "a,b", "--max-voters", "10",
			"--trustees", "3", "--threshold", "2", "--out", filepath.Join(root, "created")}, extra...)
	}
	partial := filepath.Join(root, "partial.bin")
	decrypt := func(extra ...string) []string {
		return append([]string{"trustee", "decrypt", "--manifest", manifest, "--share", sealed, "--out", partial}, extra...)
	}
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"create without recipients", create(), 2, "--trustees needs --trustee-recipients"},
		{"create with too few recipients", create("--trustee-recipients", short), 2, "2 recipients for 3 trustees"},
		{"create with a recipient twice", create("--trustee-recipients", dup), 2, "would hold two shares"},
		{"recipients without trustees", []string{"election", "create", "--election", "x", "--candidates", "a,b", "--max-voters", "10",
			"--trustee-recipients", rf, "--out", filepath.Join(root, "created")}, 2, "need --trustees"},
		{"decrypt with --product", decrypt("--age-identity", filepath.Join(dirs[0], sharebox.IdentityFile), "--product", "p.bin"), 2, "--product is removed"},
		{"decrypt without identity", decrypt(), 2, "--age-identity is required"},
		// The share is opened only after the tally is recomputed from the
		// ledger: without a network, not even a wrong identity is noticed.
		{"decrypt with another trustee's identity, no network", decrypt("--age-identity", filepath.Join(dirs[1], sharebox.IdentityFile),
			"--network", filepath.Join(root, "none.json")), 1, "none.json"},
		{"decrypt without a network", decrypt("--age-identity", filepath.Join(dirs[0], sharebox.IdentityFile), "--network", filepath.Join(root, "none.json")), 1, "none.json"},
		{"tally with --product-out", []string{"tally", "--manifest", manifest, "--product-out", "p.bin"}, 2, "--product-out is removed"},
		{"tally with nothing to decrypt", []string{"tally", "--manifest", manifest}, 2, "nothing to decrypt with"},
		{"tally share without identity", []string{"tally", "--manifest", manifest, "--share", sealed}, 2, "--share and --age-identity go together"},
		{"tally with two shares", []string{"tally", "--manifest", manifest, "--share", sealed, "--age-identity", filepath.Join(dirs[0], sharebox.IdentityFile),
			"--share", sealed, "--age-identity", filepath.Join(dirs[1], sharebox.IdentityFile)}, 2, "at most one --share"},
		{"tally with one share, two identities", []string{"tally", "--manifest", manifest, "--share", sealed, "--age-identity", filepath.Join(dirs[0], sharebox.IdentityFile),
			"--age-identity", filepath.Join(dirs[1], sharebox.IdentityFile)}, 2, "at most one --share and one --age-identity"},
		{"keygen over an identity", []string{"trustee", "keygen", "--out", dirs[0]}, 1, "already exists"},
	}
	before := snapshot(t, root)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stderr := fv(t, tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, want %d naming %q; stderr:\n%s", code, tc.code, tc.want, stderr)
			}
			if after := snapshot(t, root); after != before {
				t.Fatalf("files changed:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

// writeThresholdElection writes the manifest of a 2-of-3 election in root
// and its first share, sealed to the trustee of dir; it returns their paths.
func writeThresholdElection(t *testing.T, root, dir string) (manifest, sealed string) {
	m, _, shares := electiontest.Load().ThresholdManifest("refuse", 2, 3)
	manifest = filepath.Join(root, "manifest.json")
	raw, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(manifest, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	sealed = filepath.Join(root, "trustee-1.share.age")
	if err := sharebox.WriteSealed(sealed, shares[0], mustRecipient(t, dir)); err != nil {
		t.Fatal(err)
	}
	return manifest, sealed
}

// writeBadRecipients writes two recipients files made of the recipients
// file rf: one with a recipient too few, one with a recipient twice.
func writeBadRecipients(t *testing.T, root, rf string) (short, dup string) {
	short = filepath.Join(root, "short.txt")
	dup = filepath.Join(root, "dup.txt")
	rcps, _ := os.ReadFile(rf)
	lines := strings.Split(strings.TrimSpace(string(rcps)), "\n")
	os.WriteFile(short, []byte(lines[0]+"\n"+lines[1]+"\n"), 0o644)
	os.WriteFile(dup, []byte(lines[0]+"\n"+lines[1]+"\n"+lines[0]+"\n"), 0o644)
	return short, dup
}

func mustRecipient(t *testing.T, dir string) age.Recipient {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, sharebox.RecipientFile))
	if err != nil {
		t.Fatal(err)
	}
	r, err := age.ParseX25519Recipient(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// snapshot lists every file and directory under root with a hash of its contents.
func snapshot(t *testing.T, root string) string {
	t.Helper()
	var sb strings.Builder
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		b := []byte(nil)
		if !d.IsDir() {
			if b, err = os.ReadFile(path); err != nil {
				return err
			}
		}
		sb.WriteString(fmt.Sprintf("%s:%x\n", path, sha256.Sum256(b)))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return sb.String()
}
