package recordtest

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/election/electiontest"
	"github.com/fabvote/fabvote/internal/chain/chaintest"
)

// The variants of trackers (docs/RECORD.md 4.1): an election of contests
// whose casts claim each of their ciphertexts, with two ballots audited
// and published as spoiled ballots, each with its claims, before the
// result. Spoiled is a committed vector and passes; the others tamper
// with one spoiled ballot or claim each, as colluding endorsers could,
// and fail V32 (docs/VERIFY.md).
const (
	Spoiled Variant = "spoiled"
	// SpoiledOpening: the first spoiled ballot carries the second's
	// opening, which does not open its ciphertexts: SPOILED_INVALID OPENING.
	SpoiledOpening Variant = "spoiled-opening"
	// SpoiledWrongKey: the first spoiled ballot is stored under a key that
	// is not its tracker: SPOILED_INVALID.
	SpoiledWrongKey Variant = "spoiled-wrong-key"
	// CastSpoiled: the first audited ballot is cast too, after its spoil,
	// and its cast writes no claim (its ciphertexts are claimed spoiled):
	// TRACKER SPOILED (the ballot is counted: it is a valid ballot under
	// its ballot key).
	CastSpoiled Variant = "cast-spoiled"
	// CastSpoiledCiphertext: the second spoiled ballot opens one
	// ciphertext of the first audited ballot, which is cast after it,
	// claiming its other ciphertexts: TRACKER SPOILED.
	CastSpoiledCiphertext Variant = "cast-spoiled-ciphertext"
	// SpoiledCastCiphertext: the first audited ballot is cast, and the
	// second spoiled ballot opens one of its ciphertexts, claiming its
	// other ones: TRACKER CAST_OPENED.
	SpoiledCastCiphertext Variant = "spoiled-cast-ciphertext"
	// CastNoClaim: the second ballot's cast writes no claim on its last
	// ciphertext: TRACKER.
	CastNoClaim Variant = "cast-no-claim"
	// SpoilNoClaim: the first spoil writes no claim on its last
	// ciphertext: TRACKER.
	SpoilNoClaim Variant = "spoil-no-claim"
	// ClaimOtherPseudonym: the second ballot's claim on its first
	// ciphertext names the third ballot: TRACKER DUPLICATE.
	ClaimOtherPseudonym Variant = "claim-other-pseudonym"
	// ClaimOtherTracker: the first spoil's claim on its first ciphertext
	// names the second spoiled ballot: TRACKER EXISTS.
	ClaimOtherTracker Variant = "claim-other-tracker"
	// ClaimTwice: the second spoil writes the first ballot's claim on its
	// first ciphertext again: TRACKER.
	ClaimTwice Variant = "claim-twice"
)

// TrackerTampers are the tracker variants that are no committed vector,
// each with the kind and code of its one failure.
var TrackerTampers = map[Variant][2]string{
	SpoiledOpening:        {"SPOILED_INVALID", election.CodeOpening},
	SpoiledWrongKey:       {"SPOILED_INVALID", ""},
	CastSpoiled:           {"TRACKER", election.CodeSpoiled},
	CastSpoiledCiphertext: {"TRACKER", election.CodeSpoiled},
	SpoiledCastCiphertext: {"TRACKER", election.CodeCastOpened},
	CastNoClaim:           {"TRACKER", ""},
	SpoilNoClaim:          {"TRACKER", ""},
	ClaimOtherPseudonym:   {"TRACKER", election.CodeDuplicate},
	ClaimOtherTracker:     {"TRACKER", election.CodeExists},
	ClaimTwice:            {"TRACKER", ""},
}

// TamperSubjects are the start of the subject of each tracker tamper's
// failure: the spoiled ballot's, the cast ballot's or the claim's.
var TamperSubjects = map[Variant]string{
	SpoiledOpening:        "tracker ",
	SpoiledWrongKey:       "tracker ",
	CastSpoiled:           "ballot ",
	CastSpoiledCiphertext: "ballot ",
	SpoiledCastCiphertext: "tracker ",
	CastNoClaim:           "ballot ",
	SpoilNoClaim:          "tracker ",
	ClaimOtherPseudonym:   "ballot ",
	ClaimOtherTracker:     "tracker ",
	ClaimTwice:            "ciphertext ",
}

// TrackerCases are the honest tracker election (no failure) and every
// tampered one with its expected kind and code: what a verifier's tracker
// test runs.
func TrackerCases() map[Variant][2]string {
	cases := map[Variant][2]string{Spoiled: {}}
	for v, want := range TrackerTampers {
		cases[v] = want
	}
	return cases
}

