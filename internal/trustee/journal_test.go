package trustee_test

import (
	"context"
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/internal/tallyjournal"
	"github.com/fabvote/fabvote/internal/trustee"
)

// The attack: the tallier holds an endorsed ballot back, has the trustee
// decrypt the tally without it, commits it, and asks again; the two
// results would differ by that one vote. The journal makes the trustee
// refuse the second tally, naming both; the same tally again is fine, and
// the journal is written before the partial comes out.
func TestJournalRefusesASecondTally(t *testing.T) {
	w := newWorld(t)
	dir := t.TempDir()
	j, err := tallyjournal.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	recompute := func(f *fakeLedger) *trustee.Tally {
		t.Helper()
		tally, err := trustee.Recompute(context.Background(), w.of(f), w.raw, opts)
		if err != nil {
			t.Fatal(err)
		}
		return tally
	}
	heldBack := w.ledger(true)
	heldBack.entries = heldBack.entries[1:]
	first := recompute(heldBack)
	if _, err := first.PartialDecrypt(rand.Reader, w.shares[0], j); err != nil {
		t.Fatal(err)
	}
	journalled, err := os.ReadFile(filepath.Join(dir, tallyjournal.File))
	if err != nil {
		t.Fatalf("no journal after a partial decryption: %v", err)
	}
	if _, err := first.PartialDecrypt(rand.Reader, w.shares[0], j); err != nil {
		t.Fatalf("the same tally again: %v", err)
	}
	full := recompute(w.ledger(true))
	pd, err := full.PartialDecrypt(rand.Reader, w.shares[0], j)
	if !errors.Is(err, tallyjournal.ErrOtherTally) || pd != nil {
		t.Fatalf("a second tally of the election: %v, %v; want ErrOtherTally", pd, err)
	}
	for _, n := range []string{"of 3 ballots then", "of 4 ballots now", w.m.ElectionID} {
		if !strings.Contains(err.Error(), n) {
			t.Errorf("error %q does not name %q", err, n)
		}
	}
	if after, _ := os.ReadFile(filepath.Join(dir, tallyjournal.File)); string(after) != string(journalled) {
		t.Errorf("the refused tally changed the journal:\n%s\nwas\n%s", after, journalled)
	}
	// Another trustee's journal is its own.
	if _, err := full.PartialDecrypt(rand.Reader, w.shares[1], journal(t)); err != nil {
		t.Fatalf("another trustee: %v", err)
	}
}

// No journal, a missing directory and a damaged journal are refused, and
// nothing is decrypted.
func TestJournalRefusals(t *testing.T) {
	w := newWorld(t)
	tally, err := trustee.Recompute(context.Background(), w.of(w.ledger(true)), w.raw, opts)
	if err != nil {
		t.Fatal(err)
	}
	if pd, err := tally.PartialDecrypt(rand.Reader, w.shares[0], nil); err == nil || pd != nil {
		t.Fatalf("nil journal: %v, %v; want an error", pd, err)
	}
	if _, err := tallyjournal.Open(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Fatal("tallyjournal.Open of a missing directory: no error")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, tallyjournal.File), []byte(`{"version":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	j, err := tallyjournal.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if pd, err := tally.PartialDecrypt(rand.Reader, w.shares[0], j); err == nil || pd != nil || !strings.Contains(err.Error(), "not a version-1 journal") {
		t.Fatalf("damaged journal: %v, %v; want an error naming it", pd, err)
	}
}
