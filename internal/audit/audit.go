// Package audit re-checks an election from what is on the ledger alone: the
// manifest, every stored ballot and the published result. It is the logic of
// `fabvote verify` and the ballot-checking half of `fabvote tally`, kept free
// of any network code so that every failure kind can be unit-tested on
// synthetic data.
//
// What it checks: every ballot decodes canonically, is stored under its own
// token's pseudonym, belongs to the election, carries a valid authority
// token, voter signature and validity proof, and no pseudonym appears twice;
// the product of the valid ciphertexts equals the published product; the
// published ballot count equals the number of valid ballots (both over the
// ballots committed before the result, when Ledger.Order reads the blocks:
// see CommitOrder); every ballot key is written once and never deleted,
// from the election's opening on, the manifest key is written once, by the
// opening, and the result key once, with the published result (the blocks
// again); every tracker key holds a spoiled ballot whose opening checks,
// and every ciphertext is claimed once, by the valid ballot that holds it
// or the spoiled ballot that opened it (the blocks, CheckTrackers); and
// the decryption
// (single-key proof or trustees' partial decryptions) and the counts verify. What it cannot check from the ledger alone: the voting
// window (the chaincode enforced it on the transaction timestamp) and
// eligibility beyond the authority's token.
package audit

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"runtime"
	"slices"
	"sync"

	"github.com/fabvote/fabvote/election"
)

// Failure kinds. Each failure in a report has exactly one.
const (
	KindManifest      = "MANIFEST"        // manifest missing or invalid
	KindKeyOrigin     = "KEY_ORIGIN"      // a distributed key whose ceremony does not verify (docs/VERIFY.md V33)
	KindBallotDecode  = "BALLOT_DECODE"   // stored ballot bytes do not decode
	KindBallotKey     = "BALLOT_KEY"      // stored under a key that is not its token's pseudonym
	KindBallotInvalid = "BALLOT_INVALID"  // election id, ciphertext, token, signature or proof fails (Code says which)
	KindDuplicate     = "DUPLICATE"       // two ballots for one pseudonym
	KindSpoiled       = "SPOILED_INVALID" // a spoiled ballot that does not decode, is not under its tracker or whose opening fails (Code says which)
	KindTracker       = "TRACKER"         // a tracker key or a ciphertext claim that is not what the contract writes (docs/VERIFY.md V32)
	KindResultMissing = "RESULT_MISSING"  // no result published
	KindResultDecode  = "RESULT_DECODE"   // result bytes do not decode
	KindResultCount   = "RESULT_COUNT"    // ballotCount differs from the number of valid ballots
	KindResultProduct = "RESULT_PRODUCT"  // product differs from the product of the valid ballots
	KindResult        = "RESULT"          // decryption proof, partials or counts fail
	KindSource        = "SOURCE"          // reading the ledger failed
	KindOrder         = "COMMIT_ORDER"    // the blocks hold writes the contract never makes (a ballot key deleted or rewritten, the manifest key written after the opening, the result key written after its first write), or another result or manifest

	// The kinds of an election record's own checks (docs/RECORD.md section 6).
	KindRecord         = "RECORD"          // record.json, ballots.json or the directory's files are not a version-1 record
	KindBlockChain     = "BLOCK_CHAIN"     // a block's number, data hash, previous hash, filter or channel is wrong
	KindBlockSignature = "BLOCK_SIGNATURE" // no orderer of the configuration in force signed a block
	KindRecordBallots  = "RECORD_BALLOTS"  // ballots.json does not list exactly the ballot writes in the blocks

	// The counts are not what fabvote verify --expect-counts expects.
	KindExpectedCounts = "EXPECTED_COUNTS"
)

// Failure is one thing that does not check out.
type Failure struct {
	Kind    string
	Code    string // protocol error code for ballot failures (TOKEN, SIGNATURE, PROOF, …)
	Subject string // which object: "ballot <pseudonym> (tx <id>)", "result", …
	// Pseudonym is the ballot key (hex) of a failure about one ballot, so
	// that the JSON report names which ballots were not counted.
	Pseudonym string
	Err       string
	// Check is the docs/VERIFY.md check, where kind, code and subject do
	// not tell it (CheckOf gives every failure's).
	Check string
}

