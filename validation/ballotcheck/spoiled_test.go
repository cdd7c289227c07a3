package ballotcheck

import (
	"crypto/ecdsa"
	"crypto/rand"
	"fmt"
	"sync"
	"testing"

	"github.com/fabvote/fabvote/crypto/votecode"
	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/election/electiontest"
)

// audited is a ballot with its spoiled form.
type audited struct {
	ballot  *election.Ballot
	spoiled *election.SpoiledBallot
}

var (
	spoiledOnce sync.Once
	spoiled     []*election.SpoiledBallot // two audited ballots of the test election
	multi       []audited                 // two ballots of style north of the contest election
)

// spoiledBallots makes, once, two audited ballots of the test election
// (one ciphertext each) and two of the contest election (several), of
// voters 0 and 1.
func spoiledBallots(t testing.TB) []*election.SpoiledBallot {
	setup(t)
	spoiledOnce.Do(func() {
		north := []votecode.Selection{{Options: []int{1}}, {Options: []int{0, 2}}, {Options: []int{1}}}
		contests := fix.ContestManifest(contestElection)
		for i := 0; i < 2; i++ {
			spoiled = append(spoiled, audit(fixMan, 0, voters[i], fix.Token(fixMan, voters[i]), []votecode.Selection{{Options: []int{i}}}).spoiled)
			tok := fix.TokenStyle(contests, electiontest.VoterID(voters[i]), "north", voters[i])
			multi = append(multi, audit(contests, 0, voters[i], tok, north))
		}
	})
	return spoiled
}

// multiCiphertexts is the contest election's two audited ballots.
func multiCiphertexts(t testing.TB) []audited {
	spoiledBallots(t)
	return multi
}

// audit makes a ballot of m's style style with its spoiled form.
func audit(m *election.Manifest, style int, voter *ecdsa.PrivateKey, token []byte, sels []votecode.Selection) audited {
	p, err := election.Prepare(m)
	if err != nil {
		panic(err)
	}
	bp, err := p.PrecomputeBallot(rand.Reader, style)
	if err != nil {
		panic(err)
	}
	b, o, err := bp.Finish(voter, token, sels)
	if err != nil {
		panic(err)
	}
	s, err := election.NewSpoiledBallot(b, o)
	if err != nil {
		panic(err)
	}
	return audited{ballot: b, spoiled: s}
}

// spoilTx is the transaction SpoilBallot makes for s: it reads the tracker
// key and each ciphertext's claim key as absent, writes the spoiled
// ballot's JSON under the first and its spoiled claim under the others.
func spoilTx(s *election.SpoiledBallot, n int) *Tx {
	key := election.LedgerKey(election.ObjTracker, s.ElectionID, s.TrackerHex())
	js := s.Marshal()
	tx := &Tx{
		TxID: fmt.Sprintf("spoil%04d", n), Function: "SpoilBallot", Args: [][]byte{js},
		Reads:  []Read{{Key: key, Absent: true}},
		Writes: []Write{{Key: key, Value: js}},
	}
	addClaims(tx, s.ElectionID, s.Ciphertexts, s.CiphertextClaim())
	return tx
}

