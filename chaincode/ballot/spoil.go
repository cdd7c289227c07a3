package ballot

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hyperledger/fabric-contract-api-go/v2/contractapi"

	"github.com/fabvote/fabvote/election"
)

// A ballot's tracker key (election.ObjTracker) is claimed once: by the
// cast of a ballot with that tracker (its TrackerClaim) or by a spoiled
// ballot with it. So a spoiled ballot, whose vote is public, can never be
// cast, and a cast ballot can never be opened; two transactions claiming
// one tracker both read it as absent, and MVCC lets the first to commit
// win.

func trackerKey(ctx contractapi.TransactionContextInterface, id, trackerHex string) (string, error) {
	return ctx.GetStub().CreateCompositeKey(election.ObjTracker, []string{id, trackerHex})
}

// readTracker reads a tracker key and decodes what claims it: nil, nil
// when the key is absent. A value that is neither a claim nor a spoiled
// ballot is INTERNAL: the contract writes nothing else there.
func readTracker(ctx contractapi.TransactionContextInterface, key string) (*election.TrackerClaim, *election.SpoiledBallot, error) {
	raw, err := ctx.GetStub().GetState(key)
	if err != nil {
		return nil, nil, internal(err, "reading the tracker key")
	}
	if raw == nil {
		return nil, nil, nil
	}
	claim, spoiled, err := election.ParseTrackerValue(raw)
	if err != nil {
		return nil, nil, internal(err, "stored tracker value")
	}
	return claim, spoiled, nil
}

// checkTrackerFree is the cast's second read: its ballot's tracker key must
// be absent. Errors: SPOILED (the tracker's ballot was audited: its vote is
// public), DUPLICATE (another cast claimed it). It returns the key.
func checkTrackerFree(ctx contractapi.TransactionContextInterface, b *election.Ballot) (string, error) {
	trackerHex := b.TrackerHex()
	key, err := trackerKey(ctx, b.ElectionID, trackerHex)
	if err != nil {
		return "", internal(err, "tracker key")
	}
	claim, spoiled, err := readTracker(ctx, key)
	switch {
	case err != nil:
		return "", err
	case spoiled != nil:
		return "", election.Errorf(election.CodeSpoiled, "the ballot with tracker %s was audited (spoiled): its vote is public, so it cannot be cast; make a new ballot", trackerHex)
	case claim != nil:
		return "", election.Errorf(election.CodeDuplicate, "a ballot with tracker %s is already cast (by pseudonym %s)", trackerHex, claim.CastHex())
	}
	return key, nil
}

// SpoilBallot records an audited ballot (election.SpoiledBallot JSON) under
// its tracker key, after checking that its opening matches its ciphertexts
// and reveals a valid choice. It returns {"electionID","tracker","txID"}.
// A spoiled ballot carries nothing of its voter's, so any identity may
// submit one; it never counts (the tally runs over ballot keys only).
func (c *Contract) SpoilBallot(ctx contractapi.TransactionContextInterface, spoiled string) (out string, err error) {
	defer recoverInternal(&err)
	out, err = c.e.spoilBallot(ctx, spoiled)
	return out, c.e.reject(err)
}

// spoilReceipt is SpoilBallot's answer.
type spoilReceipt struct {
	ElectionID string `json:"electionID"`
	Tracker    string `json:"tracker"`
	TxID       string `json:"txID"`
}

// spoilBallot runs SpoilBallot's checks cheapest first: decoding, the
// window, the opening, then the one ledger read; and writes the canonical
// JSON, the spoil's one write.
func (e *engine) spoilBallot(ctx contractapi.TransactionContextInterface, arg string) (string, error) {
	s, err := election.ParseSpoiledBallot([]byte(arg))
	if err != nil {
		return "", err
	}
	p, err := e.electionInWindow(ctx, s.ElectionID)
	if err != nil {
		return "", err
	}
	if _, err := p.CheckSpoiled(s); err != nil {
		return "", err
	}
	trackerHex := s.TrackerHex()
	key, err := trackerKey(ctx, s.ElectionID, trackerHex)
	if err != nil {
		return "", internal(err, "tracker key")
	}
	claim, old, err := readTracker(ctx, key)
	switch {
	case err != nil:
		return "", err
	case claim != nil:
		return "", election.Errorf(election.CodeCastOpened, "the ballot with tracker %s is cast: a cast ballot is never opened", trackerHex)
	case old != nil:
		return "", election.Errorf(election.CodeExists, "the ballot with tracker %s is already spoiled", trackerHex)
	}
	if err := ctx.GetStub().PutState(key, s.Marshal()); err != nil {
		return "", internal(err, "writing the spoiled ballot")
	}
	enc, err := json.Marshal(spoilReceipt{ElectionID: s.ElectionID, Tracker: trackerHex, TxID: ctx.GetStub().GetTxID()})
	if err != nil {
		return "", internal(err, "encoding the answer")
	}
	return string(enc), nil
}