func (f Failure) String() string {
	kind := f.Kind
	if f.Code != "" {
		kind += "/" + f.Code
	}
	return fmt.Sprintf("[%s] %s: %s", kind, f.Subject, f.Err)
}

// BallotSource streams the ledger's ballot entries to fn, in any order,
// stopping at fn's first error.
type BallotSource func(fn func(election.BallotEntry) error) error

// Tally is the outcome of checking every stored ballot.
type Tally struct {
	Entries  int      // ballot entries read
	Valid    int      // ballots that pass every check
	Product  *big.Int // the packed product of the valid ballots mod N² (1 if none)
	Failures []Failure
	// Cast are the valid ballots' ciphertext digests, in listing order:
	// what their claim keys must name (CheckTrackers).
	Cast  []CastBallot
	slots *election.Product // the product of the valid ballots, slot by slot
}

// CastBallot is a valid ballot as its ciphertext claims name it.
type CastBallot struct {
	Pseudonym string     // hex
	Subject   string     // the subject of its failures: "ballot P (tx T)"
	Digests   [][32]byte // election.CiphertextDigest of each of its ciphertexts, in ballot order
}

// Options tune CheckBallots.
type Options struct {
	Workers   int            // 0: one per CPU
	BatchSize int            // proofs per batch verification; 0: 512 (one N-exponentiation shared by more proofs; beyond it, the cores wait on the last batch)
	Progress  func(done int) // called after each batch with the number of entries checked (optional)
}

type job struct {
	seq     int // position of the chunk in the listing
	entries []election.BallotEntry
}

// partial is a worker's outcome for one chunk: the ballots that passed the
// per-ballot checks (pseudonym, entry and ciphertext each) and the failures.
type partial struct {
	seq      int
	keys     [][32]byte
	entries  []election.BallotEntry
	cts      [][]*big.Int // per ballot, its ciphertexts
	digests  [][][32]byte // per ballot, its ciphertexts' digests
	failures []Failure
}

// CheckBallots verifies every entry of src under p and multiplies the valid
// ciphertexts. Verification runs on every core, with proofs checked in
// batches (zkp.VerifyBatch, which still names each invalid proof). Memory
// stays bounded by the batch size times the number of workers, plus 32 bytes
// per voter for the duplicate check and a CastBallot per valid ballot.
func CheckBallots(p *election.Prepared, src BallotSource, opts Options) (*Tally, error) {
	if opts.Workers <= 0 {
		opts.Workers = runtime.NumCPU()
	}
	if opts.BatchSize <= 0 {
		opts.BatchSize = 512
	}
	jobs := make(chan job, opts.Workers)
	results := make(chan partial, opts.Workers)
	var wg sync.WaitGroup
	for w := 0; w < opts.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				r := checkChunk(p, j.entries)
				r.seq = j.seq
				results <- r
			}
		}()
	}
	t := &Tally{slots: p.NewProduct()}
	done := make(chan struct{})
	go func() {
		defer close(done)
		collect(p, t, results, opts.Progress)
	}()
	var chunk []election.BallotEntry
	seq := 0
	srcErr := src(func(e election.BallotEntry) error {
		chunk = append(chunk, e)
		if len(chunk) == opts.BatchSize {
			jobs <- job{seq: seq, entries: chunk}
			seq, chunk = seq+1, nil
		}
		return nil
	})
	if len(chunk) > 0 && srcErr == nil {
		jobs <- job{seq: seq, entries: chunk}
	}
	close(jobs)
	wg.Wait()
	close(results)
	<-done
	t.Product = t.slots.Packed()
	if srcErr != nil {
		return t, fmt.Errorf("reading ballots from the ledger: %w", srcErr)
	}
	return t, nil
}

