package audit

import (
	"context"
	"fmt"
	"strings"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/chain"
)

// TrackerScan collects, block by block from the genesis block, the valid
// writes under an election's tracker and ciphertext claim prefixes since
// its opening (the first valid write of its manifest key; the opening's
// own writes included), in commit order: docs/RECORD.md 4.1, the input of
// CheckTrackers.
type TrackerScan struct {
	ns, manifestKey  string
	trackers, claims string // the prefixes
	opened           bool
	Writes           []TrackerWrite
}

// NewTrackerScan scans for election electionID's tracker and claim writes
// in chaincode namespace ns.
func NewTrackerScan(ns, electionID string) *TrackerScan {
	return &TrackerScan{ns: ns, manifestKey: election.LedgerKey(election.ObjManifest, electionID),
		trackers: election.LedgerKey(election.ObjTracker, electionID),
		claims:   election.LedgerKey(election.ObjCiphertext, electionID)}
}

// Block adds b's writes; blocks must come in order.
func (s *TrackerScan) Block(b *chain.Block) {
	for i, tx := range b.Txs {
		if !tx.Valid {
			continue
		}
		for _, w := range tx.Writes {
			s.opened = s.opened || w.Namespace == s.ns && w.Key == s.manifestKey
		}
		if !s.opened {
			continue
		}
		for _, w := range tx.Writes {
			if w.Namespace != s.ns {
				continue
			}
			tw := TrackerWrite{TxID: tx.ID, Block: b.Number, Index: i, Deleted: w.IsDelete, Value: w.Value}
			if rest, ok := strings.CutPrefix(w.Key, s.trackers); ok {
				tw.Rest = rest
				s.Writes = append(s.Writes, tw)
			} else if rest, ok := strings.CutPrefix(w.Key, s.claims); ok {
				tw.Rest, tw.Claim = rest, true
				s.Writes = append(s.Writes, tw)
			}
		}
	}
}

// ReadTrackerWrites scans every block r holds, for Ledger.Trackers on a
// live network (a record's scan is its index's).
func ReadTrackerWrites(ctx context.Context, r chain.Reader, ns, electionID string) ([]TrackerWrite, error) {
	h, err := r.Height(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the chain height: %w", err)
	}
	s := NewTrackerScan(ns, electionID)
	for n := uint64(0); n < h; n++ {
		raw, err := r.Block(ctx, n)
		if err != nil {
			return nil, fmt.Errorf("reading block %d: %w", n, err)
		}
		b, err := chain.ParseBlock(raw)
		if err != nil {
			return nil, fmt.Errorf("block %d: %w", n, err)
		}
		s.Block(b)
	}
	return s.Writes, nil
}
