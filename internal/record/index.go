package record

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/audit"
	"github.com/fabvote/fabvote/internal/chain"
)

// indexer builds ballots.json from the blocks, oldest first (RECORD.md
// section 4): for each ballot key of the election, its first valid write
// since the first valid write of the manifest key (the opening; the
// opening transaction's own writes included). A later write or a deletion
// of a key is not indexed: the audit reports it as COMMIT_ORDER.
type indexer struct {
	ns, manifestKey, prefix string
	opened                  bool
	openingDeletes          bool            // the opening deletes the manifest key
	manifest                []byte          // the value of the opening's manifest write
	openingTx               string          // the opening transaction's id
	seen                    map[string]bool // ballot keys written since the opening
	entries                 []Entry
	bad                     []string           // writes under the prefix that are no ballot key
	trackers                *audit.TrackerScan // the writes under the tracker prefix (RECORD.md 4.1)
	// onBallot, if set, is given each indexed ballot key's value.
	onBallot func(pseudonym string, value []byte)
}

func newIndexer(chaincode, electionID string) *indexer {
	return &indexer{ns: chaincode, manifestKey: election.LedgerKey(election.ObjManifest, electionID),
		prefix: election.LedgerKey(election.ObjBallot, electionID), trackers: audit.NewTrackerScan(chaincode, electionID),
		seen: make(map[string]bool)}
}

// block adds b's valid writes.
func (x *indexer) block(b *chain.Block) {
	x.trackers.Block(b)
	for i, tx := range b.Txs {
		if !tx.Valid {
			continue
		}
		for _, w := range tx.Writes {
			if w.Namespace == x.ns && w.Key == x.manifestKey && !x.opened {
				x.opened, x.manifest, x.openingTx, x.openingDeletes = true, w.Value, tx.ID, w.IsDelete
			}
		}
		if !x.opened {
			continue
		}
		for _, w := range tx.Writes {
			if w.Namespace == x.ns && strings.HasPrefix(w.Key, x.prefix) {
				x.write(w, tx.ID, b.Number, i)
			}
		}
	}
}

func (x *indexer) write(w chain.Write, txID string, block uint64, index int) {
	p, ok := strings.CutSuffix(strings.TrimPrefix(w.Key, x.prefix), "\x00")
	if !ok || !election.IsPseudonymHex(p) {
		x.bad = append(x.bad, fmt.Sprintf("block %d, tx %s writes key %q, which is not a ballot key", block, txID, w.Key))
		return
	}
	if x.seen[p] {
		return
	}
	x.seen[p] = true
	if w.IsDelete {
		return
	}
	if x.onBallot != nil {
		x.onBallot(p, w.Value)
	}
	h := BallotHash(w.Value)
	x.entries = append(x.entries, Entry{Pseudonym: p, BallotHash: hex.EncodeToString(h[:]), TxID: txID, Block: block, Index: index})
}

// sorted returns the entries in ballots.json's order: by pseudonym.
func (x *indexer) sorted() []Entry {
	out := slices.Clone(x.entries)
	slices.SortFunc(out, func(a, b Entry) int { return strings.Compare(a.Pseudonym, b.Pseudonym) })
	return out
}

// BallotHash is an index entry's ballotHash of a ballot key's value: the
// SHA-256 of the ballot inside the record encoding (the hash on the voter's
// receipt), or of the whole value when it is no record encoding (the audit
// then reports the ballot as not decoding).
func BallotHash(value []byte) [32]byte {
	ballot, _ := election.StoredBallot(value)
	return sha256.Sum256(ballot)
}