// collect adds the workers' results to t in listing order (chunks can
// finish out of order), so that of two valid ballots under one pseudonym
// the first listed is the one counted, and the product comes from this one
// read of the ledger: a duplicate's ciphertext is never multiplied in.
func collect(p *election.Prepared, t *Tally, results <-chan partial, progress func(int)) {
	seen := make(map[[32]byte]struct{})
	waiting := map[int]partial{}
	next := 0
	for r := range results {
		waiting[r.seq] = r
		for {
			r, ok := waiting[next]
			if !ok {
				break
			}
			delete(waiting, next)
			next++
			t.Failures = append(t.Failures, r.failures...)
			for i, k := range r.keys {
				if _, dup := seen[k]; dup {
					t.Failures = append(t.Failures, Failure{Kind: KindDuplicate, Code: election.CodeDuplicate, Subject: subject(r.entries[i]), Pseudonym: r.entries[i].Pseudonym,
						Err: "a second ballot for this pseudonym is on the ledger; only the first is counted"})
					continue
				}
				seen[k] = struct{}{}
				e := r.entries[i]
				t.Cast = append(t.Cast, CastBallot{Pseudonym: e.Pseudonym, Subject: subject(e), Digests: r.digests[i]})
				t.slots.Add(r.cts[i])
				t.Valid++
			}
			t.Entries += len(r.keys) + len(r.failures)
			if progress != nil {
				progress(t.Entries)
			}
		}
	}
}

func subject(e election.BallotEntry) string {
	s := "ballot " + e.Pseudonym
	if e.TxID != "" {
		s += " (tx " + e.TxID + ")"
	}
	return s
}

func ballotFailure(e election.BallotEntry, kind string, err error) Failure {
	return Failure{Kind: kind, Code: election.CodeOf(err), Subject: subject(e), Pseudonym: e.Pseudonym, Err: err.Error()}
}

// checkChunk runs the per-ballot checks on entries and batch-verifies the proofs.
func checkChunk(p *election.Prepared, entries []election.BallotEntry) partial {
	var out partial
	type pending struct {
		e       election.BallotEntry
		key     [32]byte
		cs      []*big.Int
		digests [][32]byte
	}
	var proofs []election.Proofs
	var pend []pending
	for _, e := range entries {
		if e.NotRecord != nil {
			out.failures = append(out.failures, ballotFailure(e, KindBallotDecode, e.NotRecord))
			continue
		}
		b, err := election.ParseBallot(e.Ballot)
		if err != nil {
			out.failures = append(out.failures, ballotFailure(e, KindBallotDecode, err))
			continue
		}
		key := b.Pseudonym()
		if hex.EncodeToString(key[:]) != e.Pseudonym {
			out.failures = append(out.failures, ballotFailure(e, KindBallotKey,
				fmt.Errorf("stored under key %s, but its token's pseudonym is %s", e.Pseudonym, hex.EncodeToString(key[:]))))
			continue
		}
		cs, err := p.CheckAuthorised(b)
		var items election.Proofs
		if err == nil {
			items, err = p.ProofItems(b, cs)
		}
		if err != nil {
			out.failures = append(out.failures, ballotFailure(e, KindBallotInvalid, err))
			continue
		}
		proofs = append(proofs, items)
		pend = append(pend, pending{e: e, key: key, cs: cs, digests: ciphertextDigests(p, b)})
	}
	errs := election.VerifyBallotProofs(rand.Reader, proofs)
	for i, pd := range pend {
		if errs[i] != nil {
			out.failures = append(out.failures, ballotFailure(pd.e, KindBallotInvalid, errs[i]))
			continue
		}
		out.keys = append(out.keys, pd.key)
		out.entries = append(out.entries, election.BallotEntry{Pseudonym: pd.e.Pseudonym, TxID: pd.e.TxID})
		out.cts = append(out.cts, pd.cs)
		out.digests = append(out.digests, pd.digests)
	}
	return out
}

