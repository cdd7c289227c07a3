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
// token, the voter's signature, that the transaction writes the claim key
// of each of the ballot's ciphertexts (election.CiphertextKey), read as
// absent, with the cast claim naming its pseudonym, and, for CastBallot,
// that the call argument is the ballot written and that nothing else is
// written. A tracker key written must hold a spoiled ballot that passes
// Prepared.CheckSpoiled, under its own tracker's key, read as absent,
// beside the spoiled claim naming its tracker on each of its ciphertexts,
// each read as absent (SpoilBallot writes these keys alone, the spoiled
// ballot its argument). A claim key written must be one of a ballot's or a
// spoiled ballot's the transaction writes. The validity proofs of every
// ballot that passed all of that are then verified together, as one
// zkp.VerifyBatch over the whole block, which bisects a failing combination
// down to each proof's own verdict.
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
	// a ballot, tracker or ciphertext claim key is deleted.
	CodeKey = "KEY"
	// CodeWriteSet: the write set is not what CastBallot or SpoilBallot
	// writes (other keys, a ballot without the claim on one of its
	// ciphertexts, a claim naming another pseudonym or tracker, a claim on
	// no ciphertext written, a record naming another transaction, an
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
	claimPrefix   = election.LedgerKey(election.ObjCiphertext)
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
// verify, one list per ballot it writes. Every ballot key written needs a
// cast claim on each of its ciphertexts written beside it, every tracker
// key a spoiled ballot that checks (checkSpoiledWrite) and a spoiled claim
// on each of its ciphertexts (checkClaims); a claim key written must be one
// of these.
func checkTx(manifests Manifests, tx *Tx) ([]election.Proofs, error) {
	fn := function(tx.Function)
	ws, err := classify(fn, tx)
	if err != nil {
		return nil, err
	}
	var ballots []election.Proofs
	for _, w := range ws.ballots {
		c, err := checkWrite(manifests, tx, w)
		if err != nil {
			return nil, err
		}
		if err := checkClaims(tx, ws.claims, c.b.ElectionID, c.cts, c.b.CiphertextClaim(), election.CodeDuplicate); err != nil {
			return nil, err
		}
		if fn == fnCast {
			if err := checkArgument(tx.Args, c.raw); err != nil {
				return nil, err
			}
		}
		ballots = append(ballots, c.items)
	}
	for _, w := range ws.trackers {
		s, err := checkSpoiledWrite(manifests, tx, w, fn == fnSpoil)
		if err != nil {
			return nil, err
		}
		if err := checkClaims(tx, ws.claims, s.ElectionID, s.Ciphertexts, s.CiphertextClaim(), election.CodeExists); err != nil {
			return nil, err
		}
	}
	for _, w := range tx.Writes { // in write order, so that every peer names the same key
		if _, left := ws.claims[w.Key]; left {
			return nil, election.Errorf(CodeWriteSet, "%s writes ciphertext claim key %q, which claims no ciphertext of a ballot it writes", tx.Function, w.Key)
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

// writeSet is a transaction's writes by kind of key; claims by key, each
// removed as a ballot's check finds it.
type writeSet struct {
	ballots, trackers []Write
	claims            map[string]Write
}

// classify sorts tx's writes by kind of key, cheaply refusing what no
// ballot check would accept: a key written twice, and a cast or a spoil
// that writes other kinds of key or other numbers of ballots: a cast writes
// exactly its ballot key and its claims, a spoil its tracker key and its
// claims.
func classify(fn int, tx *Tx) (*writeSet, error) {
	ws := &writeSet{claims: map[string]Write{}}
	seen := make(map[string]bool, len(tx.Writes))
	for _, w := range tx.Writes {
		if seen[w.Key] {
			return nil, election.Errorf(CodeWriteSet, "%s writes key %q twice", tx.Function, w.Key)
		}
		seen[w.Key] = true
		switch {
		case strings.HasPrefix(w.Key, ballotPrefix):
			ws.ballots = append(ws.ballots, w)
		case strings.HasPrefix(w.Key, trackerPrefix):
			ws.trackers = append(ws.trackers, w)
		case strings.HasPrefix(w.Key, claimPrefix):
			ws.claims[w.Key] = w
		case fn != fnOther:
			return nil, election.Errorf(CodeWriteSet, "%s writes key %q, which is neither a ballot, a tracker nor a ciphertext claim key", tx.Function, w.Key)
		}
	}
	switch {
	case fn == fnCast && (len(ws.ballots) != 1 || len(ws.trackers) != 0):
		return nil, election.Errorf(CodeWriteSet, "CastBallot writes %d ballot keys and %d tracker keys, want exactly its ballot key and its ciphertexts' claims", len(ws.ballots), len(ws.trackers))
	case fn == fnSpoil && (len(ws.ballots) != 0 || len(ws.trackers) != 1):
		return nil, election.Errorf(CodeWriteSet, "SpoilBallot writes %d ballot keys and %d tracker keys, want exactly its tracker key and its ciphertexts' claims", len(ws.ballots), len(ws.trackers))
	}
	return ws, nil
}

// checkClaims requires the transaction that writes a ballot (or spoiled
// ballot) with ciphertexts cts to write want under each one's claim key,
// read as absent (else notAbsent: the ciphertext could be claimed twice).
// It removes the claims it finds from claims, so that a claim serves one
// ballot.
func checkClaims(tx *Tx, claims map[string]Write, electionID string, cts [][]byte, want *election.CiphertextClaim, notAbsent string) error {
	wantValue := want.Marshal()
	var mine []string // keys this ballot took: a ciphertext repeated in it is claimed once
	for i, c := range cts {
		key := election.CiphertextKey(electionID, c)
		if slices.Contains(mine, key) {
			continue
		}
		w, ok := claims[key]
		switch {
		case !ok:
			return election.Errorf(CodeWriteSet, "the %s is written without its claim on ciphertext %d under %q", holderName(want), i, key)
		case w.IsDelete:
			return election.Errorf(CodeKey, "the transaction deletes ciphertext claim key %q", key)
		case !bytes.Equal(w.Value, wantValue):
			return election.Errorf(CodeWriteSet, "the claim on ciphertext %d under %q is %q, want %s", i, key, truncate(w.Value), wantValue)
		case !readAbsent(tx.Reads, key):
			return election.Errorf(notAbsent, "the transaction does not read ciphertext claim key %q as absent, so the ciphertext could be claimed twice", key)
		}
		delete(claims, key)
		mine = append(mine, key)
	}
	return nil
}

// holderName names the ballot that claim c is the claim of.
func holderName(c *election.CiphertextClaim) string {
	if c.Kind == election.ClaimSpoiled {
		return "spoiled ballot with tracker " + c.HolderHex()
	}
	return "ballot of pseudonym " + c.HolderHex()
}

// truncate is at most the first 256 bytes of v (a claim's size), for an
// error message.
func truncate(v []byte) []byte {
	if len(v) > 256 {
		return v[:256]
	}
	return v
}

// checkSpoiledWrite checks a tracker key written: it must hold a spoiled
// ballot that checks (CheckSpoiled, with its codes), under its own
// tracker's key, read as absent. spoil: the transaction is a SpoilBallot
// call, whose argument must be the spoiled ballot written. It returns the
// spoiled ballot.
func checkSpoiledWrite(manifests Manifests, tx *Tx, w Write, spoil bool) (*election.SpoiledBallot, error) {
	if w.IsDelete {
		return nil, election.Errorf(CodeKey, "the transaction deletes tracker key %q", w.Key)
	}
	s, err := election.ParseSpoiledBallot(w.Value)
	if err != nil {
		return nil, err
	}
	if want := election.LedgerKey(election.ObjTracker, s.ElectionID, s.TrackerHex()); w.Key != want {
		return nil, election.Errorf(CodeKey, "the spoiled ballot with tracker %s is written under %q, not its key %q", s.TrackerHex(), w.Key, want)
	}
	if !readAbsent(tx.Reads, w.Key) {
		return nil, election.Errorf(election.CodeExists, "the transaction does not read tracker key %q as absent, so the spoiled ballot could replace another", w.Key)
	}
	if spoil && (len(tx.Args) != 1 || !bytes.Equal(tx.Args[0], w.Value)) {
		return nil, election.Errorf(CodeWriteSet, "the SpoilBallot argument is not the spoiled ballot the transaction writes")
	}
	p, err := manifests(s.ElectionID)
	if err != nil {
		return nil, err
	}
	if _, err := p.CheckSpoiled(s); err != nil {
		return nil, err
	}
	return s, nil
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

// checkedBallot is a ballot write that passed checkWrite: the ballot's
// encoding, its decoding, its ciphertexts and its proofs for the batch.
type checkedBallot struct {
	raw   []byte
	b     *election.Ballot
	cts   [][]byte
	items election.Proofs
}

// checkWrite checks one write of a ballot key.
func checkWrite(manifests Manifests, tx *Tx, w Write) (*checkedBallot, error) {
	if w.IsDelete {
		return nil, election.Errorf(CodeKey, "the transaction deletes ballot key %q", w.Key)
	}
	rec, err := election.ParseRecord(w.Value)
	if err != nil {
		return nil, err
	}
	if rec.TxID != tx.TxID {
		return nil, election.Errorf(CodeWriteSet, "the ballot record names transaction %q, not %q", rec.TxID, tx.TxID)
	}
	b, err := election.ParseBallot(rec.Ballot)
	if err != nil {
		return nil, err
	}
	p, err := manifests(b.ElectionID)
	if err != nil {
		return nil, err
	}
	if want := election.LedgerKey(election.ObjBallot, b.ElectionID, b.PseudonymHex()); w.Key != want {
		return nil, election.Errorf(CodeKey, "the ballot of pseudonym %s is written under %q, not its key %q", b.PseudonymHex(), w.Key, want)
	}
	if !readAbsent(tx.Reads, w.Key) {
		return nil, election.Errorf(election.CodeDuplicate, "the transaction does not read ballot key %q as absent, so a second ballot of the voter could replace the first", w.Key)
	}
	cs, err := p.CheckAuthorised(b)
	if err != nil {
		return nil, err
	}
	items, err := p.ProofItems(b, cs)
	if err != nil {
		return nil, err
	}
	cts, err := p.Ciphertexts(b)
	if err != nil {
		return nil, err
	}
	return &checkedBallot{raw: rec.Ballot, b: b, cts: cts, items: items}, nil
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
