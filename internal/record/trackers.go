package record

import (
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/chain"
)

// Trackers is what a record's blocks hold of trackers (RECORD.md 4.1), for
// a reader that shows them, such as the bulletin board; whether they check
// is docs/VERIFY.md V32's business.
type Trackers struct {
	// Spoiled are the tracker keys' first writes that are no deletion, in
	// commit order: the spoiled ballots.
	Spoiled []SpoiledEntry
	// Cast maps the pseudonym of each indexed ballot that decodes to its
	// tracker (hex).
	Cast map[string]string
}

// SpoiledEntry is a spoiled ballot as the blocks hold it.
type SpoiledEntry struct {
	Tracker string // hex: its key's attribute
	TxID    string
	Block   uint64
	Index   int
	Value   []byte // the stored JSON, as written
}

// ReadTrackers reads the trackers of the record in dir, block by block.
// It assumes nothing of the record's soundness beyond record.json and the
// block files being readable: it is for showing, not for verifying.
func ReadTrackers(ctx context.Context, dir string) (*Trackers, error) {
	rb, err := os.ReadFile(filepath.Join(dir, RecordFile))
	if err != nil {
		return nil, err
	}
	info, err := ParseRecordJSON(rb)
	if err != nil {
		return nil, err
	}
	t := &Trackers{Cast: map[string]string{}}
	x := newIndexer(info.Chaincode, info.ElectionID)
	x.onBallot = func(p string, value []byte) {
		if stored, err := election.ParseRecord(value); err == nil {
			if b, err := election.ParseBallot(stored.Ballot); err == nil {
				t.Cast[p] = b.TrackerHex()
			}
		}
	}
	r := &Dir{Path: dir, LastBlock: info.LastBlock}
	for n := uint64(0); n <= info.LastBlock; n++ {
		raw, err := r.Block(ctx, n)
		if err != nil {
			return nil, err
		}
		b, err := chain.ParseBlock(raw)
		if err != nil {
			return nil, fmt.Errorf("block %d: %w", n, err)
		}
		x.block(b)
	}
	seen := map[string]bool{}
	for _, w := range x.trackers.Writes {
		k, ok := strings.CutSuffix(w.Rest, "\x00")
		if w.Claim || !ok || seen[k] || len(k) != 64 || strings.ToLower(k) != k {
			continue
		}
		seen[k] = true
		if _, err := hex.DecodeString(k); err != nil || w.Deleted {
			continue
		}
		t.Spoiled = append(t.Spoiled, SpoiledEntry{Tracker: k, TxID: w.TxID, Block: w.Block, Index: w.Index, Value: w.Value})
	}
	return t, nil
}
