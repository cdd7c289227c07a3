package ballotcheck

import (
	"bytes"
	"crypto/ecdsa"
	"encoding/base64"
	"fmt"
	mrand "math/rand"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/fabvote/fabvote/crypto/zkp"
	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/election/electiontest"
)

// testElection has one contest of one ciphertext; contestElection the
// contests of electiontest.Contests3, several ciphertexts to a ballot.
const (
	testElection    = "e1"
	contestElection = "e1-contests"
)

var (
	fixOnce sync.Once
	fix     *electiontest.Fixture
	fixMan  *election.Manifest
	fixRaw  []byte
	fixP    *election.Prepared // cuts any fixture ballot into ciphertexts: the fixture's manifests share one key
	voters  []*ecdsa.PrivateKey
	ballots []*election.Ballot // one valid ballot per voter
)

// setup builds 12 real ballots once (2048-bit N, 4 candidates).
func setup(t testing.TB) {
	t.Helper()
	fixOnce.Do(func() {
		fix = electiontest.Load()
		fixMan = fix.Manifest(testElection)
		raw, err := fixMan.Marshal()
		if err != nil {
			panic(err)
		}
		fixRaw = raw
		if fixP, err = election.Prepare(fixMan); err != nil {
			panic(err)
		}
		for i := 0; i < 12; i++ {
			v := electiontest.NewVoter()
			voters = append(voters, v)
			ballots = append(ballots, fix.Ballot(fixMan, v, i%4))
		}
	})
}

// manifests answers the test election and the contest election
// (multiCiphertexts).
func manifests(t testing.TB) Manifests {
	setup(t)
	contests, err := fix.ContestManifest(contestElection).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return ManifestCache(func(key string) ([]byte, error) {
		switch key {
		case election.LedgerKey(election.ObjManifest, testElection):
			return fixRaw, nil
		case election.LedgerKey(election.ObjManifest, contestElection):
			return contests, nil
		}
		return nil, nil
	})
}

func clone(b *election.Ballot) *election.Ballot {
	c, err := election.ParseBallot(b.Marshal())
	if err != nil {
		panic(err)
	}
	return c
}

// castTx is the transaction CastBallot makes for b: it reads the ballot key
// and each ciphertext's claim key as absent, writes the record under the
// first and the cast's claim under the others.
func castTx(b *election.Ballot, n int) *Tx {
	id := fmt.Sprintf("tx%04d", n)
	raw := b.Marshal()
	key := election.LedgerKey(election.ObjBallot, b.ElectionID, b.PseudonymHex())
	rec := &election.Record{TxID: id, Ballot: raw}
	tx := &Tx{
		TxID: id, Function: "CastBallot", Args: [][]byte{raw},
		Reads:  []Read{{Key: key, Absent: true}},
		Writes: []Write{{Key: key, Value: rec.Marshal()}},
	}
	cts, _ := fixP.Ciphertexts(b) // a ballot that does not cut is refused before its claims
	addClaims(tx, b.ElectionID, cts, b.CiphertextClaim())
	return tx
}

// addClaims adds to tx the read as absent and the write of claim under the
// claim key of each of cts.
func addClaims(tx *Tx, electionID string, cts [][]byte, claim *election.CiphertextClaim) {
	for _, c := range cts {
		key := election.CiphertextKey(electionID, c)
		tx.Reads = append(tx.Reads, Read{Key: key, Absent: true})
		tx.Writes = append(tx.Writes, Write{Key: key, Value: claim.Marshal()})
	}
}

func validBlock(t testing.TB, n int) []*Tx {
	setup(t)
	txs := make([]*Tx, n)
	for i := range txs {
		txs[i] = castTx(ballots[i%len(ballots)], i)
	}
	return txs
}

// Tamperings, one per rejection kind; each returns the broken transaction
// for voter i and the code it must be rejected with.
type tamper struct {
	name string
	code string
	make func(i int) *Tx
}

func resign(b *election.Ballot, i int) *election.Ballot {
	if err := b.Sign(voters[i]); err != nil {
		panic(err)
	}
	return b
}

var tampers = []tamper{
	{"proof", election.CodeProof, func(i int) *Tx {
		// Another voter's proof for the same ciphertext shape: it decodes,
		// but does not verify under this voter's context. Re-signed so that
		// only the proof is wrong.
		b := clone(ballots[i])
		b.Proof = append([]byte(nil), ballots[(i+1)%len(ballots)].Proof...)
		return castTx(resign(b, i), i)
	}},
	{"token", election.CodeToken, func(i int) *Tx {
		b := clone(ballots[i])
		b.Token[len(b.Token)-1] ^= 1
		return castTx(resign(b, i), i)
	}},
	{"signature", election.CodeSignature, func(i int) *Tx {
		b := clone(ballots[i])
		b.Signature = append([]byte(nil), ballots[(i+1)%len(ballots)].Signature...)
		return castTx(b, i)
	}},
	{"key", CodeKey, func(i int) *Tx {
		tx := castTx(ballots[i], i)
		other := election.LedgerKey(election.ObjBallot, testElection, ballots[(i+1)%len(ballots)].PseudonymHex())
		tx.Writes[0].Key, tx.Reads[0].Key = other, other
		return tx
	}},
	{"shape", election.CodeCiphertext, func(i int) *Tx {
		b := clone(ballots[i])
		b.Ciphertext = make([]byte, len(b.Ciphertext)) // 0 is not in Z*_{N²}
		return castTx(resign(b, i), i)
	}},
}