// ciphertextDigests are the digests of ballot b's ciphertexts, b having
// passed CheckAuthorised (its ciphertexts cut evenly).
func ciphertextDigests(p *election.Prepared, b *election.Ballot) [][32]byte {
	cs, _ := p.Ciphertexts(b)
	out := make([][32]byte, len(cs))
	for i, c := range cs {
		out[i] = election.CiphertextDigest(c)
	}
	return out
}

// listing is what the ballot listing saw under one voter key.
type listing struct {
	txID string
	hash [32]byte // SHA-256 of the ballot bytes
}

// subtractLate checks every write to a ballot key that the blocks hold
// since the election opened, takes the late ballots that the listing
// multiplied into product back out of it (and out of *counted), and checks
// the late ballots the listing did not see. It reports every write the
// contract never makes, wherever it happened: a deletion, a key written
// twice, and a stored ballot that is not the one its write put there (or
// that no write put there).
func subtractLate(p *election.Prepared, o *CommitOrder, listed map[string]listing, product *election.Product, counted *int) []Failure {
	var fs []Failure
	failure := func(check string) func(BallotWrite, string, ...any) {
		return func(bw BallotWrite, format string, args ...any) {
			fs = append(fs, Failure{Kind: KindOrder, Subject: subject(bw.Entry), Pseudonym: bw.Entry.Pseudonym, Check: check,
				Err: fmt.Sprintf(format, args...) + fmt.Sprintf(" (block %d)", bw.Block)})
		}
	}
	// tampered reports a write the contract never makes; storedElse a
	// stored ballot that is not the one its write put there.
	tampered, storedElse := failure(""), failure(CheckStoredTxID)
	seen := make(map[string]BallotWrite)
	// once records bw as its key's first write; it reports a deletion or a
	// second write and returns false for them.
	once := func(bw BallotWrite, when string) bool {
		key := bw.Entry.Pseudonym
		first, dup := seen[key]
		if !dup {
			seen[key] = bw
		}
		switch {
		case bw.Deleted:
			tampered(bw, "this ballot key is deleted %s; the contract never deletes a ballot", when)
			return false
		case dup:
			tampered(bw, "this ballot key is written a second time %s (first by tx %s in block %d); the contract writes a ballot key once", when, first.Entry.TxID, first.Block)
			return false
		}
		return true
	}
	earlyOnly := make(map[string]bool) // keys written once, before the result
	for _, bw := range o.Earlier {
		earlyOnly[bw.Entry.Pseudonym] = once(bw, "before the result")
	}
	for _, bw := range o.Late {
		earlyOnly[bw.Entry.Pseudonym] = false
		if once(bw, "after the result") {
			subtractOne(p, bw, listed, product, counted, storedElse, &fs)
		}
	}
	for _, key := range slices.Sorted(maps.Keys(listed)) {
		ls := listed[key]
		bw, ok := seen[key]
		switch {
		case !election.IsPseudonymHex(key):
			// No ballot key: its ballot check reported it (BALLOT_KEY),
			// and the commit order does not read such keys.
		case !ok:
			fs = append(fs, Failure{Kind: KindOrder, Subject: subject(election.BallotEntry{Pseudonym: key, TxID: ls.txID}), Pseudonym: key, Check: CheckStoredTxID,
				Err: "the state holds a ballot under this key that no valid transaction since the election opened wrote"})
		case earlyOnly[key] && (ls.txID != bw.Entry.TxID || ls.hash != bw.Hash):
			storedElse(bw, "the state holds another ballot (tx %s) under this key than the one written before the result", ls.txID)
		}
	}
	return fs
}

// subtractOne handles one late write that is its key's only write.
func subtractOne(p *election.Prepared, bw BallotWrite, listed map[string]listing, product *election.Product, counted *int,
	storedElse func(BallotWrite, string, ...any), fs *[]Failure) {
	ls, ok := listed[bw.Entry.Pseudonym]
	if !ok {
		// Committed after the listing was read: never multiplied in,
		// and never checked. Check it now.
		*fs = append(*fs, checkChunk(p, []election.BallotEntry{bw.Entry}).failures...)
		return
	}
	if ls.hash != sha256.Sum256(bw.Entry.Ballot) {
		storedElse(bw, "the state holds another ballot (tx %s) under this key than the one written after the result", ls.txID)
		return
	}
	if ls.txID != bw.Entry.TxID {
		// The same ballot, stored with another transaction's id: still
		// the ballot this late write committed, so still not counted.
		storedElse(bw, "the ballot written after the result is stored with another transaction's id (tx %s)", ls.txID)
	}
	r := checkChunk(p, []election.BallotEntry{bw.Entry})
	if len(r.cts) != 1 {
		return // the listing already reported it, and did not count it
	}
	product.Remove(r.cts[0])
	*counted--
}

