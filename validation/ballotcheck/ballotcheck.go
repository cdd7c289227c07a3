// Package ballotcheck is the ballot check that every peer runs when it
// validates a block (O-IV): the logic of the fork's ballot validation plugin,
// free of Fabric types so that it builds and is tested in this module.
// fabric/intree/ballotvscc adapts it to Fabric's validation plugin API.
//
// For each transaction of the ballot chaincode the checker takes the ballots
// from the transaction's write set — what would reach the world state, not
// only what the call argument claims — and checks, cheapest first: record and
// ballot decoding, the election's manifest (from committed state), the key
// the ballot is written under (the pseudonym's ballot key), that the
// transaction read that key as absent (so the commit's MVCC check rejects a
// second ballot of the voter), ciphertext and proof shape, the authority's
// token, the voter's signature, that the transaction writes the ballot's
// tracker key, read as absent, with the cast's claim naming its pseudonym,
// and, for CastBallot, that the call argument is the ballot written and
// that nothing else is written. A tracker key written without a ballot
// must hold a spoiled ballot that passes Prepared.CheckSpoiled, under its
// own tracker's key, read as absent (SpoilBallot writes that one key,
// its argument). The validity proofs of every ballot that passed all
// of that are then verified together, as one zkp.VerifyBatch over the whole
// block, which bisects a failing combination down to each proof's own
// verdict.
//
// Determinism: a valid proof passes every combined check whatever the
// weights (completeness of the batch equation), so no peer ever rejects a
// valid ballot; an invalid proof passes a combined check with probability at
// most 2^-RhoBits over the weights a peer draws from crypto/rand, after the
// block is fixed. Every rejection is therefore the individual verifier's
// verdict, and an acceptance differs from it with probability at most
// 2^-64 per invalid proof (docs/PROTOCOL.md, "Validation-time ballot
// check"). TestVerdictsIndependentOfRandomnessAndWorkers shows it.
package ballotcheck

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/fabvote/fabvote/election"
)

// Rejection codes of the validation-time check beyond election's codes.
const (
	// CodeKey: a ballot is written under a key other than its pseudonym's
	// ballot key, a spoiled ballot under a key other than its tracker's, or
	// a ballot or tracker key is deleted.
	CodeKey = "KEY"
	// CodeWriteSet: the write set is not what CastBallot or SpoilBallot
	// writes (other keys, a ballot without its tracker claim, a claim
	// naming another pseudonym, a record naming another transaction, an
	// argument that is not what is written).
	CodeWriteSet = "WRITESET"
)

// CastFunctions and SpoilFunctions are the names under which clients call
// CastBallot and SpoilBallot.
var (
	CastFunctions  = []string{"CastBallot", "ballot:CastBallot"}
	SpoilFunctions = []string{"SpoilBallot", "ballot:SpoilBallot"}
)

// Write is one key the transaction writes in the ballot namespace.
type Write struct {
	Key      string
	Value    []byte
	IsDelete bool
}

// Read is one key the transaction read in the ballot namespace; Absent
// means it read the key as not existing (no version).
type Read struct {
	Key    string
	Absent bool
}

// Tx is one transaction's view for the check: its id, the chaincode call
// (function and arguments after it) and its read and write sets in the
// ballot namespace.
type Tx struct {
	TxID     string
	Function string
	Args     [][]byte
	Reads    []Read
	Writes   []Write
}

// Manifests returns the prepared manifest of an election from committed
// state; a missing election is an *election.Error with CodeNoElection.
type Manifests func(electionID string) (*election.Prepared, error)

// pending is a ballot whose cheap checks passed: its proofs go to the batch.
type pending struct {
	tx     int
	proofs election.Proofs
}

var (
	ballotPrefix  = election.LedgerKey(election.ObjBallot)
	trackerPrefix = election.LedgerKey(election.ObjTracker)
)

// CheckBlock returns one verdict per transaction of txs (nil: valid, or not
// a transaction to check; txs[i] may be nil). random supplies the batch
// weights (nil: crypto/rand); it must be unpredictable to voters.
func CheckBlock(random io.Reader, manifests Manifests, txs []*Tx) []error {
	errs := make([]error, len(txs))
	manifests = onePerBlock(manifests)
	var queue []pending
	for i, tx := range txs {
		if tx == nil {
			continue
		}
		ballots, err := checkTx(manifests, tx)
		if err != nil {
			errs[i] = err
			continue
		}
		for _, ps := range ballots {
			queue = append(queue, pending{tx: i, proofs: ps})
		}
	}
	if len(queue) == 0 {
		return errs
	}
	ballots := make([]election.Proofs, len(queue))
	for j, p := range queue {
		ballots[j] = p.proofs
	}
	for j, err := range election.VerifyBallotProofs(random, ballots) {
		if err != nil && errs[queue[j].tx] == nil {
			errs[queue[j].tx] = err
		}
	}
	return errs
}