func TestAllValid(t *testing.T) {
	txs := validBlock(t, 12)
	for i, err := range CheckBlock(nil, manifests(t), txs) {
		if err != nil {
			t.Errorf("tx %d: %v", i, err)
		}
	}
}

func TestEachRejectionKindAtPositions(t *testing.T) {
	setup(t)
	positions := map[string][]int{"first": {0}, "last": {11}, "several": {2, 5, 9}}
	for _, tm := range tampers {
		for where, pos := range positions {
			t.Run(tm.name+"/"+where, func(t *testing.T) {
				txs := validBlock(t, 12)
				bad := map[int]bool{}
				for _, p := range pos {
					txs[p] = tm.make(p)
					bad[p] = true
				}
				for i, err := range CheckBlock(nil, manifests(t), txs) {
					switch {
					case bad[i] && Code(err) != tm.code:
						t.Errorf("tx %d: got %v, want code %s", i, err, tm.code)
					case !bad[i] && err != nil:
						t.Errorf("valid tx %d rejected: %v", i, err)
					}
				}
			})
		}
	}
}

func TestArgumentDiffersFromWriteSet(t *testing.T) {
	txs := validBlock(t, 4)
	txs[1].Args = [][]byte{ballots[2].Marshal()} // a valid ballot, but not the one written
	txs[2].Args = [][]byte{[]byte(base64.StdEncoding.EncodeToString(ballots[2].Marshal()))}
	errs := CheckBlock(nil, manifests(t), txs)
	if Code(errs[1]) != CodeWriteSet {
		t.Errorf("argument differs: got %v, want %s", errs[1], CodeWriteSet)
	}
	for _, i := range []int{0, 2, 3} {
		if errs[i] != nil {
			t.Errorf("tx %d (base64 argument allowed): %v", i, errs[i])
		}
	}
}

func TestWriteSetShape(t *testing.T) {
	setup(t)
	cases := []struct {
		name string
		edit func(tx *Tx)
		code string
	}{
		{"a write of another kind of key", func(tx *Tx) { tx.Writes = append(tx.Writes, Write{Key: "x", Value: []byte("y")}) }, CodeWriteSet},
		{"non-ballot key", func(tx *Tx) { tx.Writes[0].Key = "other" }, CodeWriteSet},
		{"delete", func(tx *Tx) { tx.Writes[0].IsDelete = true }, CodeKey},
		{"record of another tx", func(tx *Tx) { tx.TxID = "someone-else" }, CodeWriteSet},
		{"no absent read", func(tx *Tx) { tx.Reads = nil }, election.CodeDuplicate},
		{"record garbage", func(tx *Tx) { tx.Writes[0].Value = []byte{9, 9} }, election.CodeDecode},
		{"unknown election", func(tx *Tx) {
			b := clone(ballots[0])
			b.ElectionID = "nope"
			*tx = *castTx(resign(b, 0), 0)
		}, election.CodeNoElection},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tx := castTx(ballots[0], 0)
			c.edit(tx)
			errs := CheckBlock(nil, manifests(t), []*Tx{tx, castTx(ballots[1], 1)})
			if Code(errs[0]) != c.code {
				t.Errorf("got %v, want %s", errs[0], c.code)
			}
			if errs[1] != nil {
				t.Errorf("the valid tx next to it: %v", errs[1])
			}
		})
	}
}

// A transaction of another function that writes a ballot key is checked
// like a cast; one that writes no ballot key, or no transaction at all, is
// left to the default validation.
func TestNonBallotTransactions(t *testing.T) {
	txs := validBlock(t, 3)
	smuggled := tampers[0].make(1)
	smuggled.Function = "OpenElection"
	other := &Tx{TxID: "open", Function: "OpenElection", Writes: []Write{{Key: election.LedgerKey(election.ObjManifest, "e2"), Value: []byte("{}")}}}
	txs = append(txs, other, nil, smuggled)
	errs := CheckBlock(nil, manifests(t), txs)
	for i, want := range []string{"", "", "", "", "", election.CodeProof} {
		if Code(errs[i]) != want {
			t.Errorf("tx %d: got %v, want %q", i, errs[i], want)
		}
	}
}

