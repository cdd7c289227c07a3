package ballotcheck

import (
	"crypto/rand"
	"fmt"
	"sync"
	"testing"

	"github.com/fabvote/fabvote/crypto/votecode"
	"github.com/fabvote/fabvote/election"
)

var (
	spoiledOnce sync.Once
	spoiled     []*election.SpoiledBallot // two audited ballots of the test election
)

// spoiledBallots makes two audited ballots of the test election once.
func spoiledBallots(t testing.TB) []*election.SpoiledBallot {
	setup(t)
	spoiledOnce.Do(func() {
		p, err := election.Prepare(fixMan)
		if err != nil {
			panic(err)
		}
		for i := 0; i < 2; i++ {
			bp, err := p.PrecomputeBallot(rand.Reader, 0)
			if err != nil {
				panic(err)
			}
			b, o, err := bp.Finish(voters[i], fix.Token(fixMan, voters[i]), []votecode.Selection{{Options: []int{i}}})
			if err != nil {
				panic(err)
			}
			s, err := election.NewSpoiledBallot(b, o)
			if err != nil {
				panic(err)
			}
			spoiled = append(spoiled, s)
		}
	})
	return spoiled
}

// spoilTx is the transaction SpoilBallot makes for s: it reads the tracker
// key as absent and writes the spoiled ballot's JSON under it.
func spoilTx(s *election.SpoiledBallot, n int) *Tx {
	key := election.LedgerKey(election.ObjTracker, s.ElectionID, s.TrackerHex())
	js := s.Marshal()
	return &Tx{
		TxID: fmt.Sprintf("spoil%04d", n), Function: "SpoilBallot", Args: [][]byte{js},
		Reads:  []Read{{Key: key, Absent: true}},
		Writes: []Write{{Key: key, Value: js}},
	}
}

// TestTrackerWrites: a cast writes exactly its ballot and its tracker
// claim, a spoil exactly one spoiled ballot that checks, under its
// tracker key; one case per way to miss, each next to a valid cast and a
// valid spoil that must pass.
func TestTrackerWrites(t *testing.T) {
	ss := spoiledBallots(t)
	otherTracker := election.LedgerKey(election.ObjTracker, testElection, ballots[1].TrackerHex())
	badOpening := *ss[0]
	badOpening.Opening = ss[1].Opening
	cases := []struct {
		name string
		tx   func() *Tx
		code string
	}{
		{"a cast without the claim", func() *Tx {
			tx := castTx(ballots[0], 0)
			tx.Writes = tx.Writes[:1]
			return tx
		}, CodeWriteSet},
		{"a cast whose second write is no tracker key", func() *Tx {
			tx := castTx(ballots[0], 0)
			tx.Writes[1].Key = election.LedgerKey(election.ObjManifest, testElection)
			return tx
		}, CodeWriteSet},
		{"a claim naming another pseudonym", func() *Tx {
			tx := castTx(ballots[0], 0)
			tx.Writes[1].Value = ballots[1].CastClaim().Marshal()
			return tx
		}, CodeWriteSet},
		{"a claim under another tracker", func() *Tx {
			tx := castTx(ballots[0], 0)
			tx.Writes[1].Key, tx.Reads[1].Key = otherTracker, otherTracker
			return tx
		}, CodeWriteSet},
		{"a claim deleted", func() *Tx {
			tx := castTx(ballots[0], 0)
			tx.Writes[1].IsDelete = true
			return tx
		}, CodeKey},
		{"a claim not read as absent", func() *Tx {
			tx := castTx(ballots[0], 0)
			tx.Reads = tx.Reads[:1]
			return tx
		}, election.CodeDuplicate},
		{"a claim that does not parse", func() *Tx {
			tx := castTx(ballots[0], 0)
			tx.Writes[1].Value = []byte(`{"format":"fabvote/tracker-claim"}`)
			return tx
		}, election.CodeDecode},
		{"a spoiled ballot under another key", func() *Tx {
			tx := spoilTx(ss[0], 0)
			tx.Writes[0].Key, tx.Reads[0].Key = otherTracker, otherTracker
			return tx
		}, CodeKey},
		{"a spoil that deletes", func() *Tx {
			tx := spoilTx(ss[0], 0)
			tx.Writes[0].IsDelete = true
			return tx
		}, CodeKey},
		{"a spoil not read as absent", func() *Tx {
			tx := spoilTx(ss[0], 0)
			tx.Reads = nil
			return tx
		}, election.CodeExists},
		{"a spoiled ballot whose opening does not check", func() *Tx { return spoilTx(&badOpening, 0) }, election.CodeOpening},
		{"a spoiled ballot that does not parse", func() *Tx {
			tx := spoilTx(ss[0], 0)
			tx.Writes[0].Value = append(tx.Writes[0].Value, ' ')
			tx.Args[0] = tx.Writes[0].Value
			return tx
		}, election.CodeDecode},
		{"a spoil of two keys", func() *Tx {
			tx := spoilTx(ss[0], 0)
			tx.Writes = append(tx.Writes, spoilTx(ss[1], 1).Writes...)
			return tx
		}, CodeWriteSet},
		{"a spoil whose argument is not what it writes", func() *Tx {
			tx := spoilTx(ss[0], 0)
			tx.Args = [][]byte{ss[1].Marshal()}
			return tx
		}, CodeWriteSet},
		{"a spoil writing a cast claim", func() *Tx {
			tx := spoilTx(ss[0], 0)
			tx.Writes[0].Value = ballots[0].CastClaim().Marshal()
			tx.Args[0] = tx.Writes[0].Value
			return tx
		}, election.CodeDecode},
		{"another function writing a claim alone", func() *Tx {
			tx := castTx(ballots[0], 0)
			tx.Function, tx.Writes, tx.Reads = "OpenElection", tx.Writes[1:], tx.Reads[1:]
			return tx
		}, election.CodeDecode},
		{"another function writing a ballot without its claim", func() *Tx {
			tx := castTx(ballots[0], 0)
			tx.Function, tx.Writes = "OpenElection", tx.Writes[:1]
			return tx
		}, CodeWriteSet},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			errs := CheckBlock(nil, manifests(t), []*Tx{c.tx(), castTx(ballots[2], 2), spoilTx(ss[1], 3)})
			if Code(errs[0]) != c.code {
				t.Errorf("got %v, want %s", errs[0], c.code)
			}
			if errs[1] != nil || errs[2] != nil {
				t.Errorf("the valid cast and spoil next to it: %v, %v", errs[1], errs[2])
			}
		})
	}
}

// A spoil under the other name clients use, and a spoiled ballot written
// by another function, pass when they check.
func TestSpoiledWritesAccepted(t *testing.T) {
	ss := spoiledBallots(t)
	prefixed := spoilTx(ss[0], 0)
	prefixed.Function = "ballot:SpoilBallot"
	other := spoilTx(ss[1], 1)
	other.Function = "OpenElection"
	for i, err := range CheckBlock(nil, manifests(t), []*Tx{prefixed, other}) {
		if err != nil {
			t.Errorf("tx %d: %v", i, err)
		}
	}
}
