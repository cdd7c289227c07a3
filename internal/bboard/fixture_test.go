package bboard

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/fabvote/fabvote/crypto/paillier/threshold/thresholdtest"
	"github.com/fabvote/fabvote/crypto/zkp"
	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/election/electiontest"
	"github.com/fabvote/fabvote/internal/audit"
	"github.com/fabvote/fabvote/internal/record"
)

// genesis is the genesis hash the synthetic reports carry.
var genesis = hexOf("genesis")

func hexOf(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// elections holds the encoded manifests and results of the fixtures; they
// are made once because encryption and threshold dealing take a while.
var elections = sync.OnceValue(func() map[string][2][]byte {
	fx := electiontest.Load()
	out := map[string][2][]byte{}
	single := fx.Manifest("e-single")
	out["single"] = [2][]byte{mustMarshal(single.Marshal()), singleResult(fx, single, 5, oneContest(3, 1, 0, 1))}
	thr, pp, shares := fx.ThresholdManifest("e-thr", 2, 3)
	p, err := election.Prepare(thr)
	check(err)
	counts := oneContest(2, 2, 1, 0)
	c := encryptTally(p, counts)
	var parts [][]byte
	for _, i := range []int{0, 2} {
		pd, err := thresholdtest.PartialDecrypt(shares[i], pp, c)
		check(err)
		parts = append(parts, mustMarshal(pd.Marshal(pp)))
	}
	tally := tallyOf(p, counts)
	r := &election.Result{Version: election.ResultVersion, ElectionID: thr.ElectionID, BallotCount: 5,
		Product: p.PublicKey.EncodeCiphertext(c), Tally: tally.Bytes(), Contests: contestResults(p, tally, counts), Partials: parts}
	check(p.VerifyResult(r))
	out["threshold"] = [2][]byte{mustMarshal(thr.Marshal()), mustMarshal(r.Marshal())}
	// Three contests in two styles: 3 ballots of style north (every
	// contest), 2 of style south (no council). Of the council's 3, one
	// is blank and the two others select 3 options of 4 (one undervote).
	multi := fx.ContestManifest("e-contests")
	out["contests"] = [2][]byte{mustMarshal(multi.Marshal()), singleResult(fx, multi, 5, []election.ContestResult{
		{ID: "mayor", Ballots: 5, Counts: []uint64{3, 1, 1, 0}},
		{ID: "council", Ballots: 3, Counts: []uint64{2, 1, 0, 0, 0}, Blank: 1},
		{ID: "referendum", Ballots: 5, Counts: []uint64{3, 2}},
	})}
	return out
})

// oneContest is the count of the one contest of electiontest's Manifest:
// a ballot per vote.
func oneContest(counts ...uint64) []election.ContestResult {
	var n uint64
	for _, c := range counts {
		n += c
	}
	return []election.ContestResult{{ID: election.OneContestID, Ballots: n, Counts: counts}}
}

func check(err error) {
	if err != nil {
		panic(err)
	}
}

func mustMarshal(b []byte, err error) []byte {
	check(err)
	return b
}

// tallyOf is what the product of the ballots decrypts to: every contest's
// counts, then its blank votes where it allows them, as digits of base
// M = 2^Layout.Bits from the contest's offset on.
func tallyOf(p *election.Prepared, cs []election.ContestResult) *big.Int {
	t := new(big.Int)
	digit := func(n uint64, at int) {
		t.Add(t, new(big.Int).Lsh(new(big.Int).SetUint64(n), p.Layout.Bits*uint(at)))
	}
	for i, cr := range cs {
		off := p.Layout.Contests[i].Offset
		for j, n := range cr.Counts {
			digit(n, off+j)
		}
		if p.Manifest.Contests[i].Blank {
			digit(cr.Blank, off+len(cr.Counts))
		}
	}
	return t
}

// contestResults are the contests' results from the tally, with the
// ballots of cs: what a tallier publishes (undervotes included).
func contestResults(p *election.Prepared, tally *big.Int, cs []election.ContestResult) []election.ContestResult {
	ballots := make([]uint64, len(cs))
	for i, cr := range cs {
		ballots[i] = cr.Ballots
	}
	out, err := p.NewContestResults(tally, ballots)
	check(err)
	return out
}

func encryptTally(p *election.Prepared, cs []election.ContestResult) *big.Int {
	c, _, err := p.PublicKey.Encrypt(rand.Reader, tallyOf(p, cs))
	check(err)
	return c
}

// singleResult is a real single-key result of ballotCount ballots counting
// cs, with the decryption proof, as in election's own tests: it passes
// election.VerifyResult.
func singleResult(fx *electiontest.Fixture, m *election.Manifest, ballotCount uint64, cs []election.ContestResult) []byte {
	p, err := election.Prepare(m)
	check(err)
	c := encryptTally(p, cs)
	dec, nonce, err := zkp.ProveDecryption(fx.Paillier, c)
	check(err)
	r := &election.Result{Version: election.ResultVersion, ElectionID: m.ElectionID, BallotCount: ballotCount,
		Product: p.PublicKey.EncodeCiphertext(c), Tally: election.EncodeInt(dec), Contests: contestResults(p, dec, cs),
		DecryptionNonce: election.EncodeInt(nonce)}
	check(election.VerifyResult(m, r))
	return mustMarshal(r.Marshal())
}

// fixture is one synthetic record and its report, as Go values that a test
// can spoil before writing them.
type fixture struct {
	id       string
	manifest []byte
	result   []byte // nil: no result.json
	record   map[string]any
	ballots  []record.Entry
	report   map[string]any
}

// ballotN is the n-th synthetic ballot: hashes derived from n so that the
// fixture is the same on every run.
func ballotN(n int) record.Entry {
	return record.Entry{
		Pseudonym:  hexOf(fmt.Sprint("pseudonym ", n)),
		BallotHash: hexOf(fmt.Sprint("ballot ", n)),
		TxID:       hexOf(fmt.Sprint("tx ", n)),
		Block:      uint64(3 + n/100),
		Index:      n % 100,
	}
}

func sortBallots(bs []record.Entry) {
	slices.SortFunc(bs, func(a, b record.Entry) int { return strings.Compare(a.Pseudonym, b.Pseudonym) })
}

var allSteps = []string{"record", "blocks", "block-signatures", "ballot-index", "ballots", "commit-order", "result"}

func stepList(failed ...string) []any {
	var out []any
	for _, s := range allSteps {
		out = append(out, map[string]any{"step": s, "ok": !slices.Contains(failed, s)})
	}
	return out
}

// newFixture is election kind ("single", "threshold" or "contests") with 7 ballots:
// ballot 5 is late and ballot 6 invalid, so 5 are counted, matching the
// fixtures' results.
func newFixture(kind string) *fixture {
	e := elections()[kind]
	m, err := election.ParseManifest(e[0])
	check(err)
	r, err := election.ParseResult(e[1])
	check(err)
	f := &fixture{id: m.ElectionID, manifest: e[0], result: e[1]}
	f.record = map[string]any{"format": record.Format, "version": record.Version, "electionID": f.id,
		"channel": m.Channel, "chaincode": "ballot", "lastBlock": 12}
	for n := range 7 {
		f.ballots = append(f.ballots, ballotN(n))
	}
	sortBallots(f.ballots)
	late, bad := ballotN(5), ballotN(6)
	f.report = map[string]any{
		"format": audit.ReportFormat, "version": 1, "electionID": f.id, "source": "record", "ok": false,
		"genesisHash": genesis, "steps": stepList("ballots"),
		"checks":      []any{map[string]any{"check": "V1", "ok": true}, map[string]any{"check": "V19", "ok": false}},
		"ballots":     map[string]any{"recorded": 7, "valid": 6, "counted": 5, "late": 1},
		"result":      reportResultOf(m, r),
		"lateBallots": []any{map[string]any{"pseudonym": late.Pseudonym, "txID": late.TxID, "block": late.Block}},
		"failures": []any{map[string]any{"kind": "BALLOT_INVALID", "check": "V19", "code": "PROOF", "pseudonym": bad.Pseudonym,
			"subject": "ballot " + bad.Pseudonym + " (tx " + bad.TxID + ")", "error": "validity proof does not verify"}},
	}
	return f
}

// reportResultOf is the report's result of r, as internal/audit writes it.
func reportResultOf(m *election.Manifest, r *election.Result) map[string]any {
	var cs []any
	for i, cr := range r.Contests {
		c := m.Contests[i]
		cs = append(cs, map[string]any{"id": c.ID, "title": c.Title, "options": c.Options, "ballots": cr.Ballots,
			"counts": cr.Counts, "blank": cr.Blank, "undervotes": cr.Undervotes})
	}
	return map[string]any{"ballotCount": r.BallotCount, "contests": cs}
}

// passing makes the report a clean pass: no failure, and the invalid
// ballot gone from the index.
func (f *fixture) passing() *fixture {
	bad := ballotN(6)
	f.ballots = slices.DeleteFunc(f.ballots, func(b record.Entry) bool { return b.Pseudonym == bad.Pseudonym })
	f.report["ok"] = true
	f.report["steps"] = stepList()
	f.report["failures"] = []any{}
	f.report["checks"] = []any{map[string]any{"check": "V1", "ok": true}, map[string]any{"check": "V19", "ok": true}}
	f.report["ballots"] = map[string]any{"recorded": 6, "valid": 6, "counted": 5, "late": 1}
	return f
}

func jsonOf(v any) []byte {
	b, err := json.Marshal(v)
	check(err)
	return b
}

// write writes the record into a new temporary directory and returns it
// with the report's bytes.
func (f *fixture) write(t testing.TB) (string, []byte) {
	t.Helper()
	dir := t.TempDir()
	files := map[string][]byte{
		"record.json":   jsonOf(f.record),
		"manifest.json": f.manifest,
		"ballots.json":  jsonOf(f.ballots),
	}
	if f.result != nil {
		files["result.json"] = f.result
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, jsonOf(f.report)
}
