package registrar

import (
	"bytes"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fabvote/fabvote/internal/nettest"
)

func newTestLogger(w *nettest.SyncBuffer) *log.Logger { return log.New(w, "", 0) }

func testBinding(t *testing.T, dir string, n int) Binding {
	t.Helper()
	roll, _ := newRoll(t, dir, n)
	b, err := NewBinding("e1", []byte("manifest-1"), uint64(n), roll)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// newState makes a state for a fresh roll of n voters and returns its
// directory, path and binding; the caller opens it.
func newState(t *testing.T, n int) (dir, path string, b Binding) {
	t.Helper()
	dir = t.TempDir()
	b = testBinding(t, dir, n)
	path = filepath.Join(dir, "state.db")
	if err := InitStore(path, b); err != nil {
		t.Fatal(err)
	}
	return dir, path, b
}

// openState is newState, opened.
func openState(t *testing.T, n int) *Store {
	t.Helper()
	_, path, b := newState(t, n)
	st, err := OpenStore(path, b)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func fixedToken(tok string) MintFunc {
	return func(string, []byte) ([]byte, func(), error) { return []byte(tok), nil, nil }
}

// TestSecondOpenRefused: a second server on the same state file is refused
// with a clear error while the first holds it, and can open it afterwards.
func TestSecondOpenRefused(t *testing.T) {
	_, path, b := newState(t, 2)
	first, err := OpenStore(path, b)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = OpenStore(path, b)
	if !errors.Is(err, ErrStateLocked) || !strings.Contains(err.Error(), "another `fabvote ea serve`") {
		t.Fatalf("second open: err = %v, want ErrStateLocked naming the other server", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("second open took %v to fail", d)
	}
	first.Close()
	again, err := OpenStore(path, b)
	if err != nil {
		t.Fatalf("open after the first closed: %v", err)
	}
	again.Close()
}

// TestOpenRefusesMissingOrForeignState: each kind of wrong state file is
// refused with a message naming it, and opening never creates a file.
func TestOpenRefusesMissingOrForeignState(t *testing.T) {
	dir, path, b := newState(t, 2)
	otherRoll := testBinding(t, t.TempDir(), 2)
	other := func(change func(*Binding)) Binding { c := b; change(&c); return c }
	junk := filepath.Join(dir, "junk.db")
	os.WriteFile(junk, bytes.Repeat([]byte("x"), 8192), 0o600)
	tests := []struct {
		name, path string
		binding    Binding
		want       string
	}{
		{"missing", filepath.Join(dir, "gone.db"), b, "does not exist"},
		{"other election", path, other(func(c *Binding) { c.ElectionID = "e2" }), `belongs to election "e1", not "e2"`},
		{"other manifest", path, other(func(c *Binding) { c.ManifestDigest[0] ^= 1 }), "another manifest"},
		{"other roll", path, other(func(c *Binding) { c.RollDigest = otherRoll.RollDigest }), "another voter roll"},
		{"other maxVoters", path, other(func(c *Binding) { c.MaxVoters++ }), "another maxVoters"},
		{"not a database", junk, b, "junk.db"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st, err := OpenStore(tc.path, tc.binding)
			if err == nil {
				st.Close()
				t.Fatal("opened")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want mention of %q", err, tc.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "gone.db")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("opening a missing state created a file")
	}
}

// TestInitRefusesExisting: init never replaces a state, and leaves no
// temporary file behind.
func TestInitRefusesExisting(t *testing.T) {
	dir, path, b := newState(t, 2)
	st, _ := OpenStore(path, b)
	if _, err := st.Register("voter-000001", []byte("pub"), fixedToken("t1")); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if err := InitStore(path, b); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("init over an existing state: err = %v", err)
	}
	st, _ = OpenStore(path, b)
	defer st.Close()
	if st.Count() != 1 {
		t.Fatal("a refused init changed the state")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".init-") {
			t.Fatalf("temporary file %s left behind", e.Name())
		}
	}
}

// TestStoreNeverPassesMaxVoters: the count check holds inside the store's
// transaction, whatever the caller checked before.
func TestStoreNeverPassesMaxVoters(t *testing.T) {
	st := openState(t, 2)
	for i, id := range []string{"a", "b"} {
		if _, err := st.Register(id, []byte{byte(i)}, fixedToken(id)); err != nil {
			t.Fatal(err)
		}
	}
	minted := false
	_, err := st.Register("c", []byte("c"), func(string, []byte) ([]byte, func(), error) { minted = true; return []byte("c"), nil, nil })
	if !errors.Is(err, ErrFull) || minted {
		t.Fatalf("third token with maxVoters 2: err = %v, minted = %v", err, minted)
	}
	if st.Count() != 2 {
		t.Fatalf("count %d, want 2", st.Count())
	}
	// A retry of a stored voter still gets its token when the store is full.
	if reg, err := st.Register("a", []byte{0}, fixedToken("x")); err != nil || string(reg.Token) != "a" || !reg.Replayed {
		t.Fatalf("retry when full: %+v, %v", reg, err)
	}
}

// TestIssueErrorStoresNothing: a failed issue leaves no record behind.
func TestIssueErrorStoresNothing(t *testing.T) {
	st := openState(t, 2)
	_, err := st.Register("a", []byte("k"), func(string, []byte) ([]byte, func(), error) { return nil, nil, errors.New("hsm gone") })
	if err == nil || !strings.Contains(err.Error(), "hsm gone") {
		t.Fatalf("err = %v", err)
	}
	if reg, _ := st.Lookup("a"); reg != nil || st.Count() != 0 {
		t.Fatal("a failed issue left a record")
	}
	if _, err := st.Register("a", []byte("k"), fixedToken("ok")); err != nil {
		t.Fatalf("after a failed issue: %v", err)
	}
}

func TestRollLargerThanMaxVotersRefused(t *testing.T) {
	roll, _ := newRoll(t, t.TempDir(), 3)
	if _, err := NewBinding("e1", []byte("m"), 2, roll); err == nil || !strings.Contains(err.Error(), "more than the election's maxVoters 2") {
		t.Fatalf("roll of 3 with maxVoters 2: err = %v", err)
	}
	if _, err := NewBinding("e1", []byte("m"), 3, roll); err != nil {
		t.Fatalf("roll of 3 with maxVoters 3: %v", err)
	}
}

func TestRollDigest(t *testing.T) {
	a, _ := ParseRoll(strings.NewReader("alice,"+strings.Repeat("A", 20)+"\nbob,"+strings.Repeat("B", 20)+"\n"), "a")
	reordered, _ := ParseRoll(strings.NewReader("bob,"+strings.Repeat("B", 20)+"\nalice,"+strings.Repeat("A", 20)+"\n"), "b")
	otherCode, _ := ParseRoll(strings.NewReader("alice,"+strings.Repeat("A", 20)+"\nbob,"+strings.Repeat("C", 20)+"\n"), "c")
	if a.Digest() != reordered.Digest() {
		t.Fatal("the order of the roll's lines changes its digest")
	}
	if a.Digest() == otherCode.Digest() {
		t.Fatal("another code gives the same roll digest")
	}
}

// openWithFailingDisk opens the state at path and then closes its file
// under bbolt, so that every commit from then on fails as a dead disk's
// would, after the transaction (and the mint in it) has run.
func openWithFailingDisk(t *testing.T, path string, b Binding) *Store {
	t.Helper()
	var file *os.File
	openFile = func(name string, flag int, perm os.FileMode) (*os.File, error) {
		f, err := openExisting(name, flag, perm)
		file = f
		return f, err
	}
	defer func() { openFile = openExisting }()
	st, err := OpenStore(path, b)
	if err != nil {
		t.Fatal(err)
	}
	file.Close()
	return st
}

// TestCommitFailureUsesNoSlot: a registration whose commit fails answers
// no token, so it must not use up one of the minter's maxVoters slots:
// after failed commits, even more of them than maxVoters, the state
// reopened on a working disk still gets a token for every voter.
func TestCommitFailureUsesNoSlot(t *testing.T) {
	const n = 2
	for _, failures := range []int{1, n, 3 * n} {
		t.Run(fmt.Sprintf("%d failed commits", failures), func(t *testing.T) {
			dir := t.TempDir()
			roll, codes := newRoll(t, dir, n)
			mint, _, manifest := testMinter(t, "e1", n)
			b, err := NewBinding("e1", manifest, n, roll)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "state.db")
			if err := InitStore(path, b); err != nil {
				t.Fatal(err)
			}
			st := openWithFailingDisk(t, path, b)
			for i := range failures {
				if _, err := st.Register(codes[i%n][0], voterPub(t), mint.MintCancelable); err == nil {
					t.Fatalf("registration %d committed on a closed file", i)
				}
			}
			st.Close() // the file is gone already; only the mapping and the lock are released
			if got := mint.Issued(); got != 0 {
				t.Errorf("the minter counts %d tokens issued after %d failed commits, want 0", got, failures)
			}
			st, err = OpenStore(path, b)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			for i := range n {
				if _, err := st.Register(codes[i][0], voterPub(t), mint.MintCancelable); err != nil {
					t.Fatalf("voter %d after the disk recovered: %v", i, err)
				}
			}
			if st.Count() != n || mint.Issued() != n {
				t.Fatalf("state counts %d tokens and the minter %d, want %d", st.Count(), mint.Issued(), n)
			}
		})
	}
}
