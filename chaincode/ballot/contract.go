// Package ballot is the fabvote ballot contract: it opens elections, accepts
// encrypted ballots and audited (spoiled) ones, answers receipts and pages
// of ballots, and accepts the verified result. It runs as a chaincode service (cmd/ballot-cc).
//
// A cast transaction reads and writes the voter's ballot key (its record)
// and one claim key per ciphertext of the ballot (the cast's claim on the
// ciphertext, so that no spoiled ballot can ever open it, nor a cast hold a
// ciphertext a spoiled ballot opened: claims.go); a ballot of k
// ciphertexts, 1 + k keys. The fork's lockless commit gate (docs/FORK.md,
// O-III) runs a simulation's first read without the commit lock; the
// second escalates: it takes the lock, and fails for a retry if a commit
// came in between. So a cast's claim reads escalate, as any multi-key
// transaction's do. The manifest is read once per election and chaincode
// process and then kept in memory: it is write-once, so the cached copy can
// never be stale. The cache is keyed by channel and election id.
//
// Checks run cheapest first so that garbage costs almost nothing: size and
// decoding, election and voting window (transaction timestamp, and the
// timestamp's distance from the peer's clock), ciphertext shape, the
// authority's token, the voter's signature, the duplicate checks (the
// ballot key, then the ciphertexts' claim keys: the ledger reads), and last
// the validity proof, which costs milliseconds and can be batched across
// concurrent casts (Batcher). SpoilBallot records an audited ballot under
// its tracker key, where it never counts, and claims its ciphertexts
// (spoil.go). Every rejection is an *election.Error with its own code;
// docs/PROTOCOL.md lists them.
package ballot

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hyperledger/fabric-contract-api-go/v2/contractapi"

	"github.com/fabvote/fabvote/election"
)

// Contract is the ballot contract. Its exported methods taking a transaction
// context are the chaincode's transactions; the contract's state (the
// manifest cache and counters) lives in engine so that no other exported
// method becomes a transaction by accident.
type Contract struct {
	contractapi.Contract
	e *engine
}

type engine struct {
	cfg      Config
	now      func() time.Time
	verifier election.ProofVerifier
	cache    sync.Map // channel + "\x00" + electionID → *election.Prepared

	proofsChecked atomic.Uint64 // validity proofs handed to the verifier
	accepted      atomic.Uint64
	rejectMu      sync.Mutex
	rejected      map[string]uint64 // by error code
}

// New returns the contract with cfg.
func New(cfg Config) *Contract {
	e := &engine{cfg: cfg, now: cfg.Now, verifier: cfg.Verifier, rejected: map[string]uint64{}}
	if e.now == nil {
		e.now = time.Now
	}
	if e.verifier == nil {
		e.verifier = election.DirectVerifier{}
	}
	c := &Contract{e: e}
	c.Name = "ballot"
	c.Info.Title = "fabvote ballot contract"
	c.Info.Version = "1.0.0"
	return c
}

// NewChaincode wraps the contract for the shim. The contract is also the
// default one, so clients may call "CastBallot" or "ballot:CastBallot".
func NewChaincode(cfg Config) (*contractapi.ContractChaincode, error) {
	return Wrap(New(cfg))
}

// Wrap is NewChaincode for a contract the caller keeps, for example to read
// its counters with StatsOf.
func Wrap(c *Contract) (*contractapi.ContractChaincode, error) {
	cc, err := contractapi.NewChaincode(c)
	if err != nil {
		return nil, err
	}
	cc.DefaultContract = "ballot"
	// Same conversions and checks as contractapi's JSON serializer, without
	// re-validating string arguments against a schema that cannot reject them.
	cc.TransactionSerializer = &textSerializer{}
	return cc, nil
}

// Ledger keys.
func manifestKey(ctx contractapi.TransactionContextInterface, id string) (string, error) {
	return ctx.GetStub().CreateCompositeKey(election.ObjManifest, []string{id})
}

func resultKey(ctx contractapi.TransactionContextInterface, id string) (string, error) {
	return ctx.GetStub().CreateCompositeKey(election.ObjResult, []string{id})
}

func ballotKey(ctx contractapi.TransactionContextInterface, id, voterHashHex string) (string, error) {
	return ctx.GetStub().CreateCompositeKey(election.ObjBallot, []string{id, voterHashHex})
}