// Report is the outcome of a full audit.
type Report struct {
	ElectionID string
	Manifest   *election.Manifest
	Tally      *Tally
	Result     *election.Result
	Order      *CommitOrder // nil when the ledger's commit order was not read
	Counted    int          // valid ballots the result must count: Tally.Valid less the valid late ballots
	Failures   []Failure

	// What a record verification adds (package record); zero for a live
	// verification, whose human report must not change.
	Source      string   // SourceRecord or SourceNetwork ("" is the network)
	GenesisHash []byte   // the record's block 0 header hash
	Steps       []string // the steps reached, in order; nil: the network's steps
	Preamble    []string // lines printed after the report's first line
	Anchors     *Anchors // the anchors a record verification was given; nil for the network
	// RecordDigest is the digest of the record's files (RECORD.md 7.1),
	// once step 1 found them all: it ties a report to the record it is of.
	RecordDigest []byte
	// Optional are the optional checks asked for (Check.Optional): an
	// anchor given, --expect-counts.
	Optional []string
	// ResultRead is set once the result was looked for (a sound manifest),
	// ResultChecked once it was checked against the ballots.
	ResultRead, ResultChecked bool
	// TrackersChecked is set once the tracker keys were read and held to
	// the ballots (V32).
	TrackersChecked bool
}

// Anchors are what an observer takes from outside a record and gives its
// verifier (docs/RECORD.md section 9): each nil when not given.
type Anchors struct {
	GenesisHash    []byte // --genesis-hash
	ManifestSHA256 []byte // SHA-256 of the --manifest file
}

// CommitOrder is what the blocks say about when the result committed and
// which writes to the election's ballot keys came before and after it.
//
// A ballot counts if and only if it committed before the result. The
// chaincode only accepts a ballot whose transaction time is inside the
// voting window, but Fabric puts no expiry on an endorsed transaction: a
// client can hold a ballot endorsed in the window and submit it after the
// result is published, and it still commits (docs/PROTOCOL.md, section 7.7).
// Such a ballot is on the ledger but was not there to be counted; the audit
// checks it like any other, reports it, and leaves it out of the count.
//
// The contract writes each ballot key once and never deletes one, so any
// other write to a ballot key — before the result (a ballot removed or
// replaced before the tally, which the result would be consistent without)
// or after it — is tampering by the endorsers, and the audit reports it.
//
// The contract writes the manifest key once, when the election opens. The
// blocks are read from that first write on, so a later write of the
// manifest key cannot move where the audit starts reading; each later
// write is reported as tampering, and the opening must have written the
// manifest the state holds.
//
// The contract writes the result key once too. The ballots are ordered
// against its first write since the opening, which must have written the
// published result; every later write of the result key, a deletion or a
// write of the same bytes included, is reported as tampering: ordering
// against a later write would count ballots that committed after the
// result was published.
type CommitOrder struct {
	Opening          KeyWrite   // the first valid write of the manifest key
	ManifestRewrites []KeyWrite // every later valid write of it, deletions included, oldest first
	// The first valid write of the result key since the opening.
	ResultBlock    uint64
	ResultTxID     string
	ResultValue    []byte        // the result as written in that transaction: must be the published one
	ResultDeleted  bool          // that write deletes the key: the contract never does
	ResultRewrites []KeyWrite    // every later valid write of the result key, deletions included, oldest first
	Earlier        []BallotWrite // writes to ballot keys from the opening to the result, oldest first
	Late           []BallotWrite // writes to ballot keys after the result, oldest first
}