// CastsAudited says whether variant v casts its first audited ballot too:
// a valid ballot more, counted.
func CastsAudited(v Variant) bool {
	return v == CastSpoiled || v == CastSpoiledCiphertext || v == SpoiledCastCiphertext
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
// its opening, both of the same selections (so that a ciphertext of one
// with its opening is a valid part of the other's).
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

// claimKV is the write of claim c on ciphertext ct.
func claimKV(ct []byte, c *election.CiphertextClaim) chaintest.KV {
	return chaintest.KV{NS: Chaincode, Key: election.CiphertextKey(ElectionID, ct), Value: c.Marshal()}
}

// trackers is what a tracker variant adds to the chain: the claim writes
// of each cast, by pseudonym, and the block of the spoils (with the
// casts that follow them).
type trackers struct {
	claims map[string][]chaintest.KV // pseudonym -> its cast's claim writes
	spoils []chaintest.Tx
	after  map[string]bool // the pseudonyms cast in the spoils' block
}

// claim is the claim writes of the cast of the ballot of pseudonym p:
// none without trackers.
func (tr *trackers) claim(p string) []chaintest.KV {
	if tr == nil {
		return nil
	}
	return tr.claims[p]
}

// castsAfter says whether the ballot of pseudonym p is cast in the spoils'
// block rather than with the others.
func (tr *trackers) castsAfter(p string) bool { return tr != nil && tr.after[p] }

// buildTrackers makes the claims of ballots and the spoils of a, as v asks.
func buildTrackers(p *election.Prepared, v Variant, ballots [][]byte, a []audited) (*trackers, error) {
	tr := &trackers{claims: map[string][]chaintest.KV{}, after: map[string]bool{}}
	for _, raw := range ballots {
		b, err := election.ParseBallot(raw)
		if err != nil {
			return nil, err
		}
		cts, err := p.Ciphertexts(b)
		if err != nil {
			return nil, err
		}
		for _, ct := range cts {
			tr.claims[b.PseudonymHex()] = append(tr.claims[b.PseudonymHex()], claimKV(ct, b.CiphertextClaim()))
		}
	}
	spoiled, err := spoiledBallots(v, a)
	if err != nil {
		return nil, err
	}
	for i, s := range spoiled {
		if i == 0 && (v == CastSpoiledCiphertext || v == SpoiledCastCiphertext) {
			continue // the first audited ballot is cast instead
		}
		tr.spoils = append(tr.spoils, spoilTx(v, i, s, spoiled))
	}
	return tr, tamperClaims(v, tr, ballots, a, spoiled)
}

// spoiledBallots are the spoiled ballots of a: the second with the first's
// first ciphertext in the variants that share one, the first with the
// second's opening in SpoiledOpening.
func spoiledBallots(v Variant, a []audited) ([]*election.SpoiledBallot, error) {
	var out []*election.SpoiledBallot
	for i, x := range a {
		opening := x.opening
		if v == SpoiledOpening && i == 0 {
			opening = a[1].opening
		}
		s, err := election.NewSpoiledBallot(x.ballot, opening)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	if v == CastSpoiledCiphertext || v == SpoiledCastCiphertext {
		if err := shareFirst(out[1], out[0]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// shareFirst gives s the first ciphertext of from with its opening.
func shareFirst(s, from *election.SpoiledBallot) error {
	var mine, theirs struct{ Ciphertexts []json.RawMessage }
	for o, dst := range map[*election.Opening]any{s.Opening: &mine, from.Opening: &theirs} {
		js, err := json.Marshal(o)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(js, dst); err != nil {
			return err
		}
	}
	mine.Ciphertexts[0] = theirs.Ciphertexts[0]
	js, err := json.Marshal(struct {
		Ciphertexts []json.RawMessage `json:"ciphertexts"`
	}{mine.Ciphertexts})
	if err != nil {
		return err
	}
	s.Ciphertexts[0] = from.Ciphertexts[0]
	s.Opening = &election.Opening{}
	return json.Unmarshal(js, s.Opening)
}

// spoilTx is the spoil of spoiled[i]: its spoiled ballot under its
// tracker key and its claims, as v asks.
func spoilTx(v Variant, i int, s *election.SpoiledBallot, spoiled []*election.SpoiledBallot) chaintest.Tx {
	key := trackerKey(s.Tracker())
	if v == SpoiledWrongKey && i == 0 {
		key = trackerKey(sha256.Sum256([]byte(key)))
	}
	kvs := []chaintest.KV{{NS: Chaincode, Key: key, Value: s.Marshal()}}
	for j, ct := range s.Ciphertexts {
		c := s.CiphertextClaim()
		switch {
		case v == SpoilNoClaim && i == 0 && j == len(s.Ciphertexts)-1,
			v == SpoiledCastCiphertext && i == 1 && j == 0: // the key holds the cast's claim
			continue
		case v == ClaimOtherTracker && i == 0 && j == 0:
			c = spoiled[1].CiphertextClaim()
		}
		kvs = append(kvs, claimKV(ct, c))
	}
	return chaintest.Tx{ID: txID("spoil " + s.TrackerHex()), Valid: true, KVs: kvs}
}

// tamperClaims changes the casts' claims as v asks.
func tamperClaims(v Variant, tr *trackers, ballots [][]byte, a []audited, spoiled []*election.SpoiledBallot) error {
	pseudonym := func(i int) string { return pseudonymOf(ballots[i]) }
	first := a[0].ballot.PseudonymHex()
	switch v {
	case CastNoClaim:
		tr.claims[pseudonym(1)] = tr.claims[pseudonym(1)][:len(tr.claims[pseudonym(1)])-1]
	case ClaimOtherPseudonym:
		b, err := election.ParseBallot(ballots[2])
		if err != nil {
			return err
		}
		tr.claims[pseudonym(1)][0].Value = b.CiphertextClaim().Marshal()
	case ClaimTwice:
		tr.spoils[1].KVs = append(tr.spoils[1].KVs, tr.claims[pseudonym(0)][0])
	case CastSpoiled:
		tr.claims[first], tr.after[first] = nil, true
	case CastSpoiledCiphertext:
		tr.claims[first], tr.after[first] = tr.claims[first][1:], true
	}
	return nil
}