func internal(err error, what string) *election.Error {
	return &election.Error{Code: election.CodeInternal, Msg: what + ": " + err.Error(), Err: err}
}

// reject counts a rejection by code and returns err unchanged.
func (e *engine) reject(err error) error {
	if err != nil {
		code := election.CodeOf(err)
		if code == "" {
			code = election.CodeInternal
		}
		e.rejectMu.Lock()
		e.rejected[code]++
		e.rejectMu.Unlock()
	}
	return err
}

// mspID returns the submitter's MSP id, or an ACCESS error when the identity
// cannot be read (contractapi leaves it nil if the creator does not parse).
func mspID(ctx contractapi.TransactionContextInterface) (string, error) {
	ci := ctx.GetClientIdentity()
	if ci == nil {
		return "", election.Errorf(election.CodeAccess, "the submitter's identity cannot be read")
	}
	id, err := ci.GetMSPID()
	if err != nil || id == "" {
		return "", election.Errorf(election.CodeAccess, "the submitter's MSP id cannot be read")
	}
	return id, nil
}

// txTime returns the transaction timestamp after checking it is within
// MaxClockSkew of the peer's clock. Fabric takes the timestamp from the
// client's proposal and validates it nowhere, so without this bound a client
// could vote after the window closed by back-dating its proposal.
func (e *engine) txTime(ctx contractapi.TransactionContextInterface) (time.Time, error) {
	ts, err := ctx.GetStub().GetTxTimestamp()
	if err != nil || ts == nil || ts.CheckValid() != nil {
		return time.Time{}, election.Errorf(election.CodeClock, "the transaction has no valid timestamp")
	}
	t := ts.AsTime()
	if s := e.cfg.MaxClockSkew; s > 0 {
		now := e.now()
		if d := t.Sub(now); d > s || d < -s {
			return time.Time{}, election.Errorf(election.CodeClock, "transaction timestamp %s is %s away from the peer's clock %s (limit %s)",
				t.UTC().Format(time.RFC3339), d.Round(time.Second), now.UTC().Format(time.RFC3339), s)
		}
	}
	return t, nil
}

// election returns the prepared manifest of id, from the cache or the ledger.
// The ledger read happens once per election and process: manifests are
// write-once, so a cached one is never stale, and later casts' read sets
// hold only their ballot key.
func (e *engine) election(ctx contractapi.TransactionContextInterface, id string) (*election.Prepared, error) {
	cacheKey := ctx.GetStub().GetChannelID() + "\x00" + id
	if p, ok := e.cache.Load(cacheKey); ok {
		return p.(*election.Prepared), nil
	}
	key, err := manifestKey(ctx, id)
	if err != nil {
		return nil, election.Errorf(election.CodeArgument, "election id %q: %v", id, err)
	}
	raw, err := ctx.GetStub().GetState(key)
	if err != nil {
		return nil, internal(err, "reading the manifest")
	}
	if raw == nil {
		return nil, election.Errorf(election.CodeNoElection, "no election %q on this channel", id)
	}
	m, err := election.ParseManifest(raw)
	if err != nil {
		return nil, internal(err, "the stored manifest does not parse")
	}
	p, err := election.Prepare(m)
	if err != nil {
		return nil, internal(err, "the stored manifest is invalid")
	}
	actual, _ := e.cache.LoadOrStore(cacheKey, p)
	return actual.(*election.Prepared), nil
}

// OpenElection writes a manifest (canonical JSON, see election.Manifest).
// Only an identity of the manifest's authority MSP may do it (and, if the
// chaincode is configured with FABVOTE_AUTHORITY_MSPS, only one of those);
// an election id can be opened once; a distributed key opens only if its
// ceremony's result verifies (Manifest.CheckKeyOrigin).
func (c *Contract) OpenElection(ctx contractapi.TransactionContextInterface, manifest string) (err error) {
	defer recoverInternal(&err)
	return c.e.reject(c.e.openElection(ctx, manifest))
}

// recoverInternal turns a panic into an INTERNAL error. Neither the shim nor
// contractapi recovers, so a panic would kill the chaincode service and every
// transaction in flight with it; a bug should cost one transaction.
func recoverInternal(err *error) {
	if r := recover(); r != nil {
		*err = &election.Error{Code: election.CodeInternal, Msg: fmt.Sprintf("internal error: %v", r)}
	}
}