// LateBallots are the ballots committed after the result: each late write
// that is its key's first write since the opening and no deletion. Another
// write of a key is no ballot but tampering, reported as such. Nil for a
// nil o (the commit order was not read).
func (o *CommitOrder) LateBallots() []BallotWrite {
	if o == nil {
		return nil
	}
	written := make(map[string]bool, len(o.Late))
	for _, bw := range o.Earlier {
		written[bw.Entry.Pseudonym] = true
	}
	var out []BallotWrite
	for _, bw := range o.Late {
		if !written[bw.Entry.Pseudonym] && !bw.Deleted {
			out = append(out, bw)
		}
		written[bw.Entry.Pseudonym] = true
	}
	return out
}

// BallotWrite is one valid write to a ballot key, as the blocks hold it.
type BallotWrite struct {
	Entry   election.BallotEntry // Pseudonym and TxID (the writing transaction); Ballot only for late writes
	Hash    [32]byte             // SHA-256 of the ballot bytes written (zero for a deletion or an undecodable record)
	Block   uint64
	Deleted bool // a deletion: the contract never deletes a ballot, so this is tampering
}

// KeyWrite is one valid write to the election's manifest or result key.
type KeyWrite struct {
	TxID    string
	Block   uint64
	Hash    [32]byte // SHA-256 of the bytes written (zero for a deletion)
	Deleted bool
}

// checkManifestWrites reports every write of the manifest key after the
// opening, and an opening that did not write the manifest the state holds.
func checkManifestWrites(o *CommitOrder, manifest []byte) []Failure {
	var fs []Failure
	if o.Opening.Deleted || o.Opening.Hash != sha256.Sum256(manifest) {
		fs = append(fs, Failure{Kind: KindOrder, Subject: "manifest (tx " + o.Opening.TxID + ")", Check: CheckOpening,
			Err: fmt.Sprintf("the election's opening (block %d) did not write the manifest the state holds", o.Opening.Block)})
	}
	for _, mw := range o.ManifestRewrites {
		what := "written again"
		switch {
		case mw.Deleted:
			what = "deleted"
		case mw.Hash == o.Opening.Hash:
			what = "written again, with the same bytes,"
		}
		fs = append(fs, Failure{Kind: KindOrder, Subject: "manifest (tx " + mw.TxID + ")",
			Err: fmt.Sprintf("the manifest key is %s after the election opened (block %d, opened by tx %s in block %d); the contract writes a manifest once",
				what, mw.Block, o.Opening.TxID, o.Opening.Block)})
	}
	return fs
}

// checkResultWrites reports a first write of the result key that is not
// the published result, and every later write of the key.
func checkResultWrites(o *CommitOrder, result []byte) []Failure {
	var fs []Failure
	switch {
	case o.ResultDeleted:
		fs = append(fs, Failure{Kind: KindOrder, Subject: "result (tx " + o.ResultTxID + ")", Check: CheckResultWrite,
			Err: fmt.Sprintf("the result key's first write since the election opened (block %d) deletes it; the contract writes a result once", o.ResultBlock)})
	case !bytes.Equal(o.ResultValue, result):
		fs = append(fs, Failure{Kind: KindOrder, Subject: "result", Check: CheckResultWrite,
			Err: fmt.Sprintf("the result written in block %d (tx %s) is not the published result", o.ResultBlock, o.ResultTxID)})
	}
	first := sha256.Sum256(o.ResultValue)
	for _, rw := range o.ResultRewrites {
		what := "written again"
		switch {
		case rw.Deleted:
			what = "deleted"
		case !o.ResultDeleted && rw.Hash == first:
			what = "written again, with the same bytes,"
		}
		fs = append(fs, Failure{Kind: KindOrder, Subject: "result (tx " + rw.TxID + ")",
			Err: fmt.Sprintf("the result key is %s after its first write (block %d, first written by tx %s in block %d); the contract writes a result once",
				what, rw.Block, o.ResultTxID, o.ResultBlock)})
	}
	return fs
}