// onePerBlock answers each election's lookup once per block: every
// transaction of a block is validated against the committed state before
// the block, so one read of a manifest serves all of them. Only CheckBlock's
// sequential loop calls it.
func onePerBlock(m Manifests) Manifests {
	type answer struct {
		p   *election.Prepared
		err error
	}
	seen := map[string]answer{}
	return func(id string) (*election.Prepared, error) {
		if a, ok := seen[id]; ok {
			return a.p, a.err
		}
		p, err := m(id)
		seen[id] = answer{p, err}
		return p, err
	}
}

// checkTx runs every check but the proofs on tx and returns the proofs to
// verify, one list per ballot it writes. Every ballot key written needs
// its tracker claim written beside it (checkClaim); every other tracker
// key written must hold a spoiled ballot that checks (checkSpoiledWrite).
func checkTx(manifests Manifests, tx *Tx) ([]election.Proofs, error) {
	fn := function(tx.Function)
	if err := checkWriteCount(fn, tx.Writes); err != nil {
		return nil, err
	}
	var ballots []election.Proofs
	var trackers []Write
	claimed := map[string]bool{}
	for _, w := range tx.Writes {
		switch {
		case strings.HasPrefix(w.Key, ballotPrefix):
			raw, b, items, err := checkWrite(manifests, tx, w)
			if err != nil {
				return nil, err
			}
			claimKey, err := checkClaim(tx, b)
			if err != nil {
				return nil, err
			}
			if fn == fnCast {
				if err := checkArgument(tx.Args, raw); err != nil {
					return nil, err
				}
			}
			claimed[claimKey] = true
			ballots = append(ballots, items)
		case strings.HasPrefix(w.Key, trackerPrefix):
			trackers = append(trackers, w)
		case fn != fnOther:
			return nil, election.Errorf(CodeWriteSet, "%s writes key %q, which is neither a ballot key nor a tracker key", tx.Function, w.Key)
		}
	}
	for _, w := range trackers {
		if claimed[w.Key] {
			continue
		}
		if fn == fnCast {
			return nil, election.Errorf(CodeWriteSet, "CastBallot writes tracker key %q, which is not its ballot's", w.Key)
		}
		if err := checkSpoiledWrite(manifests, tx, w, fn == fnSpoil); err != nil {
			return nil, err
		}
	}
	return ballots, nil
}

// The kinds of transaction the check tells apart by function name.
const (
	fnOther = iota
	fnCast
	fnSpoil
)

func function(name string) int {
	switch {
	case slices.Contains(CastFunctions, name):
		return fnCast
	case slices.Contains(SpoilFunctions, name):
		return fnSpoil
	}
	return fnOther
}

// checkWriteCount: a cast writes two keys (its ballot key and its tracker
// key), a spoil one (its tracker key).
func checkWriteCount(fn int, writes []Write) error {
	switch {
	case fn == fnCast && len(writes) != 2:
		return election.Errorf(CodeWriteSet, "CastBallot writes %d keys, want exactly its ballot key and its tracker key", len(writes))
	case fn == fnSpoil && len(writes) != 1:
		return election.Errorf(CodeWriteSet, "SpoilBallot writes %d keys, want exactly its tracker key", len(writes))
	}
	return nil
}

// checkClaim requires the transaction that writes ballot b to write b's
// tracker key, read as absent, with the claim naming b's pseudonym. It
// returns the tracker key.
func checkClaim(tx *Tx, b *election.Ballot) (string, error) {
	key := election.LedgerKey(election.ObjTracker, b.ElectionID, b.TrackerHex())
	i := slices.IndexFunc(tx.Writes, func(w Write) bool { return w.Key == key })
	if i < 0 {
		return "", election.Errorf(CodeWriteSet, "the ballot of pseudonym %s is written without its tracker claim under %q", b.PseudonymHex(), key)
	}
	if tx.Writes[i].IsDelete {
		return "", election.Errorf(CodeKey, "the transaction deletes tracker key %q", key)
	}
	claim, err := election.ParseTrackerClaim(tx.Writes[i].Value)
	if err != nil {
		return "", err
	}
	if claim.Cast != b.Pseudonym() {
		return "", election.Errorf(CodeWriteSet, "the tracker claim names pseudonym %s, not the ballot's %s", claim.CastHex(), b.PseudonymHex())
	}
	if !readAbsent(tx.Reads, key) {
		return "", election.Errorf(election.CodeDuplicate, "the transaction does not read tracker key %q as absent, so the ballot could take a tracker already claimed", key)
	}
	return key, nil
}