// TestCastClaimWrites: a cast writes exactly its ballot and the cast claim
// naming its pseudonym on each of its ciphertexts, each read as absent; one
// case per way to miss, each next to a valid cast and a valid spoil that
// must pass.
func TestCastClaimWrites(t *testing.T) {
	ms := multiCiphertexts(t)
	b, other := ms[0].ballot, ms[1]
	last := len(castTx(b, 0).Writes) - 1
	cases := []struct {
		name string
		edit func(tx *Tx)
		code string
	}{
		{"no claim on the last ciphertext", func(tx *Tx) { tx.Writes = tx.Writes[:last] }, CodeWriteSet},
		{"no claims at all", func(tx *Tx) { tx.Writes = tx.Writes[:1] }, CodeWriteSet},
		{"a claim more, on a ciphertext of another ballot", func(tx *Tx) {
			addClaims(tx, contestElection, other.spoiled.Ciphertexts[:1], b.CiphertextClaim())
		}, CodeWriteSet},
		{"a claim naming another pseudonym", func(tx *Tx) { tx.Writes[2].Value = other.ballot.CiphertextClaim().Marshal() }, CodeWriteSet},
		{"a spoiled claim", func(tx *Tx) { tx.Writes[2].Value = ms[0].spoiled.CiphertextClaim().Marshal() }, CodeWriteSet},
		{"a claim that does not parse", func(tx *Tx) { tx.Writes[2].Value = []byte(`{"format":"fabvote/ciphertext-claim"}`) }, CodeWriteSet},
		{"a claim under the key of a ciphertext not in the ballot", func(tx *Tx) {
			k := election.CiphertextKey(contestElection, other.spoiled.Ciphertexts[1])
			tx.Writes[2].Key, tx.Reads[2].Key = k, k
		}, CodeWriteSet},
		{"a claim deleted", func(tx *Tx) { tx.Writes[last].IsDelete = true }, CodeKey},
		{"a claim not read as absent", func(tx *Tx) { tx.Reads[last].Absent = false }, election.CodeDuplicate},
		{"a claim not read", func(tx *Tx) { tx.Reads = tx.Reads[:last] }, election.CodeDuplicate},
		{"a claim written twice", func(tx *Tx) { tx.Writes = append(tx.Writes, tx.Writes[1]) }, CodeWriteSet},
		{"a tracker key written", func(tx *Tx) {
			tkey := election.LedgerKey(election.ObjTracker, contestElection, b.TrackerHex())
			tx.Writes = append(tx.Writes, Write{Key: tkey, Value: b.CiphertextClaim().Marshal()})
		}, CodeWriteSet},
		{"another kind of key written", func(tx *Tx) {
			tx.Writes[1].Key = election.LedgerKey(election.ObjManifest, contestElection)
		}, CodeWriteSet},
		{"another function writing a claim alone", func(tx *Tx) {
			tx.Function, tx.Writes = "OpenElection", tx.Writes[1:]
		}, CodeWriteSet},
		{"another function writing a ballot without a claim", func(tx *Tx) {
			tx.Function, tx.Writes = "OpenElection", tx.Writes[:last]
		}, CodeWriteSet},
		{"another function writing a ballot and its spoiled form on one set of claims", func(tx *Tx) {
			sp := spoilTx(ms[0].spoiled, 0)
			tx.Function, tx.Args = "OpenElection", nil
			tx.Writes, tx.Reads = append(tx.Writes, sp.Writes[0]), append(tx.Reads, sp.Reads[0])
		}, CodeWriteSet},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tx := castTx(b, 0)
			c.edit(tx)
			checkNextToValid(t, tx, c.code)
		})
	}
}

