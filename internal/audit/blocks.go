package audit

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/chain"
)

// ReadCommitOrder reads, for Ledger.Order, when election electionID opened
// and its result was first written, every write of its manifest and result
// keys and every write of its ballot keys before and after the result, from
// the blocks r holds, in chaincode namespace ns. It reads every block from
// the tip back to the genesis block: only that shows which write of the
// manifest key was the first (the opening), and so where the election's
// writes begin. A live audit reads the blocks through qscc (package ballotclient),
// a record audit from the record's files (package record).
func ReadCommitOrder(ctx context.Context, r chain.Reader, ns, electionID string) (*CommitOrder, error) {
	prefix := election.LedgerKey(election.ObjBallot, electionID)
	ws, err := chain.WritesSince(ctx, r, ns, election.LedgerKey(election.ObjResult, electionID), prefix,
		election.LedgerKey(election.ObjManifest, electionID))
	if errors.Is(err, chain.ErrNotFound) {
		return nil, fmt.Errorf("%w: none after election %q's manifest", ErrNoResultWrite, electionID)
	}
	if err != nil {
		return nil, err
	}
	if ws.Floor == nil {
		return nil, fmt.Errorf("no valid transaction in the channel's blocks wrote election %q's manifest", electionID)
	}
	marker := ws.Marker
	o := &CommitOrder{Opening: keyWrite(*ws.Floor), ResultBlock: marker.Block, ResultTxID: marker.TxID,
		ResultValue: marker.Value, ResultDeleted: marker.IsDelete}
	for _, w := range ws.FloorRewrites {
		o.ManifestRewrites = append(o.ManifestRewrites, keyWrite(w))
	}
	for _, w := range ws.MarkerRewrites {
		o.ResultRewrites = append(o.ResultRewrites, keyWrite(w))
	}
	o.Earlier = ballotWrites(ws.Before, prefix, false)
	o.Late = ballotWrites(ws.After, prefix, true)
	return o, nil
}

// ErrNoResultWrite is ReadCommitOrder's error when the blocks hold no valid
// write of the result key since the opening.
var ErrNoResultWrite = errors.New("no block holds a valid write of the election's result")

func keyWrite(w chain.Located) KeyWrite {
	mw := KeyWrite{TxID: w.TxID, Block: w.Block, Deleted: w.IsDelete}
	if !w.IsDelete {
		mw.Hash = sha256.Sum256(w.Value)
	}
	return mw
}

// ballotWrites turns located writes under the ballot prefix into
// BallotWrites. keepBallot keeps the ballot bytes (late writes are
// checked in full); earlier writes keep only their hash, so that memory
// does not grow with the election.
func ballotWrites(ws []chain.Located, prefix string, keepBallot bool) []BallotWrite {
	out := make([]BallotWrite, 0, len(ws))
	for _, w := range ws {
		// A ballot key has one attribute, a pseudonym. A write of any
		// other key under the prefix is no ballot: a record's index
		// (RECORD_BALLOTS) and a live listing's ballot checks (BALLOT_KEY)
		// report it, and it takes no part in the commit order.
		key, ok := strings.CutSuffix(strings.TrimPrefix(w.Key, prefix), "\x00")
		if !ok || !election.IsPseudonymHex(key) {
			continue
		}
		bw := BallotWrite{Entry: election.BallotEntry{Pseudonym: key, TxID: w.TxID}, Block: w.Block, Deleted: w.IsDelete}
		if !w.IsDelete {
			ballot, err := election.StoredBallot(w.Value)
			bw.Hash = sha256.Sum256(ballot)
			if keepBallot {
				bw.Entry.Ballot, bw.Entry.NotRecord = ballot, err
			}
		}
		out = append(out, bw)
	}
	return out
}
