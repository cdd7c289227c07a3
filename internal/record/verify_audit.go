package record

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/audit"
	"github.com/fabvote/fabvote/internal/chain"
)

// audit is step 4: everything `fabvote verify` checks, with the manifest
// and result from their files, the ballots from the blocks at the places
// step 3 found (ballots.json's when it passed) and the commit order from
// the record's blocks.
func (v *verifier) audit(ctx context.Context) {
	l := &audit.Ledger{Manifest: v.manifest, Result: v.result, Ballots: v.ballots(ctx),
		Trackers: func() ([]audit.TrackerWrite, error) { return v.built.trackers.Writes, nil }}
	// The commit order starts at the opening: with none in the blocks,
	// checkOpening reports that, and no ballot is indexed.
	if v.result != nil && v.built.opened {
		l.Order = func() (*audit.CommitOrder, error) {
			return audit.ReadCommitOrder(ctx, v.reader(), v.info.Chaincode, v.info.ElectionID)
		}
	}
	r := audit.Run(l, v.opts.Audit)
	rep := v.rep
	rep.Manifest, rep.Tally, rep.Result, rep.Order, rep.Counted = r.Manifest, r.Tally, r.Result, r.Order, r.Counted
	rep.ResultRead, rep.ResultChecked, rep.TrackersChecked = r.ResultRead, r.ResultChecked, r.TrackersChecked
	rep.Failures = append(rep.Failures, r.Failures...)
	if m := r.Manifest; m != nil && (m.ElectionID != v.info.ElectionID || m.Channel != v.info.Channel) {
		v.failCheck(audit.KindManifest, audit.CheckManifestIsOwn, "manifest", fmt.Errorf("the manifest is of election %q on channel %q, %s says election %q on channel %q",
			m.ElectionID, m.Channel, RecordFile, v.info.ElectionID, v.info.Channel))
	}
	if want := v.opts.Manifest; want != nil && !bytes.Equal(want, v.manifest) {
		v.failCheck(audit.KindManifest, audit.CheckPublishedAnchor, "manifest", fmt.Errorf("%s is not the published manifest given to the verifier: this record is of another election", ManifestFile))
	}
	// The commit order checks the opening when it was read: with a result,
	// a manifest that prepares (audit.Run stops at one that does not) and
	// a write of the result in the blocks.
	if r.Order == nil {
		v.checkOpening()
	}
}

// checkOpening requires manifest.json to be what the election's first
// manifest write wrote (RECORD.md section 3).
func (v *verifier) checkOpening() {
	switch {
	case !v.built.opened:
		v.failCheck(audit.KindOrder, audit.CheckOpening, "manifest", fmt.Errorf("no valid transaction in the blocks writes election %q's manifest", v.info.ElectionID))
	case v.built.openingDeletes:
		v.failCheck(audit.KindOrder, audit.CheckOpening, "manifest (tx "+v.built.openingTx+")", errors.New("the election's opening deletes the manifest key"))
	case !bytes.Equal(v.built.manifest, v.manifest):
		v.failCheck(audit.KindOrder, audit.CheckOpening, "manifest (tx "+v.built.openingTx+")", fmt.Errorf("%s is not the manifest the election's opening wrote", ManifestFile))
	}
}

// ballots streams the ballots from the blocks, in commit order, reading
// each block once.
func (v *verifier) ballots(ctx context.Context) audit.BallotSource {
	entries := slices.Clone(v.built.entries) // already in commit order
	prefix := election.LedgerKey(election.ObjBallot, v.info.ElectionID)
	return func(fn func(election.BallotEntry) error) error {
		var blk *chain.Block
		blocks := v.reader() // one reader, so that it reads ahead
		for _, e := range entries {
			if blk == nil || blk.Number != e.Block {
				raw, err := blocks.Block(ctx, e.Block)
				if err != nil {
					return err
				}
				if blk, err = chain.ParseBlock(raw); err != nil {
					return err
				}
			}
			be, err := ballotAt(blk, e, v.info.Chaincode, prefix+e.Pseudonym+"\x00")
			if err != nil {
				return err
			}
			if err := fn(be); err != nil {
				return err
			}
		}
		return nil
	}
}

// ballotAt is the ballot that transaction e.Index of blk writes under key.
func ballotAt(blk *chain.Block, e Entry, ns, key string) (election.BallotEntry, error) {
	if e.Index >= len(blk.Txs) {
		return election.BallotEntry{}, fmt.Errorf("block %d has no transaction %d", e.Block, e.Index)
	}
	for _, w := range blk.Txs[e.Index].Writes {
		if w.Namespace != ns || w.Key != key || w.IsDelete {
			continue
		}
		// As a live listing does: the transaction id stored with the
		// ballot, which the commit order compares with the writer's.
		rec, err := election.ParseRecord(w.Value)
		if err != nil {
			return election.BallotEntry{Pseudonym: e.Pseudonym, TxID: e.TxID, Ballot: w.Value, NotRecord: err}, nil
		}
		return election.BallotEntry{Pseudonym: e.Pseudonym, TxID: rec.TxID, Ballot: rec.Ballot}, nil
	}
	return election.BallotEntry{}, fmt.Errorf("block %d, transaction %d writes no ballot %s", e.Block, e.Index, e.Pseudonym)
}
