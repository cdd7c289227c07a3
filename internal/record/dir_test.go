package record_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/fabvote/fabvote/internal/record"
)

// TestDirReadAhead: whatever order the blocks are asked for in — forward,
// back, or jumping about, where a block read ahead is never asked for —
// each answer is that block's own bytes.
func TestDirReadAhead(t *testing.T) {
	dir := "testdata/records/late-ballot"
	rb, err := os.ReadFile(filepath.Join(dir, record.RecordFile))
	if err != nil {
		t.Fatal(err)
	}
	info, err := record.ParseRecordJSON(rb)
	if err != nil {
		t.Fatal(err)
	}
	last := info.LastBlock
	want := map[uint64][]byte{}
	for n := uint64(0); n <= last; n++ {
		b, err := (&record.Dir{Path: dir, LastBlock: last}).Block(context.Background(), n) // a fresh Dir reads nothing ahead
		if err != nil {
			t.Fatal(err)
		}
		want[n] = b
	}
	orders := map[string][]uint64{"forward": {}, "back": {}, "jumping": {0, last, 1, 1, last - 1, 0, 2, 1}}
	for n := uint64(0); n <= last; n++ {
		orders["forward"] = append(orders["forward"], n)
		orders["back"] = append(orders["back"], last-n)
	}
	for name, order := range orders {
		d := &record.Dir{Path: dir, LastBlock: last}
		for _, n := range order {
			got, err := d.Block(context.Background(), n)
			if err != nil || !bytes.Equal(got, want[n]) {
				t.Fatalf("%s: block %d: %v, or not its bytes", name, n, err)
			}
		}
	}
}
