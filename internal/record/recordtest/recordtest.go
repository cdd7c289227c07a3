// Package recordtest builds complete, correctly signed synthetic election
// records for the tests of package record and for the committed test
// vectors both verifiers read (internal/record/testdata/records): a
// genesis configuration block naming one orderer organisation and its CA,
// the opening, blocks of real threshold-election ballots, a block with a
// real result, every block after the genesis signed by an orderer.
//
// The variants tamper with the election's meaning, never with the
// blocks' soundness: every variant is a well-formed record whose blocks
// an orderer really signed, so only the election checks can catch them.
//
// Partial decryptions of an arbitrary ciphertext are for test binaries
// only (package thresholdtest), so Build works inside tests only.
package recordtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/fabvote/fabvote/crypto/paillier/threshold"
	"github.com/fabvote/fabvote/crypto/paillier/threshold/thresholdtest"
	"github.com/fabvote/fabvote/crypto/votecode"
	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/election/electiontest"
	"github.com/fabvote/fabvote/internal/audit"
	"github.com/fabvote/fabvote/internal/chain/chaintest"
	"github.com/fabvote/fabvote/internal/record"
)

// The fixture's names.
const (
	ElectionID = "record-e1"
	Channel    = electiontest.Channel
	Chaincode  = "ballot"
)

// Variant selects a semantic tamper; the zero value is the good record.
type Variant string

// The variants of the committed test vectors.
const (
	Good           Variant = "good"
	ResultCount    Variant = "result-count"           // a count of the result changed: RESULT
	ForeignPartial Variant = "result-foreign-partial" // a partial decryption by a share the manifest does not know: RESULT
	LateBallot     Variant = "late-ballot"            // a ballot committed after the result: passes, reported late
	// Contests is an election of three contests in two ballot styles
	// (electiontest.ContestManifest): passes.
	Contests Variant = "contests"
	// ContestBallots is Contests with five ballots that the contract
	// refuses written as valid (by colluding endorsers): one per rule of a
	// ballot's contests and selections. Each is BALLOT_INVALID with its
	// code; the result counts the others, and passes.
	ContestBallots Variant = "contests-bad-ballots"
	// Distributed is Good with the key of a dealer-free key ceremony
	// (electiontest.DistributedManifest: keyOrigin "distributed"):
	// passes.
	Distributed Variant = "distributed"
	// DistributedBadCeremony is Distributed with the ceremony's modulus
	// proof changed in one bit, still well formed: KEY_ORIGIN (V33), and
	// the ballots and the result pass.
	DistributedBadCeremony Variant = "distributed-bad-ceremony"
)

// Variants lists every variant with the failure kinds it must give.
var Variants = map[Variant][]string{
	Good:           {},
	ResultCount:    {audit.KindResult},
	ForeignPartial: {audit.KindResult},
	LateBallot:     {},
	Contests:       {},
	ContestBallots: {audit.KindBallotInvalid},
	Spoiled:        {},
	Distributed:    {},
	// The ballots and the result pass under the key all the same.
	DistributedBadCeremony: {audit.KindKeyOrigin},
}

// Choices are the voters' candidates (2-of-3 trustees, 4 candidates).
var Choices = []int{0, 3, 3, 1, 2}

// ContestVotes are the voters' styles and selections in an election of
// electiontest's contests: blank votes and undervotes in the council.
var ContestVotes = []struct {
	Style string
	Sels  []votecode.Selection
}{
	{"north", []votecode.Selection{{Options: []int{2}}, {Options: []int{0, 3}}, {Options: []int{1}}}},
	{"south", []votecode.Selection{{Options: []int{0}}, {Options: []int{1}}}},
	{"north", []votecode.Selection{{Options: []int{1}}, {Blank: true}, {Options: []int{0}}}},
	{"south", []votecode.Selection{{Options: []int{2}}, {Options: []int{0}}}},
	{"north", []votecode.Selection{{Options: []int{2}}, {}, {Options: []int{1}}}},
}

// honestBallots are the ballots of the voters of Choices, or of
// ContestVotes in an election of several contests, and a stray valid
// ballot of another voter.
func honestBallots(fx *electiontest.Fixture, m *election.Manifest) (ballots [][]byte, stray []byte) {
	strayVoter := fx.Voters[len(Choices)+1]
	if len(m.Contests) == 1 {
		for i, c := range Choices {
			ballots = append(ballots, fx.Ballot(m, fx.Voters[i], c).Marshal())
		}
		return ballots, fx.Ballot(m, strayVoter, 2).Marshal()
	}
	for i, v := range ContestVotes {
		ballots = append(ballots, fx.ContestBallot(m, fx.Voters[i], v.Style, v.Sels).Marshal())
	}
	return ballots, fx.ContestBallot(m, strayVoter, "south", ContestVotes[1].Sels).Marshal()
}

