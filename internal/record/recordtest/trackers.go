package recordtest

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/election/electiontest"
	"github.com/fabvote/fabvote/internal/chain/chaintest"
)

// The variants of trackers (docs/RECORD.md 4.1): an election of contests
// whose casts write their tracker claims, with two ballots audited and
// published as spoiled ballots before the result. Spoiled is a committed
// vector and passes; the others tamper with one tracker key each, as
// colluding endorsers could, and fail V32 (docs/VERIFY.md).
const (
	Spoiled Variant = "spoiled"
	// SpoiledOpening: the first spoiled ballot carries the second's
	// opening, which does not open its ciphertexts: SPOILED_INVALID OPENING.
	SpoiledOpening Variant = "spoiled-opening"
	// SpoiledWrongKey: the first spoiled ballot is stored under a key that
	// is not its tracker: SPOILED_INVALID.
	SpoiledWrongKey Variant = "spoiled-wrong-key"
	// CastSpoiled: the first audited ballot is cast too, and its tracker
	// key holds its spoiled ballot instead of its claim: TRACKER SPOILED
	// (the ballot is counted: it is a valid ballot under its ballot key).
	CastSpoiled Variant = "cast-spoiled"
	// CastNoClaim: the second ballot's cast writes no claim: TRACKER.
	CastNoClaim Variant = "cast-no-claim"
)

// TrackerTampers are the tracker variants that are no committed vector,
// each with the kind and code of its one failure.
var TrackerTampers = map[Variant][2]string{
	SpoiledOpening:  {"SPOILED_INVALID", election.CodeOpening},
	SpoiledWrongKey: {"SPOILED_INVALID", ""},
	CastSpoiled:     {"TRACKER", election.CodeSpoiled},
	CastNoClaim:     {"TRACKER", ""},
}

func trackerVariant(v Variant) bool {
	_, tamper := TrackerTampers[v]
	return v == Spoiled || tamper
}

// audited is a ballot audited in the booth: the ballot and its opening.
type audited struct {
	ballot  *election.Ballot
	opening *election.Opening
}

// auditedBallots are two ballots of new voters of style north, each with
// its opening.
func auditedBallots(fx *electiontest.Fixture, m *election.Manifest) ([]audited, error) {
	p, err := election.Prepare(m)
	if err != nil {
		return nil, err
	}
	var out []audited
	for range 2 {
		v := electiontest.NewVoter()
		bp, err := p.PrecomputeBallot(rand.Reader, 0)
		if err != nil {
			return nil, err
		}
		b, o, err := bp.Finish(v, fx.TokenStyle(m, electiontest.VoterID(v), "north", v), ContestVotes[0].Sels)
		if err != nil {
			return nil, err
		}
		out = append(out, audited{b, o})
	}
	return out, nil
}

// trackerKey is the ledger key of tracker t.
func trackerKey(t [32]byte) string {
	return election.LedgerKey(election.ObjTracker, ElectionID, hex.EncodeToString(t[:]))
}

// trackers is what a tracker variant adds to the chain: the tracker write
// of each cast, by pseudonym, and the spoil transactions.
type trackers struct {
	claims map[string]chaintest.KV // pseudonym -> its cast's tracker write
	spoils []chaintest.Tx
}

// claim is the tracker write of the cast of the ballot of pseudonym p:
// none without trackers.
func (tr *trackers) claim(p string) (chaintest.KV, bool) {
	if tr == nil {
		return chaintest.KV{}, false
	}
	kv, ok := tr.claims[p]
	return kv, ok
}

// buildTrackers makes the claims of ballots and the spoils of a, as v asks.
func buildTrackers(v Variant, ballots [][]byte, a []audited) (*trackers, error) {
	tr := &trackers{claims: map[string]chaintest.KV{}}
	for i, raw := range ballots {
		b, err := election.ParseBallot(raw)
		if err != nil {
			return nil, err
		}
		if v == CastNoClaim && i == 1 {
			continue
		}
		tr.claims[b.PseudonymHex()] = chaintest.KV{NS: Chaincode, Key: trackerKey(b.Tracker()), Value: b.CastClaim().Marshal()}
	}
	for i, x := range a {
		opening := x.opening
		if v == SpoiledOpening && i == 0 {
			opening = a[1].opening
		}
		s, err := election.NewSpoiledBallot(x.ballot, opening)
		if err != nil {
			return nil, err
		}
		key := trackerKey(s.Tracker())
		if v == SpoiledWrongKey && i == 0 {
			key = trackerKey(sha256.Sum256([]byte(key)))
		}
		kv := chaintest.KV{NS: Chaincode, Key: key, Value: s.Marshal()}
		if v == CastSpoiled && i == 0 {
			tr.claims[x.ballot.PseudonymHex()] = kv // its cast writes its spoiled ballot
			continue
		}
		tr.spoils = append(tr.spoils, chaintest.Tx{ID: txID("spoil " + hex.EncodeToString(x.ballot.Ciphertext[:8])), Valid: true, KVs: []chaintest.KV{kv}})
	}
	return tr, nil
}
