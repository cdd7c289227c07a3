package tallyjournal

import (
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRecord: a tally is recorded durably, the same one again is accepted
// and changes nothing, another one for the same manifest is refused with
// both named and leaves the file as it was, and another manifest is another
// election.
func TestRecord(t *testing.T) {
	dir := t.TempDir()
	j, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	m1, m2 := ManifestKey([]byte("manifest 1")), ManifestKey([]byte("manifest 2"))
	if err := j.Record(m1, "e1", big.NewInt(7), 8, 3); err != nil {
		t.Fatal(err)
	}
	first, err := os.ReadFile(filepath.Join(dir, File))
	if err != nil {
		t.Fatalf("no journal file after Record: %v", err)
	}
	if fi, _ := os.Stat(j.Path()); fi.Mode().Perm() != 0o600 {
		t.Fatalf("journal mode %04o, want 0600", fi.Mode().Perm())
	}
	if err := j.Record(m1, "e1", big.NewInt(7), 8, 3); err != nil {
		t.Fatalf("the same tally again: %v", err)
	}
	err = j.Record(m1, "e1", big.NewInt(8), 8, 4)
	if !errors.Is(err, ErrOtherTally) {
		t.Fatalf("another tally: err = %v, want ErrOtherTally", err)
	}
	for _, n := range []string{"of 3 ballots then", "of 4 ballots now", `"e1"`} {
		if !strings.Contains(err.Error(), n) {
			t.Errorf("error %q does not name %q", err, n)
		}
	}
	if after, _ := os.ReadFile(j.Path()); string(after) != string(first) {
		t.Errorf("the refused tally changed the journal:\n%s\nwas\n%s", after, first)
	}
	if err := j.Record(m2, "e1", big.NewInt(8), 8, 4); err != nil {
		t.Fatalf("the same id under another manifest: %v", err)
	}
}

// TestOpenAndReadRefusals: a missing directory, a file for a directory and a
// damaged journal are refused.
func TestOpenAndReadRefusals(t *testing.T) {
	if _, err := Open(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Fatal("Open of a missing directory: no error")
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(file); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Fatalf("Open of a file: %v, want an error", err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, File), []byte(`{"version":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	j, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Record(ManifestKey(nil), "e", big.NewInt(1), 8, 1); err == nil || !strings.Contains(err.Error(), "not a version-1 journal") {
		t.Fatalf("damaged journal: %v, want an error naming it", err)
	}
}