func (e *engine) openElection(ctx contractapi.TransactionContextInterface, manifest string) error {
	msp, err := mspID(ctx)
	if err != nil {
		return err
	}
	if len(e.cfg.AuthorityMSPs) > 0 && !slices.Contains(e.cfg.AuthorityMSPs, msp) {
		return election.Errorf(election.CodeAccess, "MSP %q may not open elections on this chaincode", msp)
	}
	m, err := election.ParseManifest([]byte(manifest))
	if err != nil {
		return err
	}
	if msp != m.AuthorityMSP {
		return election.Errorf(election.CodeAccess, "MSP %q is not the manifest's authority %q", msp, m.AuthorityMSP)
	}
	// The channel is part of the election's identity (tokens and proofs bind
	// it through the manifest digest): a manifest opens on its own channel only.
	if ch := ctx.GetStub().GetChannelID(); m.Channel != ch {
		return election.Errorf(election.CodeManifest, "the manifest is for channel %q, this is channel %q", m.Channel, ch)
	}
	key, err := manifestKey(ctx, m.ElectionID)
	if err != nil {
		return internal(err, "manifest key")
	}
	old, err := ctx.GetStub().GetState(key)
	if err != nil {
		return internal(err, "reading the manifest key")
	}
	if old != nil {
		return election.Errorf(election.CodeExists, "election %q is already open; its manifest is immutable", m.ElectionID)
	}
	// How the key was made is checked once per election, here, last: a
	// distributed key's ceremony (its modulus proof and self-test) costs
	// about a second at 2048 bits, which no per-ballot path pays (they
	// parse the stored manifest, which checks only its form).
	if err := m.CheckKeyOrigin(); err != nil {
		return err
	}
	if err := ctx.GetStub().PutState(key, []byte(manifest)); err != nil {
		return internal(err, "writing the manifest")
	}
	if err := ctx.GetStub().SetEvent("fabvote.ElectionOpened", []byte(m.ElectionID)); err != nil {
		return internal(err, "setting the event")
	}
	return nil
}

// maxBallotArg bounds the argument before decoding: the binary limit, or its
// base64 form.
var maxBallotArg = base64.StdEncoding.EncodedLen(election.MaxBallotSize)

// ballotBytes returns the binary ballot from the argument. Clients pass the
// canonical encoding as raw bytes; clients that can only pass text (Caliper's
// string arguments) pass its standard base64. The two cannot be confused:
// binary ballots start with the version byte (BallotVersion, a control
// character), which base64 never uses.
func ballotBytes(arg []byte) ([]byte, error) {
	if len(arg) > maxBallotArg {
		return nil, election.Errorf(election.CodeSize, "ballot argument has %d bytes, the limit is %d", len(arg), maxBallotArg)
	}
	if len(arg) == 0 || arg[0] == election.BallotVersion {
		return arg, nil
	}
	raw, err := base64.StdEncoding.Strict().DecodeString(string(arg))
	if err != nil {
		return nil, election.Errorf(election.CodeDecode, "ballot is neither the binary encoding (version byte 0x%02x) nor its standard base64", election.BallotVersion)
	}
	return raw, nil
}

// CastBallot records a ballot (see package doc for the checks and their
// order) and returns the receipt as JSON (election.Receipt).
func (c *Contract) CastBallot(ctx contractapi.TransactionContextInterface, ballot []byte) (receipt string, err error) {
	defer recoverInternal(&err)
	r, err := c.e.castBallot(ctx, ballot)
	if err != nil {
		return "", c.e.reject(err)
	}
	c.e.accepted.Add(1)
	return r, nil
}

// pipeline is implemented by verifiers that want to know which casts are on
// their way (Batcher).
type pipeline interface {
	Enter()
	Abandon()
}

