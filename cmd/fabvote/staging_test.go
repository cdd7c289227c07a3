package main

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"filippo.io/age"

	"github.com/fabvote/fabvote/election/electiontest"
)

// failingRecipient refuses to wrap a file key: a share that cannot be sealed.
type failingRecipient struct{}

func (failingRecipient) Wrap([]byte) ([]*age.Stanza, error) {
	return nil, errors.New("recipient refused")
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// Sealing that fails at the third share leaves nothing behind: not the
// first two sealed shares, not the EA key written before them.
func TestCreateFailureLeavesNothing(t *testing.T) {
	root := t.TempDir()
	dirs, _ := keygen(t, root, 2)
	_, _, shares := electiontest.Load().ThresholdManifest("staged", 2, 3)
	out := filepath.Join(root, "el")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	stage := &staging{dir: out}
	ea, err := stage.path("ea.key")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ea, []byte("key"), 0o600); err != nil {
		t.Fatal(err)
	}
	recipients := []age.Recipient{mustRecipient(t, dirs[0]), mustRecipient(t, dirs[1]), failingRecipient{}}
	if _, err := writeSealedShares(stage, shares, recipients); err == nil {
		t.Fatal("sealing to a failing recipient: no error")
	}
	stage.abort()
	if names := dirNames(t, out); len(names) != 0 {
		t.Fatalf("after a failed create, %s holds %v", out, names)
	}
}

// With --force, the files of the older election that the new one does not
// write again (a third trustee's share, a single key) are removed; the new
// files replace the old ones only at commit.
func TestCreateForceRemovesStaleSecrets(t *testing.T) {
	out := t.TempDir()
	for _, n := range []string{"trustee-1.share.age", "trustee-3.share.age", "paillier.key", "manifest.json", "voters.csv"} {
		if err := os.WriteFile(filepath.Join(out, n), []byte("old"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	stage := &staging{dir: out}
	for _, n := range []string{"trustee-1.share.age", "trustee-2.share.age", "manifest.json"} {
		p, err := stage.path(n)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("new"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(out, "manifest.json")); string(b) != "old" {
		t.Fatal("the manifest was replaced before commit")
	}
	if err := stage.commit("trustee-*.share.age", "paillier.key", "ea.key"); err != nil {
		t.Fatal(err)
	}
	want := []string{"manifest.json", "trustee-1.share.age", "trustee-2.share.age", "voters.csv"}
	if got := dirNames(t, out); !slices.Equal(got, want) {
		t.Fatalf("after create --force: %v, want %v", got, want)
	}
	for _, n := range want[:3] {
		if b, _ := os.ReadFile(filepath.Join(out, n)); string(b) != "new" {
			t.Errorf("%s holds %q, want the new file", n, b)
		}
	}
}
