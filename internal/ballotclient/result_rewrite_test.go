package ballotclient

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/election/electiontest"
	"github.com/fabvote/fabvote/internal/audit"
	"github.com/fabvote/fabvote/internal/chain/chaintest"
)

// resultFixture is an election with three cast ballots and a result over
// any prefix of them.
type resultFixture struct {
	mb      []byte
	ballots []*election.Ballot
	entries []election.BallotEntry // as the state lists them, each recorded as its cast
	results [][]byte               // results[n]: the result over the first n ballots
}

func newResultFixture(t *testing.T) *resultFixture {
	t.Helper()
	fx := electiontest.Load()
	m := fx.Manifest("e1")
	mb, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	p, err := election.Prepare(m)
	if err != nil {
		t.Fatal(err)
	}
	f := &resultFixture{mb: mb}
	for i, choice := range []int{0, 1, 2} {
		b := fx.Ballot(m, fx.Voters[i], choice)
		f.ballots = append(f.ballots, b)
		f.entries = append(f.entries, election.BallotEntry{Pseudonym: b.PseudonymHex(), TxID: castID(i), Ballot: b.Marshal()})
	}
	for n := 0; n <= len(f.entries); n++ {
		f.results = append(f.results, resultOf(t, p, fx, f.entries[:n]))
	}
	return f
}

// resultOf is the encoded result that counts the ballots of entries,
// decrypted with the fixture's whole key.
func resultOf(t *testing.T, p *election.Prepared, fx *electiontest.Fixture, entries []election.BallotEntry) []byte {
	t.Helper()
	tally, err := audit.CheckBallots(p, source(entries), audit.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	res, err := audit.ResultFromKey(p, tally, fx.Paillier)
	if err != nil {
		t.Fatal(err)
	}
	rb, err := res.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return rb
}

func castID(i int) string { return "cast" + string(rune('A'+i)) }

func source(es []election.BallotEntry) audit.BallotSource {
	return func(fn func(election.BallotEntry) error) error {
		for _, e := range es {
			if err := fn(e); err != nil {
				return err
			}
		}
		return nil
	}
}

// cast is ballot i's cast transaction.
func (f *resultFixture) cast(i int) tx {
	rec := (&election.Record{TxID: castID(i), Ballot: f.ballots[i].Marshal()}).Marshal()
	return tx{ID: castID(i), Valid: true, Writes: []string{ballotWrite(f.ballots[i].PseudonymHex(), rec)}}
}

// The contract writes an election's result once. Colluding endorsers who
// write the result key again — to count a ballot that committed after the
// published result, to repeat it, or after deleting it — leave a state
// whose result matches its ballots; the audit must still name every write
// of the result key after the first as COMMIT_ORDER.
func TestAuditSeesAResultRewrite(t *testing.T) {
	f := newResultFixture(t)
	open := tx{ID: "open", Valid: true, Writes: []string{"ballot/" + manifestKey + "=" + string(f.mb)}}
	publish := func(id string, n int) tx {
		return tx{ID: id, Valid: true, Writes: []string{"ballot/" + resultKey + "=" + string(f.results[n])}}
	}
	del := tx{ID: "del", Valid: true, Writes: []string{"ballot/" + resultKey}}
	for _, tc := range []struct {
		name   string
		blocks [][]tx
		state  []byte   // the result the state holds
		want   []string // lines the report must hold
	}{
		{"rewritten to count a ballot cast after the result", [][]tx{
			{open}, {f.cast(0), f.cast(1)}, {publish("res", 2)}, {f.cast(2)}, {publish("again", 3)},
		}, f.results[3], []string{
			"[COMMIT_ORDER] result (tx again): the result key is written again after its first write (block 4, first written by tx res in block 2); the contract writes a result once",
			"[COMMIT_ORDER] result: the result written in block 2 (tx res) is not the published result",
			"LATE ballot " + f.entries[2].Pseudonym,
		}},
		{"written again with the same bytes", [][]tx{
			{open}, {f.cast(0), f.cast(1), f.cast(2)}, {publish("res", 3)}, {publish("again", 3)},
		}, f.results[3], []string{
			"[COMMIT_ORDER] result (tx again): the result key is written again, with the same bytes, after its first write (block 3, first written by tx res in block 2)",
		}},
		{"deleted and written again", [][]tx{
			{open}, {f.cast(0), f.cast(1), f.cast(2)}, {publish("res", 3)}, {del}, {publish("again", 3)},
		}, f.results[3], []string{
			"[COMMIT_ORDER] result (tx del): the result key is deleted after its first write (block 3,",
			"[COMMIT_ORDER] result (tx again): the result key is written again, with the same bytes,",
		}},
		{"deleted before its first write", [][]tx{
			{open}, {f.cast(0), f.cast(1), f.cast(2)}, {del}, {publish("res", 3)},
		}, f.results[3], []string{
			"[COMMIT_ORDER] result (tx del): the result key's first write since the election opened (block 2) deletes it; the contract writes a result once",
			"[COMMIT_ORDER] result (tx res): the result key is written again after its first write (block 3, first written by tx del in block 2)",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := chaintest.NewChain(tc.blocks...)
			l := &audit.Ledger{Manifest: f.mb, Ballots: source(f.entries), Result: tc.state, Order: func() (*audit.CommitOrder, error) {
				return audit.ReadCommitOrder(context.Background(), c, "ballot", "e1")
			}}
			rep := audit.Run(l, audit.Options{Workers: 1})
			var out bytes.Buffer
			rep.Write(&out)
			if rep.OK() {
				t.Fatalf("the audit passes a ledger whose result key is written more than once:\n%s", out.String())
			}
			for _, want := range tc.want {
				if !strings.Contains(out.String(), want) {
					t.Errorf("the report does not say %q:\n%s", want, out.String())
				}
			}
		})
	}
}