// castBallot runs CastBallot's checks in the order the package doc gives,
// cheapest first, and stores the ballot under its voter's key and its cast
// claim under each of its ciphertexts' claim keys.
func (e *engine) castBallot(ctx contractapi.TransactionContextInterface, arg []byte) (string, error) {
	// A batching verifier waits for the casts it was told about: one that
	// ends without handing its proof to the verifier must say so.
	joined := false
	if pl, _ := e.verifier.(pipeline); pl != nil {
		pl.Enter()
		defer func() {
			if !joined {
				pl.Abandon()
			}
		}()
	}
	raw, b, err := decodeBallotArg(arg)
	if err != nil {
		return "", err
	}
	p, err := e.electionInWindow(ctx, b.ElectionID)
	if err != nil {
		return "", err
	}
	cs, err := p.CheckAuthorised(b)
	if err != nil {
		return "", err
	}
	key, voterHash, err := checkFirstBallot(ctx, b)
	if err != nil {
		return "", err
	}
	claims, err := checkCastClaimsFree(ctx, p, b)
	if err != nil {
		return "", err
	}
	if err := e.checkProof(p, b, cs, &joined); err != nil {
		return "", err
	}
	if err := writeClaims(ctx, claims, b.CiphertextClaim()); err != nil {
		return "", err
	}
	return storeBallot(ctx, key, b.ElectionID, voterHash, raw)
}

// decodeBallotArg returns the ballot's canonical encoding and its decoding.
func decodeBallotArg(arg []byte) ([]byte, *election.Ballot, error) {
	raw, err := ballotBytes(arg)
	if err != nil {
		return nil, nil, err
	}
	b, err := election.ParseBallot(raw)
	if err != nil {
		return nil, nil, err
	}
	return raw, b, nil
}

// electionInWindow returns the election, if the transaction's time is
// inside its voting window.
func (e *engine) electionInWindow(ctx contractapi.TransactionContextInterface, id string) (*election.Prepared, error) {
	p, err := e.election(ctx, id)
	if err != nil {
		return nil, err
	}
	t, err := e.txTime(ctx)
	if err != nil {
		return nil, err
	}
	if err := e.checkCastWindow(p.Manifest, t); err != nil {
		return nil, err
	}
	return p, nil
}

// checkFirstBallot reads the voter's ballot key, the cast's first ledger
// read, and rejects the ballot if the voter already has one. It returns the
// key and the voter's pseudonym in hex.
func checkFirstBallot(ctx contractapi.TransactionContextInterface, b *election.Ballot) (key, voterHash string, err error) {
	voterHash = b.PseudonymHex()
	key, err = ballotKey(ctx, b.ElectionID, voterHash)
	if err != nil {
		return "", "", internal(err, "ballot key")
	}
	old, err := ctx.GetStub().GetState(key)
	if err != nil {
		return "", "", internal(err, "reading the ballot key")
	}
	if old != nil {
		return "", "", election.Errorf(election.CodeDuplicate, "the voter with pseudonym %s already has a ballot in election %q", voterHash, b.ElectionID)
	}
	return key, voterHash, nil
}

// storeBallot writes the ballot's record under key and returns the receipt.
func storeBallot(ctx contractapi.TransactionContextInterface, key, electionID, voterHash string, raw []byte) (string, error) {
	txID := ctx.GetStub().GetTxID()
	if len(txID) > election.MaxTxIDLen {
		return "", internal(fmt.Errorf("%d bytes", len(txID)), "transaction id too long")
	}
	rec := &election.Record{TxID: txID, Ballot: raw}
	if err := ctx.GetStub().PutState(key, rec.Marshal()); err != nil {
		return "", internal(err, "writing the ballot")
	}
	return receiptJSON(electionID, voterHash, raw, txID)
}

func (e *engine) checkProof(p *election.Prepared, b *election.Ballot, cs []*big.Int, joined *bool) error {
	ps, err := p.ProofItems(b, cs)
	if err != nil {
		return err
	}
	if e.cfg.ProofAtValidation {
		// Cheap endorsement (O-IV): the ballot validation plugin verifies
		// the proof at every peer when the block is validated.
		return nil
	}
	*joined = true
	e.proofsChecked.Add(uint64(len(ps.Items)))
	return e.verifier.Verify(ps)
}

func receiptJSON(id, voterHash string, ballot []byte, txID string) (string, error) {
	h := election.BallotHash(ballot)
	out, err := json.Marshal(&election.Receipt{
		ElectionID: id,
		Pseudonym:  voterHash,
		BallotHash: hex.EncodeToString(h[:]),
		TxID:       txID,
	})
	if err != nil {
		return "", internal(err, "encoding the receipt")
	}
	return string(out), nil
}

func checkPseudonymHex(s string) error {
	switch {
	case len(s) != 2*election.PseudonymLen:
		return election.Errorf(election.CodeArgument, "pseudonym must be %d lower-case hex digits, got %d characters", 2*election.PseudonymLen, len(s))
	case !election.IsPseudonymHex(s):
		return election.Errorf(election.CodeArgument, "pseudonym must be %d lower-case hex digits", 2*election.PseudonymLen)
	}
	return nil
}

