package ballotclient

import (
	"context"
	"crypto/sha256"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/audit"
	"github.com/fabvote/fabvote/internal/chain/chaintest"
)

type tx = chaintest.Tx

var (
	resultKey   = election.LedgerKey(election.ObjResult, "e1")
	manifestKey = election.LedgerKey(election.ObjManifest, "e1")
)

func ballotWrite(vkh string, rec []byte) string {
	return "ballot/" + election.LedgerKey(election.ObjBallot, "e1", vkh) + "=" + string(rec)
}

func TestCommitOrder(t *testing.T) {
	// Pseudonyms: the commit order reads no other key under the prefix.
	vkh, k12, kcd, kef := strings.Repeat("ab", 32), strings.Repeat("12", 32), strings.Repeat("cd", 32), strings.Repeat("ef", 32)
	rec := (&election.Record{TxID: "late-tx", Ballot: []byte("ballot bytes")}).Marshal()
	earlyRec := (&election.Record{TxID: "early-tx", Ballot: []byte("early ballot")}).Marshal()
	c := chaintest.NewChain(
		[]tx{{ID: "open", Valid: true, Writes: []string{"ballot/" + manifestKey + "=M"}}},
		[]tx{
			{ID: "early-tx", Valid: true, Writes: []string{ballotWrite(k12, earlyRec)}},
			{ID: "early-del", Valid: true, Writes: []string{"ballot/" + election.LedgerKey(election.ObjBallot, "e1", k12)}},
		},
		[]tx{{ID: "res", Valid: true, Writes: []string{"ballot/" + resultKey + "=R"}}},
		[]tx{
			{ID: "late-tx", Valid: true, Writes: []string{ballotWrite(vkh, rec)}},
			{ID: "del-tx", Valid: true, Writes: []string{"ballot/" + election.LedgerKey(election.ObjBallot, "e1", kcd)}},
			{ID: "junk-tx", Valid: true, Writes: []string{ballotWrite(kef, []byte{0x09})}},
		},
	)
	o, err := audit.ReadCommitOrder(context.Background(), c, "ballot", "e1")
	if err != nil {
		t.Fatal(err)
	}
	if o.Opening.TxID != "open" || o.Opening.Block != 0 || o.Opening.Hash != sha256.Sum256([]byte("M")) || len(o.ManifestRewrites) != 0 {
		t.Errorf("opening %+v, later manifest writes %+v: want tx open writing M, and nothing later", o.Opening, o.ManifestRewrites)
	}
	if len(o.Earlier) != 2 {
		t.Fatalf("earlier writes %+v, want the write and the deletion of key 12", o.Earlier)
	}
	if e := o.Earlier[0]; e.Entry.Pseudonym != k12 || e.Entry.TxID != "early-tx" || e.Hash != sha256.Sum256([]byte("early ballot")) || e.Entry.Ballot != nil || e.Deleted {
		t.Errorf("earlier write %+v: want its hash and no ballot bytes", e)
	}
	if e := o.Earlier[1]; e.Entry.Pseudonym != k12 || e.Entry.TxID != "early-del" || !e.Deleted || e.Block != 1 {
		t.Errorf("earlier deletion %+v", e)
	}
	if o.ResultBlock != 2 || o.ResultTxID != "res" || string(o.ResultValue) != "R" || o.ResultDeleted || len(o.ResultRewrites) != 0 || len(o.Late) != 3 {
		t.Fatalf("commit order %+v", o)
	}
	if e := o.Late[0]; e.Entry.Pseudonym != vkh || e.Entry.TxID != "late-tx" || string(e.Entry.Ballot) != "ballot bytes" || e.Block != 3 || e.Deleted {
		t.Errorf("late ballot %+v", e)
	}
	if e := o.Late[1]; e.Entry.Pseudonym != kcd || !e.Deleted {
		t.Errorf("deletion %+v", e)
	}
	// A value that is no record encoding stands for itself: the ballot
	// checks then report it as not decoding (RECORD.md 4).
	if e := o.Late[2]; e.Entry.Pseudonym != kef || string(e.Entry.Ballot) != "\x09" || e.Hash != sha256.Sum256([]byte{0x09}) {
		t.Errorf("undecodable record %+v: want the whole value as its ballot", e)
	}
}

func TestCommitOrderErrors(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		chain *chaintest.Chain
		want  string
	}{
		{"no result after the manifest", chaintest.NewChain(
			[]tx{{ID: "open", Valid: true, Writes: []string{"ballot/" + manifestKey + "=M"}}},
		), `no block holds a valid write of the election's result: none after election "e1"'s manifest`},
		{"no manifest write in the blocks", chaintest.NewChain(
			[]tx{{ID: "res", Valid: true, Writes: []string{"ballot/" + resultKey + "=R"}}},
		), `no valid transaction in the channel's blocks wrote election "e1"'s manifest`},
		{"a broken chain", func() *chaintest.Chain {
			c := chaintest.NewChain([]tx{{ID: "res", Valid: true, Writes: []string{"ballot/" + resultKey + "=R"}}}, []tx{{ID: "b", Valid: true}})
			c.Blocks[0] = chaintest.Marshal(chaintest.Block(0, []byte("elsewhere")))
			return c
		}(), "not one chain"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := audit.ReadCommitOrder(ctx, tc.chain, "ballot", "e1")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestCommitOrderSkipsNonBallotKeys: a key under the ballot prefix that is
// no pseudonym (an extra attribute, upper-case hex) is no ballot and takes
// no part in the commit order; the listing's checks or the record's index
// report it (BALLOT_KEY, RECORD_BALLOTS).
func TestCommitOrderSkipsNonBallotKeys(t *testing.T) {
	open := tx{ID: "open", Valid: true, Writes: []string{"ballot/" + manifestKey + "=M"}}
	c := chaintest.NewChain(
		[]tx{open, {ID: "res", Valid: true, Writes: []string{"ballot/" + resultKey + "=R"}}},
		[]tx{{ID: "odd", Valid: true, Writes: []string{"ballot/" + election.LedgerKey(election.ObjBallot, "e1", "ab", "cd") + "=x"}},
			{ID: "upper", Valid: true, Writes: []string{"ballot/" + election.LedgerKey(election.ObjBallot, "e1", strings.Repeat("AB", 32)) + "=x"}}},
	)
	o, err := audit.ReadCommitOrder(context.Background(), c, "ballot", "e1")
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Earlier)+len(o.Late) != 0 {
		t.Fatalf("non-ballot keys in the commit order: earlier %v, late %v", o.Earlier, o.Late)
	}
}