// OK reports whether the audit passed.
func (r *Report) OK() bool { return len(r.Failures) == 0 }

// Ledger is what an audit reads.
type Ledger struct {
	Manifest []byte       // GetManifest
	Ballots  BallotSource // ListBallots, every page
	Result   []byte       // GetResult; nil if none is published
	// Trackers, if set, reads the writes of the election's tracker and
	// ciphertext claim keys from the blocks (docs/RECORD.md 4.1), which
	// CheckTrackers holds to
	// the valid ballots (V32). Nil: V32 is not run (a live verification
	// that reads no blocks: no result is published).
	Trackers func() ([]TrackerWrite, error)
	// Order, if set, reads the commit order from the blocks. It is called
	// after Ballots has been read, so that every ballot the listing saw
	// and that committed after the result is among the late ones. Nil:
	// every stored ballot must be counted.
	Order func() (*CommitOrder, error)
}

// ErrNoResult is returned by a ledger reader when no result is published.
var ErrNoResult = errors.New("no result published")

// Run audits an election. It returns a report even when the audit fails;
// a failure to read the ledger is one of its failures (KindSource). The
// failures are in SortFailures' order.
func Run(l *Ledger, opts Options) *Report {
	rep := &Report{}
	defer func() { SortFailures(rep.Failures) }()
	p, ok := rep.prepareManifest(l.Manifest)
	if !ok {
		return rep
	}
	rep.checkKeyOrigin(p.Manifest)
	src, listed := recordListing(l)
	t, err := CheckBallots(p, src, opts)
	rep.Tally = t
	if t != nil {
		rep.Failures = append(rep.Failures, t.Failures...)
	}
	if err != nil {
		rep.Failures = append(rep.Failures, Failure{Kind: KindSource, Subject: "ballots", Err: err.Error()})
		return rep
	}
	if l.Trackers != nil {
		ws, err := l.Trackers()
		if err != nil {
			rep.Failures = append(rep.Failures, Failure{Kind: KindSource, Subject: "trackers", Err: err.Error()})
			return rep
		}
		rep.Failures = append(rep.Failures, CheckTrackers(p, ws, t.Cast)...)
		rep.TrackersChecked = true
	}
	rep.ResultRead = true
	res, decoded := rep.parseResult(l.Result)
	if l.Result == nil {
		return rep
	}
	// A result that does not decode is still checked against the blocks:
	// its first write must be these bytes (RECORD.md 6 step 4).
	rep.Counted = t.Valid
	product, ok := rep.checkCommitOrder(p, l, listed, t)
	if ok && decoded {
		rep.ResultChecked = true
		rep.checkResult(p, res, product)
	}
	return rep
}

// prepareManifest parses and checks the manifest, recording it in the
// report; false means it failed, and the failure is recorded.
func (r *Report) prepareManifest(manifest []byte) (*election.Prepared, bool) {
	m, err := election.ParseManifest(manifest)
	if err != nil {
		r.Failures = append(r.Failures, Failure{Kind: KindManifest, Code: election.CodeOf(err), Subject: "manifest", Err: err.Error()})
		return nil, false
	}
	r.ElectionID = m.ElectionID
	p, err := election.Prepare(m)
	if err != nil {
		r.Failures = append(r.Failures, Failure{Kind: KindManifest, Code: election.CodeOf(err), Subject: "manifest", Err: err.Error()})
		return nil, false
	}
	r.Manifest = m // only a manifest that prepares is one the report describes
	return p, true
}

// checkKeyOrigin is docs/VERIFY.md V33: a dealt key passes, labelled
// so; a distributed key passes only if its ceremony verifies. A failure
// does not stop the audit: the ballots and the result are checked under
// the key all the same.
func (r *Report) checkKeyOrigin(m *election.Manifest) {
	if err := m.CheckKeyOrigin(); err != nil {
		r.Failures = append(r.Failures, Failure{Kind: KindKeyOrigin, Code: election.CodeOf(err), Subject: "manifest", Err: err.Error()})
	}
}

