package audit

import (
	"context"
	"fmt"
	"strings"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/chain"
)

// TrackerScan collects, block by block from the genesis block, the valid
// writes under an election's tracker prefix since its opening (the first
// valid write of its manifest key; the opening's own writes included), in
// commit order: docs/RECORD.md 4.1, the input of CheckTrackers.
type TrackerScan struct {
	ns, manifestKey, prefix string
	opened                  bool
	Writes                  []TrackerWrite
}

// NewTrackerScan scans for election electionID's tracker writes in
// chaincode namespace ns.
func NewTrackerScan(ns, electionID string) *TrackerScan {
	return &TrackerScan{ns: ns, manifestKey: election.LedgerKey(election.ObjManifest, electionID),
		prefix: election.LedgerKey(election.ObjTracker, electionID)}
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
			if w.Namespace == s.ns && strings.HasPrefix(w.Key, s.prefix) {
				s.Writes = append(s.Writes, TrackerWrite{Rest: strings.TrimPrefix(w.Key, s.prefix), TxID: tx.ID,
					Block: b.Number, Index: i, Deleted: w.IsDelete, Value: w.Value})
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
