package tallyjournal

import (
	"math/big"
	"os"
	"path/filepath"
	"testing"
)

// FuzzJournal: any journal file is either refused or read into a journal
// that records a tally, refuses a different one for the same manifest, and
// accepts the same one again; nothing panics.
func FuzzJournal(f *testing.F) {
	f.Add([]byte(`{"version":1,"elections":{}}`))
	f.Add([]byte(`{"version":1,"elections":{"m":{"electionID":"e","productSHA256":"00","ballots":3}}}`))
	f.Add([]byte(`{"version":2,"elections":{}}`))
	f.Add([]byte(`{"version":1}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, File), data, 0o600); err != nil {
			t.Fatal(err)
		}
		j := &Journal{dir: dir}
		if _, err := j.read(); err != nil {
			return
		}
		if err := j.Record("fuzz-manifest", "e", big.NewInt(5), 8, 1); err != nil {
			return // the file already held another tally under this key
		}
		if err := j.Record("fuzz-manifest", "e", big.NewInt(5), 8, 1); err != nil {
			t.Fatalf("the same tally again: %v", err)
		}
		if err := j.Record("fuzz-manifest", "e", big.NewInt(6), 8, 1); err == nil {
			t.Fatal("another tally for the same manifest was accepted")
		}
	})
}