// badContestBallots are five ballots of new voters of style north, each
// breaking one rule: a contest repeated, out of order, left out, not in
// the style, and a council of more members than it may have.
func badContestBallots(fx *electiontest.Fixture, m *election.Manifest) ([][]byte, error) {
	p, err := election.Prepare(m)
	if err != nil {
		return nil, err
	}
	var out [][]byte
	for _, list := range [][]byte{{0, 1, 1}, {0, 2, 1}, {0, 2}, {0, 1, 2, 3}} {
		v := electiontest.NewVoter()
		b := fx.ContestBallot(m, v, "north", ContestVotes[0].Sels)
		b.Contests = list
		if err := b.Sign(v); err != nil {
			return nil, err
		}
		out = append(out, b.Marshal())
	}
	v := electiontest.NewVoter()
	tok := fx.TokenStyle(m, electiontest.VoterID(v), "north", v)
	b, err := electiontest.CheatLimit(p, v, tok, ContestVotes[0].Sels, "council", []int64{1, 1, 1, 0, 0, 0})
	if err != nil {
		return nil, err
	}
	return append(out, b.Marshal()), nil
}

// Election is a built record's source: the signed blocks and the ledger
// values Export takes.
type Election struct {
	Chain  *chaintest.Chain
	Source record.Source
}

// Build makes the record of v. It must run in a test binary.
func Build(v Variant) (*Election, error) {
	if _, ok := Variants[v]; !ok && !trackerVariant(v) {
		return nil, fmt.Errorf("recordtest: unknown variant %q", v)
	}
	fx := electiontest.Load()
	m, pp, shares := electionKey(fx, v)
	if v == Contests || v == ContestBallots || trackerVariant(v) {
		m.Contests, m.Styles = electiontest.Contests3(), electiontest.Styles2()
	}
	manifest, err := m.Marshal()
	if err != nil {
		return nil, err
	}
	ballots, stray := honestBallots(fx, m)
	var tr *trackers
	if trackerVariant(v) {
		a, err := auditedBallots(fx, m)
		if err != nil {
			return nil, err
		}
		if CastsAudited(v) {
			ballots = append(ballots, a[0].ballot.Marshal())
		}
		p, err := election.Prepare(m)
		if err != nil {
			return nil, err
		}
		if tr, err = buildTrackers(p, v, ballots, a); err != nil {
			return nil, err
		}
	}
	result, err := makeResult(m, pp, shares, ballots, v)
	if err != nil {
		return nil, err
	}
	if v == ContestBallots {
		bad, err := badContestBallots(fx, m)
		if err != nil {
			return nil, err
		}
		ballots = append(ballots, bad...)
	}
	var late []byte
	if v == LateBallot {
		late = fx.Ballot(m, fx.Voters[len(Choices)], 1).Marshal()
	}
	c := buildChain(NewOrderer(OrdererMSP), manifest, ballots, result, late, stray, tr)
	return &Election{Chain: c, Source: record.Source{Blocks: c, Channel: Channel, Chaincode: Chaincode,
		ElectionID: ElectionID, Manifest: manifest, Result: result}}, nil
}

// electionKey is the manifest of v with its key and the trustees' shares:
// a 2-of-3 key dealt from the fixture's primes, or the distributed key of
// a ceremony.
func electionKey(fx *electiontest.Fixture, v Variant) (*election.Manifest, *threshold.PublicParams, []*threshold.KeyShare) {
	if v != Distributed && v != DistributedBadCeremony {
		return fx.ThresholdManifest(ElectionID, 2, 3)
	}
	m, pp, shares := fx.DistributedManifest(ElectionID)
	if v == DistributedBadCeremony {
		proof := m.KeyCeremony.ModulusProof
		proof[len(proof)-1] ^= 1
	}
	return m, pp, shares
}

// Write exports the record of v into dir (which must not exist or be
// empty), through record.Export.
func Write(ctx context.Context, v Variant, dir string) (*record.Summary, error) {
	e, err := Build(v)
	if err != nil {
		return nil, err
	}
	return record.Export(ctx, e.Source, dir)
}

// makeResult tallies ballots, has trustees 1 and 3 decrypt, and applies
// the result tamper of v.
func makeResult(m *election.Manifest, pp *threshold.PublicParams, shares []*threshold.KeyShare, ballots [][]byte, v Variant) ([]byte, error) {
	p, err := election.Prepare(m)
	if err != nil {
		return nil, err
	}
	src := func(fn func(election.BallotEntry) error) error {
		for _, b := range ballots {
			if err := fn(election.BallotEntry{Ballot: b, Pseudonym: pseudonymOf(b)}); err != nil {
				return err
			}
		}
		return nil
	}
	tally, err := audit.CheckBallots(p, src, audit.Options{})
	if err != nil || tally.Valid != len(ballots) {
		return nil, fmt.Errorf("recordtest: the fixture's ballots do not check: %v %v", err, tally.Failures)
	}
	var parts []*threshold.PartialDecryption
	for _, i := range []int{0, 2} {
		pd, err := thresholdtest.PartialDecrypt(shares[i], pp, tally.Product)
		if err != nil {
			return nil, err
		}
		parts = append(parts, pd)
	}
	res, err := audit.ResultFromPartials(p, tally, parts)
	if err != nil {
		return nil, err
	}
	if err := tamperResult(res, m, pp, tally, v); err != nil {
		return nil, err
	}
	return res.Marshal()
}