// TestSpoilClaimWrites: a spoil writes exactly one spoiled ballot that
// checks, under its tracker key, and the spoiled claim naming that tracker
// on each of its ciphertexts, each read as absent; one case per way to
// miss, each next to a valid cast and a valid spoil that must pass.
func TestSpoilClaimWrites(t *testing.T) {
	ss := spoiledBallots(t)
	ms := multiCiphertexts(t)
	s, other := ms[0].spoiled, ms[1].spoiled
	last := len(spoilTx(s, 0).Writes) - 1
	otherTracker := election.LedgerKey(election.ObjTracker, contestElection, other.TrackerHex())
	badOpening := *s
	badOpening.Opening = other.Opening
	cases := []struct {
		name string
		tx   func() *Tx
		code string
	}{
		{"a spoiled ballot under another key", func() *Tx {
			tx := spoilTx(s, 0)
			tx.Writes[0].Key, tx.Reads[0].Key = otherTracker, otherTracker
			return tx
		}, CodeKey},
		{"a spoil that deletes", func() *Tx {
			tx := spoilTx(s, 0)
			tx.Writes[0].IsDelete = true
			return tx
		}, CodeKey},
		{"a tracker key not read as absent", func() *Tx {
			tx := spoilTx(s, 0)
			tx.Reads = tx.Reads[1:]
			return tx
		}, election.CodeExists},
		{"a claim not read as absent", func() *Tx {
			tx := spoilTx(s, 0)
			tx.Reads[last].Absent = false
			return tx
		}, election.CodeExists},
		{"no claim on the last ciphertext", func() *Tx {
			tx := spoilTx(s, 0)
			tx.Writes = tx.Writes[:last]
			return tx
		}, CodeWriteSet},
		{"a claim naming another tracker", func() *Tx {
			tx := spoilTx(s, 0)
			tx.Writes[1].Value = other.CiphertextClaim().Marshal()
			return tx
		}, CodeWriteSet},
		{"a cast claim", func() *Tx {
			tx := spoilTx(s, 0)
			tx.Writes[1].Value = ms[0].ballot.CiphertextClaim().Marshal()
			return tx
		}, CodeWriteSet},
		{"a claim more, on a ciphertext not in the ballot", func() *Tx {
			tx := spoilTx(s, 0)
			addClaims(tx, contestElection, other.Ciphertexts[:1], s.CiphertextClaim())
			return tx
		}, CodeWriteSet},
		{"a spoiled ballot whose opening does not check", func() *Tx { return spoilTx(&badOpening, 0) }, election.CodeOpening},
		{"a spoiled ballot that does not parse", func() *Tx {
			tx := spoilTx(s, 0)
			tx.Writes[0].Value = append(tx.Writes[0].Value, ' ')
			tx.Args[0] = tx.Writes[0].Value
			return tx
		}, election.CodeDecode},
		{"a spoil of two spoiled ballots", func() *Tx {
			tx := spoilTx(s, 0)
			tx.Writes = append(tx.Writes, spoilTx(other, 1).Writes...)
			return tx
		}, CodeWriteSet},
		{"a spoil whose argument is not what it writes", func() *Tx {
			tx := spoilTx(s, 0)
			tx.Args = [][]byte{other.Marshal()}
			return tx
		}, CodeWriteSet},
		{"a spoil writing a cast claim as its spoiled ballot", func() *Tx {
			tx := spoilTx(s, 0)
			tx.Writes[0].Value = ms[0].ballot.CiphertextClaim().Marshal()
			tx.Args[0] = tx.Writes[0].Value
			return tx
		}, election.CodeDecode},
		{"a spoil writing a ballot key", func() *Tx {
			tx := spoilTx(s, 0)
			tx.Writes = append(tx.Writes, castTx(ms[0].ballot, 0).Writes[0])
			return tx
		}, CodeWriteSet},
		{"another function writing a spoiled ballot without its claims", func() *Tx {
			tx := spoilTx(ss[0], 0)
			tx.Function, tx.Writes = "OpenElection", tx.Writes[:1]
			return tx
		}, CodeWriteSet},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkNextToValid(t, c.tx(), c.code) })
	}
}

// checkNextToValid checks tx in a block beside a valid cast and a valid
// spoil: tx is refused with code, the others pass.
func checkNextToValid(t *testing.T, tx *Tx, code string) {
	t.Helper()
	ss := spoiledBallots(t)
	errs := CheckBlock(nil, manifests(t), []*Tx{tx, castTx(ballots[2], 2), spoilTx(ss[1], 3)})
	if Code(errs[0]) != code {
		t.Errorf("got %v, want %s", errs[0], code)
	}
	if errs[1] != nil || errs[2] != nil {
		t.Errorf("the valid cast and spoil next to it: %v, %v", errs[1], errs[2])
	}
}

// Casts and spoils of several ciphertexts, a spoil under the other name
// clients use, and a spoiled ballot written by another function, pass when
// they check.
func TestClaimWritesAccepted(t *testing.T) {
	ss := spoiledBallots(t)
	ms := multiCiphertexts(t)
	prefixed := spoilTx(ss[0], 0)
	prefixed.Function = "ballot:SpoilBallot"
	other := spoilTx(ss[1], 1)
	other.Function = "OpenElection"
	txs := []*Tx{prefixed, other, castTx(ms[0].ballot, 2), spoilTx(ms[1].spoiled, 3)}
	for i, err := range CheckBlock(nil, manifests(t), txs) {
		if err != nil {
			t.Errorf("tx %d: %v", i, err)
		}
	}
}
