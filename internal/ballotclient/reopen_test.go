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

// Colluding endorsers delete ballot A (tx1), write the manifest key again
// with the same bytes (tx2), and re-write every surviving ballot with its
// record's TxID set to tx3 (tx3); the result counts the survivors. The
// state, the result and every write from tx2 on are consistent, so a walk
// that stopped at the most recent manifest write would see nothing wrong.
// The audit must read back to the election's opening, see the deletion,
// and name the manifest's second write.
func TestAuditSeesPastAManifestRewrite(t *testing.T) {
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
	var ballots []*election.Ballot
	for i, choice := range []int{0, 1, 2} {
		ballots = append(ballots, fx.Ballot(m, fx.Voters[i], choice))
	}
	write := func(b *election.Ballot, txID string) string {
		return ballotWrite(b.PseudonymHex(), (&election.Record{TxID: txID, Ballot: b.Marshal()}).Marshal())
	}
	// The state after the attack: the survivors, each recorded as tx3's.
	var listed []election.BallotEntry
	for _, b := range ballots[1:] {
		listed = append(listed, election.BallotEntry{Pseudonym: b.PseudonymHex(), TxID: "tx3", Ballot: b.Marshal()})
	}
	rb := resultOf(t, p, fx, listed)
	c := chaintest.NewChain(
		[]tx{{ID: "genesis", Valid: true, Config: true}},
		[]tx{{ID: "open", Valid: true, Writes: []string{"ballot/" + manifestKey + "=" + string(mb)}}},
		[]tx{
			{ID: "castA", Valid: true, Writes: []string{write(ballots[0], "castA")}},
			{ID: "castB", Valid: true, Writes: []string{write(ballots[1], "castB")}},
			{ID: "castC", Valid: true, Writes: []string{write(ballots[2], "castC")}},
		},
		[]tx{{ID: "tx1", Valid: true, Writes: []string{"ballot/" + election.LedgerKey(election.ObjBallot, "e1", ballots[0].PseudonymHex())}}},
		[]tx{{ID: "tx2", Valid: true, Writes: []string{"ballot/" + manifestKey + "=" + string(mb)}}},
		[]tx{{ID: "tx3", Valid: true, Writes: []string{write(ballots[1], "tx3"), write(ballots[2], "tx3")}}},
		[]tx{{ID: "res", Valid: true, Writes: []string{"ballot/" + resultKey + "=" + string(rb)}}},
	)
	l := &audit.Ledger{Manifest: mb, Ballots: source(listed), Result: rb, Order: func() (*audit.CommitOrder, error) {
		return audit.ReadCommitOrder(context.Background(), c, "ballot", "e1")
	}}
	rep := audit.Run(l, audit.Options{Workers: 1})
	var out bytes.Buffer
	rep.Write(&out)
	if rep.OK() {
		t.Fatalf("the audit passes a ledger whose ballot A was deleted behind a manifest rewrite:\n%s", out.String())
	}
	for _, want := range []string{
		"[COMMIT_ORDER] ballot " + ballots[0].PseudonymHex() + " (tx tx1): this ballot key is deleted before the result",
		"[COMMIT_ORDER] manifest (tx tx2): the manifest key is written again",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the report does not say %q:\n%s", want, out.String())
		}
	}
}