// tamperResult applies a result variant to a correct result.
func tamperResult(res *election.Result, m *election.Manifest, pp *threshold.PublicParams, tally *audit.Tally, v Variant) error {
	switch v {
	case ResultCount:
		res.Contests[0].Counts[0]++
	case ForeignPartial:
		// Another dealing of the same primes: its share 3 is nobody the
		// manifest's verification keys know, but decrypts the same product.
		fx := electiontest.Load()
		fpp, fshares, err := threshold.DealFromPrimes(rand.Reader, fx.P, fx.Q, 2, 3)
		if err != nil {
			return err
		}
		pd, err := thresholdtest.PartialDecrypt(fshares[2], fpp, tally.Product)
		if err != nil {
			return err
		}
		if res.Partials[1], err = pd.Marshal(pp); err != nil {
			return err
		}
	}
	return nil
}

func pseudonymOf(ballot []byte) string {
	b, err := election.ParseBallot(ballot)
	must(err)
	return b.PseudonymHex()
}

// txID is a Fabric-like transaction id: 64 hex digits.
func txID(label string) string {
	h := sha256.Sum256([]byte("recordtest " + label))
	return hex.EncodeToString(h[:])
}

// ballotTx is the transaction that casts ballot: the ballot contract's
// write of its record under the voter's ballot key, then, in a tracker
// variant, its claims on the ballot's ciphertexts.
func ballotTx(ballot []byte, valid bool, tr *trackers) chaintest.Tx {
	p := pseudonymOf(ballot)
	id := txID("ballot " + p)
	rec := (&election.Record{TxID: id, Ballot: ballot}).Marshal()
	kvs := []chaintest.KV{{NS: Chaincode, Key: election.LedgerKey(election.ObjBallot, ElectionID, p), Value: rec}}
	kvs = append(kvs, tr.claim(p)...)
	return chaintest.Tx{ID: id, Valid: valid, KVs: kvs}
}

// buildChain lays out the blocks: 0 genesis, 1 opening, 2 and 3 ballots
// (block 3 also holds the stray ballot in a transaction the peer marked
// invalid, which must be neither indexed nor counted, and every ballot
// after the fifth), then the spoiled ballots of a tracker variant (with
// the casts that follow them), the result, a late ballot.
func buildChain(o *Orderer, manifest []byte, ballots [][]byte, result, late, stray []byte, tr *trackers) *chaintest.Chain {
	genesis := chaintest.Tx{ID: "", Valid: true, Config: true, ConfigData: o.ConfigEnvelope(), Channel: Channel}
	opening := chaintest.Tx{ID: txID("open"), Valid: true, KVs: []chaintest.KV{{NS: Chaincode, Key: election.LedgerKey(election.ObjManifest, ElectionID), Value: manifest}}}
	publish := chaintest.Tx{ID: txID("publish"), Valid: true, KVs: []chaintest.KV{{NS: Chaincode, Key: election.LedgerKey(election.ObjResult, ElectionID), Value: result}}}
	block3 := []chaintest.Tx{ballotTx(ballots[3], true, tr), ballotTx(stray, false, nil)}
	var spoils []chaintest.Tx
	if tr != nil {
		spoils = tr.spoils
	}
	for _, b := range ballots[4:] {
		if tr.castsAfter(pseudonymOf(b)) {
			spoils = append(spoils, ballotTx(b, true, tr))
			continue
		}
		block3 = append(block3, ballotTx(b, true, tr))
	}
	blocks := [][]chaintest.Tx{{genesis}, {opening},
		{ballotTx(ballots[0], true, tr), ballotTx(ballots[1], true, tr), ballotTx(ballots[2], true, tr)},
		block3}
	if tr != nil {
		blocks = append(blocks, spoils)
	}
	blocks = append(blocks, []chaintest.Tx{publish})
	if late != nil {
		blocks = append(blocks, []chaintest.Tx{ballotTx(late, true, nil)})
	}
	c := &chaintest.Chain{}
	var prev []byte
	for i, txs := range blocks {
		b := chaintest.Block(uint64(i), prev, txs...)
		if i > 0 {
			o.Sign(b, 0)
		}
		prev = chaintest.HeaderHash(b.Header)
		c.Blocks = append(c.Blocks, chaintest.Marshal(b))
	}
	return c
}
