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
// token, the voter's signature, and, for CastBallot, that the call argument
// is the ballot written. The validity proofs of every ballot that passed all
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
	"strings"

	"github.com/fabvote/fabvote/election"
)

// Rejection codes of the validation-time check beyond election's codes.
const (
	// CodeKey: a ballot is written under a key other than its pseudonym's
	// ballot key, or a ballot key is deleted.
	CodeKey = "KEY"
	// CodeWriteSet: the write set is not what CastBallot writes (more than
	// one key, a record naming another transaction, an argument that is not
	// the ballot written).
	CodeWriteSet = "WRITESET"
)

// CastFunctions are the names under which clients call CastBallot.
var CastFunctions = []string{"CastBallot", "ballot:CastBallot"}

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

var ballotPrefix = election.LedgerKey(election.ObjBallot)

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
// verify, one list per ballot it writes.
func checkTx(manifests Manifests, tx *Tx) ([]election.Proofs, error) {
	cast := isCast(tx.Function)
	if cast && len(tx.Writes) != 1 {
		return nil, election.Errorf(CodeWriteSet, "CastBallot writes %d keys, want exactly its ballot key", len(tx.Writes))
	}
	var ballots []election.Proofs
	for _, w := range tx.Writes {
		if !strings.HasPrefix(w.Key, ballotPrefix) {
			if cast {
				return nil, election.Errorf(CodeWriteSet, "CastBallot writes key %q, which is not a ballot key", w.Key)
			}
			continue
		}
		raw, items, err := checkWrite(manifests, tx, w)
		if err != nil {
			return nil, err
		}
		if cast {
			if err := checkArgument(tx.Args, raw); err != nil {
				return nil, err
			}
		}
		ballots = append(ballots, items)
	}
	return ballots, nil
}

func isCast(fn string) bool {
	for _, f := range CastFunctions {
		if fn == f {
			return true
		}
	}
	return false
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
// encoding and its proofs for the batch.
func checkWrite(manifests Manifests, tx *Tx, w Write) ([]byte, election.Proofs, error) {
	var none election.Proofs
	if w.IsDelete {
		return nil, none, election.Errorf(CodeKey, "the transaction deletes ballot key %q", w.Key)
	}
	rec, err := election.ParseRecord(w.Value)
	if err != nil {
		return nil, none, err
	}
	if rec.TxID != tx.TxID {
		return nil, none, election.Errorf(CodeWriteSet, "the ballot record names transaction %q, not %q", rec.TxID, tx.TxID)
	}
	b, err := election.ParseBallot(rec.Ballot)
	if err != nil {
		return nil, none, err
	}
	p, err := manifests(b.ElectionID)
	if err != nil {
		return nil, none, err
	}
	if want := election.LedgerKey(election.ObjBallot, b.ElectionID, b.PseudonymHex()); w.Key != want {
		return nil, none, election.Errorf(CodeKey, "the ballot of pseudonym %s is written under %q, not its key %q", b.PseudonymHex(), w.Key, want)
	}
	if !readAbsent(tx.Reads, w.Key) {
		return nil, none, election.Errorf(election.CodeDuplicate, "the transaction does not read ballot key %q as absent, so a second ballot of the voter could replace the first", w.Key)
	}
	cs, err := p.CheckAuthorised(b)
	if err != nil {
		return nil, none, err
	}
	items, err := p.ProofItems(b, cs)
	if err != nil {
		return nil, none, err
	}
	return rec.Ballot, items, nil
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