func TestStateErrorIsNotARejection(t *testing.T) {
	setup(t)
	boom := fmt.Errorf("disk on fire")
	m := ManifestCache(func(string) ([]byte, error) { return nil, boom })
	errs := CheckBlock(nil, m, validBlock(t, 1))
	var se *StateError
	if !asStateError(errs[0], &se) || Code(errs[0]) != "" {
		t.Fatalf("got %v, want a StateError without a rejection code", errs[0])
	}
}

func asStateError(err error, target **StateError) bool {
	se, ok := err.(*StateError)
	*target = se
	return ok
}

// seeded is a deterministic, different weight source per seed (tests only:
// production weights come from crypto/rand).
func seeded(seed int64) *mrand.Rand { return mrand.New(mrand.NewSource(seed)) }

// TestVerdictsIndependentOfRandomnessAndWorkers: two checkers with different
// weights and worker counts give identical verdicts on a mixed block, and
// each verdict on a proof is the individual verifier's.
func TestVerdictsIndependentOfRandomnessAndWorkers(t *testing.T) {
	setup(t)
	txs := validBlock(t, 12)
	for j, p := range []int{0, 3, 4, 7, 11} {
		txs[p] = tampers[j%len(tampers)].make(p)
	}
	txs[8] = tampers[0].make(8)
	prev := runtime.GOMAXPROCS(1)
	a := CheckBlock(seeded(1), manifests(t), txs)
	runtime.GOMAXPROCS(4)
	b := CheckBlock(seeded(2), manifests(t), txs)
	runtime.GOMAXPROCS(prev)
	m := manifests(t)
	for i, tx := range txs {
		if Code(a[i]) != Code(b[i]) {
			t.Errorf("tx %d: verdicts differ: %v vs %v", i, a[i], b[i])
		}
		if want := individual(t, m, tx); Code(a[i]) != want {
			t.Errorf("tx %d: batch verdict %v, individual verdict %q", i, a[i], want)
		}
	}
}

// individual checks tx with the single-proof verifier.
func individual(t *testing.T, m Manifests, tx *Tx) string {
	ballots, err := checkTx(m, tx)
	if err != nil {
		return Code(err)
	}
	for _, ps := range ballots {
		for _, it := range ps.Items {
			if zkp.VerifyValidity(it.Ctx, it.C, it.Proof) != nil {
				return election.CodeProof
			}
		}
	}
	return ""
}

func TestArgumentEqualsWrittenBallot(t *testing.T) {
	setup(t)
	raw := ballots[0].Marshal()
	if err := checkArgument([][]byte{raw}, raw); err != nil {
		t.Fatal(err)
	}
	if err := checkArgument([][]byte{raw, raw}, raw); Code(err) != CodeWriteSet {
		t.Fatalf("two arguments: %v", err)
	}
	if err := checkArgument([][]byte{[]byte("!!")}, raw); Code(err) != CodeWriteSet {
		t.Fatalf("garbage argument: %v", err)
	}
	if err := checkArgument([][]byte{bytes.Clone(raw[:len(raw)-1])}, raw); Code(err) != CodeWriteSet {
		t.Fatalf("truncated argument: %v", err)
	}
}

// TestManifestCacheFollowsCommittedState: a manifest key rewritten in
// committed state (which only a forged write set can do) is read afresh, so
// a peer that cached the first version and a restarted peer judge the next
// block by the same manifest.
func TestManifestCacheFollowsCommittedState(t *testing.T) {
	setup(t)
	rewritten := *fixMan
	rewritten.End = fixMan.End.Add(-time.Hour)
	raw2, err := rewritten.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	stored := fixRaw
	m := ManifestCache(func(string) ([]byte, error) { return stored, nil })
	first, err := m(testElection)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := m(testElection); again != first {
		t.Fatal("an unchanged manifest was prepared again")
	}
	stored = raw2
	second, err := m(testElection)
	if err != nil {
		t.Fatal(err)
	}
	if !second.Manifest.End.Equal(rewritten.End) {
		t.Fatalf("after the rewrite the cache gave end %v, want the committed %v", second.Manifest.End, rewritten.End)
	}
	stored = nil
	if _, err := m(testElection); Code(err) != election.CodeNoElection {
		t.Fatalf("a manifest gone from state gave %v, want %s", err, election.CodeNoElection)
	}
}

// TestManifestReadOncePerBlock: a block's ballots of one election cost one
// committed-state read of its manifest, not one per ballot.
func TestManifestReadOncePerBlock(t *testing.T) {
	setup(t)
	reads := 0
	m := ManifestCache(func(key string) ([]byte, error) {
		reads++
		if key == election.LedgerKey(election.ObjManifest, testElection) {
			return fixRaw, nil
		}
		return nil, nil
	})
	txs := validBlock(t, 4)
	for i, err := range CheckBlock(nil, m, txs) {
		if err != nil {
			t.Fatalf("tx %d: %v", i, err)
		}
	}
	if reads != 1 {
		t.Fatalf("%d manifest reads for a block of %d ballots, want 1", reads, len(txs))
	}
}