// recordListing returns the ballot source to audit. When the commit order
// will be read against a result, it wraps l.Ballots to note what the
// listing saw under each key, so that late ballots can be recognised in it;
// the map is nil otherwise.
func recordListing(l *Ledger) (BallotSource, map[string]listing) {
	if l.Order == nil || l.Result == nil {
		return l.Ballots, nil
	}
	listed := make(map[string]listing)
	src := func(fn func(election.BallotEntry) error) error {
		return l.Ballots(func(e election.BallotEntry) error {
			listed[e.Pseudonym] = listing{txID: e.TxID, hash: sha256.Sum256(e.Ballot)}
			return fn(e)
		})
	}
	return src, listed
}

// parseResult parses the published result, recording it in the report;
// false means there is none or it does not parse, and the failure is
// recorded.
func (r *Report) parseResult(result []byte) (*election.Result, bool) {
	if result == nil {
		r.Failures = append(r.Failures, Failure{Kind: KindResultMissing, Subject: "result", Err: "no result is published for this election"})
		return nil, false
	}
	res, err := election.ParseResult(result)
	if err != nil {
		r.Failures = append(r.Failures, Failure{Kind: KindResultDecode, Code: election.CodeOf(err), Subject: "result", Err: err.Error()})
		return nil, false
	}
	r.Result = res
	return res, true
}

// checkCommitOrder reads the commit order from the blocks, if the ledger
// offers it, checks the writes to the manifest, ballot and result keys, and
// takes the late ballots out of product and r.Counted. It returns the
// product the result must carry; false means the blocks could not be read,
// and the failure is recorded.
func (r *Report) checkCommitOrder(p *election.Prepared, l *Ledger, listed map[string]listing, t *Tally) (*election.Product, bool) {
	if l.Order == nil {
		return t.slots, true
	}
	o, err := l.Order()
	if err != nil {
		f := Failure{Kind: KindSource, Subject: "blocks", Err: "reading the commit order: " + err.Error()}
		if errors.Is(err, ErrNoResultWrite) {
			f.Check = CheckResultWrite // the blocks hold no place for the published result
		}
		r.Failures = append(r.Failures, f)
		return nil, false
	}
	r.Order = o
	r.Failures = append(r.Failures, checkManifestWrites(o, l.Manifest)...)
	r.Failures = append(r.Failures, subtractLate(p, o, listed, t.slots, &r.Counted)...)
	r.Failures = append(r.Failures, checkResultWrites(o, l.Result)...)
	return t.slots, true
}

// checkResult checks the published result against the audit's own count,
// each contest's, and product, then its decryption and counts.
func (r *Report) checkResult(p *election.Prepared, res *election.Result, product *election.Product) {
	what := "valid ballots on the ledger"
	if r.Order != nil {
		what = "valid ballots committed before the result"
	}
	if res.BallotCount != uint64(r.Counted) {
		r.Failures = append(r.Failures, Failure{Kind: KindResultCount, Subject: "result", Err: fmt.Sprintf("ballotCount is %d, but there are %d %s", res.BallotCount, r.Counted, what)})
	}
	for _, err := range election.ContestBallotErrors(res, product.Ballots()) {
		r.Failures = append(r.Failures, Failure{Kind: KindResultCount, Subject: "result", Err: err.(*election.Error).Msg})
	}
	want := p.PublicKey.EncodeCiphertext(product.Packed())
	if string(res.Product) != string(want) {
		r.Failures = append(r.Failures, Failure{Kind: KindResultProduct, Subject: "result", Err: fmt.Sprintf("the published product is not the product of the %d %s", r.Counted, what)})
	}
	if err := p.VerifyResult(res); err != nil {
		r.Failures = append(r.Failures, Failure{Kind: KindResult, Code: election.CodeOf(err), Subject: "result", Err: err.Error()})
	}
}

func countKind(fs []Failure, kind string) int {
	n := 0
	for _, f := range fs {
		if f.Kind == kind {
			n++
		}
	}
	return n
}
