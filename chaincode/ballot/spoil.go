package ballot

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hyperledger/fabric-contract-api-go/v2/contractapi"

	"github.com/fabvote/fabvote/election"
)

// A spoiled ballot is stored under its tracker key (election.ObjTracker),
// which holds spoiled ballots only; its ciphertexts are claimed as a cast's
// are (claims.go).

func trackerKey(ctx contractapi.TransactionContextInterface, id, trackerHex string) (string, error) {
	return ctx.GetStub().CreateCompositeKey(election.ObjTracker, []string{id, trackerHex})
}

// readSpoiled reads a tracker key and decodes the spoiled ballot it holds:
// nil when the key is absent. A value that is no spoiled ballot is
// INTERNAL: the contract writes nothing else there.
func readSpoiled(ctx contractapi.TransactionContextInterface, key string) (*election.SpoiledBallot, error) {
	raw, err := ctx.GetStub().GetState(key)
	if err != nil {
		return nil, internal(err, "reading the tracker key")
	}
	if raw == nil {
		return nil, nil
	}
	spoiled, err := election.ParseSpoiledBallot(raw)
	if err != nil {
		return nil, internal(err, "stored spoiled ballot")
	}
	return spoiled, nil
}

// SpoilBallot records an audited ballot (election.SpoiledBallot JSON) under
// its tracker key, after checking that its opening matches its ciphertexts
// and reveals a valid choice, and claims each of its ciphertexts. It
// returns {"electionID","tracker","txID"}. A spoiled ballot carries nothing
// of its voter's, so any identity may submit one; it never counts (the
// tally runs over ballot keys only).
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
// window, the opening, then the ledger reads (its tracker key, then its
// ciphertexts' claim keys); and writes the canonical JSON under the
// tracker key and its spoiled claim under each claim key.
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
	key, err := checkTrackerFree(ctx, s)
	if err != nil {
		return "", err
	}
	claims, err := checkSpoilClaimsFree(ctx, s)
	if err != nil {
		return "", err
	}
	if err := ctx.GetStub().PutState(key, s.Marshal()); err != nil {
		return "", internal(err, "writing the spoiled ballot")
	}
	if err := writeClaims(ctx, claims, s.CiphertextClaim()); err != nil {
		return "", err
	}
	enc, err := json.Marshal(spoilReceipt{ElectionID: s.ElectionID, Tracker: s.TrackerHex(), TxID: ctx.GetStub().GetTxID()})
	if err != nil {
		return "", internal(err, "encoding the answer")
	}
	return string(enc), nil
}

// checkTrackerFree is the spoil's first read: its tracker key must be
// absent. Errors: EXISTS (the ballot is already spoiled). It returns the
// key.
func checkTrackerFree(ctx contractapi.TransactionContextInterface, s *election.SpoiledBallot) (string, error) {
	trackerHex := s.TrackerHex()
	key, err := trackerKey(ctx, s.ElectionID, trackerHex)
	if err != nil {
		return "", internal(err, "tracker key")
	}
	old, err := readSpoiled(ctx, key)
	switch {
	case err != nil:
		return "", err
	case old != nil:
		return "", election.Errorf(election.CodeExists, "the ballot with tracker %s is already spoiled", trackerHex)
	}
	return key, nil
}

// GetSpoiled returns the spoiled ballot (canonical JSON) with the tracker
// (64 lowercase hex digits). NOT_FOUND when no spoiled ballot has it.
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
	spoiled, err := readSpoiled(ctx, key)
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
// {"spoiled":[…],"bookmark":"…"}, in tracker order, pageSize
// (1..MaxPageSize) per page; only an empty bookmark ends the list.
// Evaluate transactions only.
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
		spoiled, err := election.ParseSpoiledBallot(kv.Value)
		if err != nil {
			return "", internal(fmt.Errorf("key %q: %w", kv.Key, err), "stored spoiled ballot")
		}
		page.Spoiled = append(page.Spoiled, spoiled.Marshal())
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