// checkSpoiledWrite checks a tracker key written without a ballot: it must
// hold a spoiled ballot that checks (CheckSpoiled, with its codes), under
// its own tracker's key, read as absent. spoil: the transaction is a
// SpoilBallot call, whose argument must be the spoiled ballot written.
func checkSpoiledWrite(manifests Manifests, tx *Tx, w Write, spoil bool) error {
	if w.IsDelete {
		return election.Errorf(CodeKey, "the transaction deletes tracker key %q", w.Key)
	}
	s, err := election.ParseSpoiledBallot(w.Value)
	if err != nil {
		return err
	}
	if want := election.LedgerKey(election.ObjTracker, s.ElectionID, s.TrackerHex()); w.Key != want {
		return election.Errorf(CodeKey, "the spoiled ballot with tracker %s is written under %q, not its key %q", s.TrackerHex(), w.Key, want)
	}
	if !readAbsent(tx.Reads, w.Key) {
		return election.Errorf(election.CodeExists, "the transaction does not read tracker key %q as absent, so the spoiled ballot could replace a claim", w.Key)
	}
	if spoil && (len(tx.Args) != 1 || !bytes.Equal(tx.Args[0], w.Value)) {
		return election.Errorf(CodeWriteSet, "the SpoilBallot argument is not the spoiled ballot the transaction writes")
	}
	p, err := manifests(s.ElectionID)
	if err != nil {
		return err
	}
	_, err = p.CheckSpoiled(s)
	return err
}

// checkArgument compares CastBallot's argument (binary or standard base64,
// as the chaincode accepts it) with the ballot the transaction writes.
func checkArgument(args [][]byte, written []byte) error {
	if len(args) != 1 {
		return election.Errorf(CodeWriteSet, "CastBallot has %d arguments, want 1", len(args))
	}
	arg := args[0]
	if len(arg) > 0 && arg[0] != election.BallotVersion {
		dec, err := base64.StdEncoding.Strict().DecodeString(string(arg))
		if err != nil {
			return election.Errorf(CodeWriteSet, "the CastBallot argument is neither a binary ballot nor its base64")
		}
		arg = dec
	}
	if !bytes.Equal(arg, written) {
		return election.Errorf(CodeWriteSet, "the CastBallot argument is not the ballot the transaction writes")
	}
	return nil
}

// checkWrite checks one write of a ballot key and returns the ballot's
// encoding, its decoding and its proofs for the batch.
func checkWrite(manifests Manifests, tx *Tx, w Write) ([]byte, *election.Ballot, election.Proofs, error) {
	var none election.Proofs
	if w.IsDelete {
		return nil, nil, none, election.Errorf(CodeKey, "the transaction deletes ballot key %q", w.Key)
	}
	rec, err := election.ParseRecord(w.Value)
	if err != nil {
		return nil, nil, none, err
	}
	if rec.TxID != tx.TxID {
		return nil, nil, none, election.Errorf(CodeWriteSet, "the ballot record names transaction %q, not %q", rec.TxID, tx.TxID)
	}
	b, err := election.ParseBallot(rec.Ballot)
	if err != nil {
		return nil, nil, none, err
	}
	p, err := manifests(b.ElectionID)
	if err != nil {
		return nil, nil, none, err
	}
	if want := election.LedgerKey(election.ObjBallot, b.ElectionID, b.PseudonymHex()); w.Key != want {
		return nil, nil, none, election.Errorf(CodeKey, "the ballot of pseudonym %s is written under %q, not its key %q", b.PseudonymHex(), w.Key, want)
	}
	if !readAbsent(tx.Reads, w.Key) {
		return nil, nil, none, election.Errorf(election.CodeDuplicate, "the transaction does not read ballot key %q as absent, so a second ballot of the voter could replace the first", w.Key)
	}
	cs, err := p.CheckAuthorised(b)
	if err != nil {
		return nil, nil, none, err
	}
	items, err := p.ProofItems(b, cs)
	if err != nil {
		return nil, nil, none, err
	}
	return rec.Ballot, b, items, nil
}

func readAbsent(reads []Read, key string) bool {
	for _, r := range reads {
		if r.Key == key {
			return r.Absent
		}
	}
	return false
}

// Code returns the rejection code of a verdict ("" for nil).
func Code(err error) string { return election.CodeOf(err) }

// Describe is the one-line reason a peer logs for a rejected transaction.
func Describe(txID string, err error) string {
	return fmt.Sprintf("fabvote ballot validation: tx %s rejected (%s): %v", txID, Code(err), err)
}