// GetSpoiled returns the spoiled ballot (canonical JSON) with the tracker
// (64 lowercase hex digits). NOT_FOUND when no spoiled ballot has it,
// including when a cast ballot claimed it.
func (c *Contract) GetSpoiled(ctx contractapi.TransactionContextInterface, electionID, tracker string) (out string, err error) {
	defer recoverInternal(&err)
	if err := checkID(electionID); err != nil {
		return "", err
	}
	if _, err := election.ParseTrackerHex(tracker); err != nil {
		return "", election.Errorf(election.CodeArgument, "tracker must be 64 lowercase hex digits")
	}
	key, err := trackerKey(ctx, electionID, tracker)
	if err != nil {
		return "", internal(err, "tracker key")
	}
	_, spoiled, err := readTracker(ctx, key)
	if err != nil {
		return "", err
	}
	if spoiled == nil {
		return "", election.Errorf(election.CodeNotFound, "no spoiled ballot with tracker %s in election %q", tracker, electionID)
	}
	return string(spoiled.Marshal()), nil
}

// spoiledPage is ListSpoiled's answer.
type spoiledPage struct {
	Spoiled  []json.RawMessage `json:"spoiled"`
	Bookmark string            `json:"bookmark"`
}

// ListSpoiled returns one page of the election's spoiled ballots,
// {"spoiled":[…],"bookmark":"…"}, in tracker order. The page ranges over
// pageSize (1..MaxPageSize) tracker keys, the cast ballots' claims among
// them, so a page may hold fewer spoiled ballots than pageSize while more
// follow: only an empty bookmark ends the list. Evaluate transactions only.
func (c *Contract) ListSpoiled(ctx contractapi.TransactionContextInterface, electionID string, pageSize int32, bookmark string) (out string, err error) {
	defer recoverInternal(&err)
	if err := checkID(electionID); err != nil {
		return "", err
	}
	if pageSize < 1 || pageSize > MaxPageSize {
		return "", election.Errorf(election.CodeArgument, "page size %d, want 1..%d", pageSize, MaxPageSize)
	}
	// As in ListBallots: a bookmark must lie inside the election's range.
	prefix, err := ctx.GetStub().CreateCompositeKey(election.ObjTracker, []string{electionID})
	if err != nil {
		return "", internal(err, "tracker key prefix")
	}
	if bookmark != "" && !strings.HasPrefix(bookmark, prefix) {
		return "", election.Errorf(election.CodeArgument, "bookmark is not a tracker key of election %q", electionID)
	}
	it, meta, err := ctx.GetStub().GetStateByPartialCompositeKeyWithPagination(election.ObjTracker, []string{electionID}, pageSize, bookmark)
	if err != nil {
		return "", internal(err, "range query")
	}
	defer it.Close()
	page := spoiledPage{Spoiled: []json.RawMessage{}}
	keys := 0
	for ; it.HasNext(); keys++ {
		kv, err := it.Next()
		if err != nil {
			return "", internal(err, "range query")
		}
		_, spoiled, err := election.ParseTrackerValue(kv.Value)
		if err != nil {
			return "", internal(fmt.Errorf("key %q: %w", kv.Key, err), "stored tracker value")
		}
		if spoiled != nil {
			page.Spoiled = append(page.Spoiled, spoiled.Marshal())
		}
	}
	if meta != nil && keys == int(pageSize) {
		page.Bookmark = meta.GetBookmark()
	}
	enc, err := json.Marshal(&page)
	if err != nil {
		return "", internal(err, "encoding the page")
	}
	return string(enc), nil
}