func checkID(id string) error {
	if !election.ValidElectionID(id) {
		return election.Errorf(election.CodeArgument, "election id %q must be 1..%d characters of [A-Za-z0-9._-] starting with a letter or digit", id, election.MaxElectionIDLen)
	}
	return nil
}

// GetBallot returns the receipt (election.Receipt JSON) of the ballot stored
// under the voter's pseudonym (64 lower-case hex digits).
func (c *Contract) GetBallot(ctx contractapi.TransactionContextInterface, electionID, pseudonym string) (string, error) {
	if err := checkID(electionID); err != nil {
		return "", err
	}
	if err := checkPseudonymHex(pseudonym); err != nil {
		return "", err
	}
	key, err := ballotKey(ctx, electionID, pseudonym)
	if err != nil {
		return "", internal(err, "ballot key")
	}
	raw, err := ctx.GetStub().GetState(key)
	if err != nil {
		return "", internal(err, "reading the ballot")
	}
	if raw == nil {
		return "", election.Errorf(election.CodeNotFound, "no ballot of the voter with pseudonym %s in election %q", pseudonym, electionID)
	}
	rec, err := election.ParseRecord(raw)
	if err != nil {
		return "", internal(err, "stored ballot record")
	}
	return receiptJSON(electionID, pseudonym, rec.Ballot, rec.TxID)
}

// ListBallots returns one page (election.BallotPage JSON) of the election's
// ballots in key order. pageSize is 1..1000; bookmark is "" for the first
// page, then the previous page's bookmark. It is a paginated range query,
// which Fabric allows only in evaluate (query) transactions.
func (c *Contract) ListBallots(ctx contractapi.TransactionContextInterface, electionID string, pageSize int32, bookmark string) (out string, err error) {
	defer recoverInternal(&err)
	if err := checkID(electionID); err != nil {
		return "", err
	}
	if pageSize < 1 || pageSize > MaxPageSize {
		return "", election.Errorf(election.CodeArgument, "page size %d, want 1..%d", pageSize, MaxPageSize)
	}
	// Fabric uses a non-empty bookmark as the range's start key, so a
	// bookmark from outside this election's ballots would page through
	// other keys: accept only bookmarks inside the election's key range.
	prefix, err := ctx.GetStub().CreateCompositeKey(election.ObjBallot, []string{electionID})
	if err != nil {
		return "", internal(err, "ballot key prefix")
	}
	if bookmark != "" && !strings.HasPrefix(bookmark, prefix) {
		return "", election.Errorf(election.CodeArgument, "bookmark is not a ballot key of election %q", electionID)
	}
	it, meta, err := ctx.GetStub().GetStateByPartialCompositeKeyWithPagination(election.ObjBallot, []string{electionID}, pageSize, bookmark)
	if err != nil {
		return "", internal(err, "range query")
	}
	defer it.Close()
	page := election.BallotPage{Ballots: []election.BallotEntry{}}
	for it.HasNext() {
		kv, err := it.Next()
		if err != nil {
			return "", internal(err, "range query")
		}
		obj, attrs, err := ctx.GetStub().SplitCompositeKey(kv.Key)
		if err != nil || obj != election.ObjBallot || len(attrs) != 2 || attrs[0] != electionID {
			return "", internal(fmt.Errorf("key %q", kv.Key), "unexpected key in the ballot range")
		}
		rec, err := election.ParseRecord(kv.Value)
		if err != nil {
			return "", internal(err, "stored ballot record")
		}
		page.Ballots = append(page.Ballots, election.BallotEntry{Pseudonym: attrs[1], TxID: rec.TxID, Ballot: rec.Ballot})
	}
	if meta != nil {
		page.Bookmark = meta.GetBookmark()
	}
	if len(page.Ballots) < int(pageSize) {
		page.Bookmark = ""
	}
	enc, err := json.Marshal(&page)
	if err != nil {
		return "", internal(err, "encoding the page")
	}
	return string(enc), nil
}

