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
	out["single"] = [2][]byte{mustMarshal(single.Marshal()), singleResult(fx, single, []uint64{3, 1, 0, 1})}
	thr, pp, shares := fx.ThresholdManifest("e-thr", 2, 3)
	p, err := election.Prepare(thr)
	check(err)
	counts := []uint64{2, 2, 1, 0}
	c := encryptTally(p, counts)
	var parts [][]byte
	for _, i := range []int{0, 2} {
		pd, err := thresholdtest.PartialDecrypt(shares[i], pp, c)
		check(err)
		parts = append(parts, mustMarshal(pd.Marshal(pp)))
	}
	tally := tallyOf(p, counts)
	r := &election.Result{ElectionID: thr.ElectionID, BallotCount: 5, Product: p.PublicKey.EncodeCiphertext(c),
		Tally: tally.Bytes(), Counts: counts, Partials: parts}
	out["threshold"] = [2][]byte{mustMarshal(thr.Marshal()), mustMarshal(r.Marshal())}
	return out
})

func check(err error) {
	if err != nil {
		panic(err)
	}
}

func mustMarshal(b []byte, err error) []byte {
	check(err)
	return b
}

// tallyOf is Σ counts_j · M^j, what the product of the ballots decrypts to.
func tallyOf(p *election.Prepared, counts []uint64) *big.Int {
	t := new(big.Int)
	for j, n := range counts {
		t.Add(t, new(big.Int).Lsh(new(big.Int).SetUint64(n), p.Encoding.Bits*uint(j)))
	}
	return t
}

func encryptTally(p *election.Prepared, counts []uint64) *big.Int {
	c, _, err := p.PublicKey.Encrypt(rand.Reader, tallyOf(p, counts))
	check(err)
	return c
}

// singleResult is a real single-key result with the decryption proof, as
// in election's own tests: it passes election.VerifyResult.
func singleResult(fx *electiontest.Fixture, m *election.Manifest, counts []uint64) []byte {
	p, err := election.Prepare(m)
	check(err)
	c := encryptTally(p, counts)
	dec, nonce, err := zkp.ProveDecryption(fx.Paillier, c)
	check(err)
	var total uint64
	for _, n := range counts {
		total += n
	}
	r := &election.Result{ElectionID: m.ElectionID, BallotCount: total, Product: p.PublicKey.EncodeCiphertext(c),
		Tally: election.EncodeInt(dec), Counts: counts, DecryptionNonce: election.EncodeInt(nonce)}
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
	ballots  []ballotEntry
	report   map[string]any
}

// ballotN is the n-th synthetic ballot: hashes derived from n so that the
// fixture is the same on every run.
func ballotN(n int) ballotEntry {
	return ballotEntry{
		Pseudonym:  hexOf(fmt.Sprint("pseudonym ", n)),
		BallotHash: hexOf(fmt.Sprint("ballot ", n)),
		TxID:       hexOf(fmt.Sprint("tx ", n)),
		Block:      uint64(3 + n/100),
		Index:      uint64(n % 100),
	}
}

func sortBallots(bs []ballotEntry) {
	slices.SortFunc(bs, func(a, b ballotEntry) int { return strings.Compare(a.Pseudonym, b.Pseudonym) })
}

var allSteps = []string{"record", "blocks", "block-signatures", "ballot-index", "ballots", "commit-order", "result"}

func stepList(failed ...string) []any {
	var out []any
	for _, s := range allSteps {
		out = append(out, map[string]any{"step": s, "ok": !slices.Contains(failed, s)})
	}
	return out
}

// newFixture is election kind ("single" or "threshold") with 7 ballots:
// ballot 5 is late and ballot 6 invalid, so 5 are counted, matching the
// fixtures' results.
func newFixture(kind string) *fixture {
	e := elections()[kind]
	m, err := election.ParseManifest(e[0])
	check(err)
	r, err := election.ParseResult(e[1])
	check(err)
	f := &fixture{id: m.ElectionID, manifest: e[0], result: e[1]}
	f.record = map[string]any{"format": recordFormat, "version": 1, "electionID": f.id,
		"channel": m.Channel, "chaincode": "ballot", "lastBlock": 12}
	for n := range 7 {
		f.ballots = append(f.ballots, ballotN(n))
	}
	sortBallots(f.ballots)
	late, bad := ballotN(5), ballotN(6)
	f.report = map[string]any{
		"format": reportFormat, "version": 1, "electionID": f.id, "source": "record", "ok": false,
		"genesisHash": genesis, "steps": stepList("ballots"),
		"checks":      []any{map[string]any{"check": "V1", "ok": true}, map[string]any{"check": "V19", "ok": false}},
		"ballots":     map[string]any{"recorded": 7, "valid": 6, "counted": 5, "late": 1},
		"result":      map[string]any{"ballotCount": r.BallotCount, "candidates": m.Candidates, "counts": r.Counts},
		"lateBallots": []any{map[string]any{"pseudonym": late.Pseudonym, "txID": late.TxID, "block": late.Block}},
		"failures": []any{map[string]any{"kind": "BALLOT_INVALID", "check": "V19", "code": "PROOF", "pseudonym": bad.Pseudonym,
			"subject": "ballot " + bad.Pseudonym + " (tx " + bad.TxID + ")", "error": "validity proof does not verify"}},
	}
	return f
}

// passing makes the report a clean pass: no failure, and the invalid
// ballot gone from the index.
func (f *fixture) passing() *fixture {
	bad := ballotN(6)
	f.ballots = slices.DeleteFunc(f.ballots, func(b ballotEntry) bool { return b.Pseudonym == bad.Pseudonym })
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