// GetManifest returns the election's manifest (canonical JSON).
func (c *Contract) GetManifest(ctx contractapi.TransactionContextInterface, electionID string) (string, error) {
	raw, err := getWriteOnce(ctx, electionID, election.ObjManifest, election.CodeNoElection, "no election %q")
	if err == nil {
		// Warm the manifest cache too. A cast on a cold chaincode reads the
		// manifest key and one on a warm chaincode does not, so two
		// endorsers, one of each, return different read sets and the
		// transaction fails ("ProposalResponsePayloads do not match").
		// Evaluating GetManifest on every peer before the load (fabvote
		// bench --open does) makes every endorser warm. The manifest is
		// write-once, so caching it from a query is as sound as from a cast.
		_, _ = c.e.election(ctx, electionID)
	}
	return raw, err
}

// GetResult returns the election's published result (canonical JSON).
func (c *Contract) GetResult(ctx contractapi.TransactionContextInterface, electionID string) (string, error) {
	return getWriteOnce(ctx, electionID, election.ObjResult, election.CodeNotFound, "no result for election %q")
}

func getWriteOnce(ctx contractapi.TransactionContextInterface, id, obj, code, msg string) (string, error) {
	if err := checkID(id); err != nil {
		return "", err
	}
	key, err := ctx.GetStub().CreateCompositeKey(obj, []string{id})
	if err != nil {
		return "", internal(err, obj+" key")
	}
	raw, err := ctx.GetStub().GetState(key)
	if err != nil {
		return "", internal(err, "reading "+obj)
	}
	if raw == nil {
		return "", election.Errorf(code, msg, id)
	}
	return string(raw), nil
}

// PublishResult records the election's result (canonical JSON,
// election.Result) once, after the voting window, from an authority or
// trustee identity. The contract recomputes the product of every ballot on
// the ledger, requires it to equal the result's product and the ballot
// count to match, and then verifies the decryption and the counts
// (election.VerifyResult).
func (c *Contract) PublishResult(ctx contractapi.TransactionContextInterface, result string) (err error) {
	defer recoverInternal(&err)
	return c.e.reject(c.e.publishResult(ctx, result))
}

// publishResult runs PublishResult's checks, the costly recomputation of
// the ledger's product and the decryption proofs last, and stores the result.
func (e *engine) publishResult(ctx contractapi.TransactionContextInterface, result string) error {
	r, err := election.ParseResult([]byte(result))
	if err != nil {
		return err
	}
	if err := checkID(r.ElectionID); err != nil {
		return err
	}
	p, err := e.election(ctx, r.ElectionID)
	if err != nil {
		return err
	}
	if err := e.checkPublisher(ctx, p.Manifest); err != nil {
		return err
	}
	key, err := checkFirstResult(ctx, r.ElectionID)
	if err != nil {
		return err
	}
	if err := checkResultMatchesLedger(ctx, p, r); err != nil {
		return err
	}
	if err := p.VerifyResult(r); err != nil {
		return err
	}
	return storeResult(ctx, key, r.ElectionID, result)
}

// checkPublisher requires the submitter to be the election's authority or
// one of its trustees, and the transaction to be late enough for a result.
func (e *engine) checkPublisher(ctx contractapi.TransactionContextInterface, m *election.Manifest) error {
	msp, err := mspID(ctx)
	if err != nil {
		return err
	}
	if msp != m.AuthorityMSP && !slices.Contains(m.TrusteeMSPs, msp) {
		return election.Errorf(election.CodeAccess, "MSP %q is neither the authority nor a trustee of election %q", msp, m.ElectionID)
	}
	t, err := e.txTime(ctx)
	if err != nil {
		return err
	}
	return e.checkResultTime(m, t)
}

// checkFirstResult reads the election's result key and rejects a second
// result; it returns the key.
func checkFirstResult(ctx contractapi.TransactionContextInterface, electionID string) (string, error) {
	key, err := resultKey(ctx, electionID)
	if err != nil {
		return "", internal(err, "result key")
	}
	old, err := ctx.GetStub().GetState(key)
	if err != nil {
		return "", internal(err, "reading the result key")
	}
	if old != nil {
		return "", election.Errorf(election.CodeExists, "the result of election %q is already published", electionID)
	}
	return key, nil
}

// checkResultMatchesLedger recomputes the product and count of the ballots
// on the ledger and requires the result to carry both.
func checkResultMatchesLedger(ctx contractapi.TransactionContextInterface, p *election.Prepared, r *election.Result) error {
	// Cheap structural checks before the range query.
	if len(r.Product) != p.PublicKey.CiphertextLen() {
		return election.Errorf(election.CodeResult, "product has %d bytes, want %d", len(r.Product), p.PublicKey.CiphertextLen())
	}
	product, count, err := ledgerProduct(ctx, p)
	if err != nil {
		return err
	}
	if count != r.BallotCount {
		return election.Errorf(election.CodeResult, "ballotCount is %d, but the ledger holds %d ballots", r.BallotCount, count)
	}
	if err := election.CheckContestBallots(r, product.Ballots()); err != nil {
		return err
	}
	if string(p.PublicKey.EncodeCiphertext(product.Packed())) != string(r.Product) {
		return election.Errorf(election.CodeResult, "product is not the product of the %d ballots on the ledger", count)
	}
	return nil
}

// storeResult writes the result as submitted under key and announces it.
func storeResult(ctx contractapi.TransactionContextInterface, key, electionID, result string) error {
	if err := ctx.GetStub().PutState(key, []byte(result)); err != nil {
		return internal(err, "writing the result")
	}
	if err := ctx.GetStub().SetEvent("fabvote.ResultPublished", []byte(electionID)); err != nil {
		return internal(err, "setting the event")
	}
	return nil
}

// ledgerProduct multiplies the ciphertexts of every ballot of the election on
// the ledger, and counts each contest's ballots. The range query is re-executed at validation (phantom-read
// check), so a ballot committed in between invalidates the result
// transaction instead of being left out of the tally. Peers cap a query at
// ledger.state.totalQueryLimit results (100000 by default): elections with
// more voters need that limit raised.
func ledgerProduct(ctx contractapi.TransactionContextInterface, p *election.Prepared) (*election.Product, uint64, error) {
	it, err := ctx.GetStub().GetStateByPartialCompositeKey(election.ObjBallot, []string{p.Manifest.ElectionID})
	if err != nil {
		return nil, 0, internal(err, "range query")
	}
	defer it.Close()
	var ballots [][]*big.Int
	for it.HasNext() {
		kv, err := it.Next()
		if err != nil {
			return nil, 0, internal(err, "range query")
		}
		rec, err := election.ParseRecord(kv.Value)
		if err != nil {
			return nil, 0, internal(err, "stored ballot record "+kv.Key)
		}
		b, err := election.ParseBallot(rec.Ballot)
		if err != nil {
			return nil, 0, internal(err, "stored ballot "+kv.Key)
		}
		cs, err := p.CheckShape(b)
		if err != nil {
			return nil, 0, internal(err, "stored ciphertext "+kv.Key)
		}
		ballots = append(ballots, cs)
	}
	return p.ProductOf(ballots), uint64(len(ballots)), nil
}

// Stats is what GetStats returns: counters of this chaincode process (not
// of the ledger), for tests and operators. Different peers answer differently.
type Stats struct {
	ProofsChecked   uint64            `json:"proofsChecked"`
	Accepted        uint64            `json:"accepted"`
	Rejected        map[string]uint64 `json:"rejected"`
	Batches         uint64            `json:"batches"`
	BatchedProofs   uint64            `json:"batchedProofs"`
	CachedManifests int               `json:"cachedManifests"`
}

// GetStats returns this process's counters as JSON (Stats). Use it from
// evaluate transactions only: it reads no ledger state.
func (c *Contract) GetStats(ctx contractapi.TransactionContextInterface) (string, error) {
	s := c.e.stats()
	out, err := json.Marshal(&s)
	if err != nil {
		return "", internal(err, "encoding stats")
	}
	return string(out), nil
}

// StatsOf returns c's counters, as GetStats does, to the process that runs
// c (its metrics endpoint). It is a function, not a method, so that it does
// not become a transaction.
func StatsOf(c *Contract) Stats { return c.e.stats() }

func (e *engine) stats() Stats {
	s := Stats{ProofsChecked: e.proofsChecked.Load(), Accepted: e.accepted.Load(), Rejected: map[string]uint64{}}
	e.rejectMu.Lock()
	for k, v := range e.rejected {
		s.Rejected[k] = v
	}
	e.rejectMu.Unlock()
	if b, ok := e.verifier.(*Batcher); ok {
		s.Batches, s.BatchedProofs = b.BatchStats()
	}
	e.cache.Range(func(_, _ any) bool { s.CachedManifests++; return true })
	return s
}
