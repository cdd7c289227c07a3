package ballotcheck

import (
	"crypto/ecdsa"
	"testing"

	"github.com/fabvote/fabvote/crypto/votecode"
	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/election/electiontest"
)

// TestContestBallotsInABlock: in a block of an election of three contests
// and two styles, the plugin passes the valid ballots of both styles and
// refuses each broken one with its own code, whatever its neighbours.
func TestContestBallotsInABlock(t *testing.T) {
	fx := electiontest.Load()
	const id = "plugin-contests"
	m := fx.ContestManifest(id)
	raw, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	p, err := election.Prepare(m)
	if err != nil {
		t.Fatal(err)
	}
	cache := ManifestCache(func(key string) ([]byte, error) {
		if key == election.LedgerKey(election.ObjManifest, id) {
			return raw, nil
		}
		return nil, nil
	})
	north := []votecode.Selection{{Options: []int{0}}, {Blank: true}, {Options: []int{1}}}
	south := []votecode.Selection{{Options: []int{3}}, {Options: []int{0}}}
	var vs []*ecdsa.PrivateKey
	for i := 0; i < 8; i++ {
		vs = append(vs, electiontest.NewVoter())
	}
	edited := func(v *ecdsa.PrivateKey, list ...byte) *election.Ballot {
		b := fx.ContestBallot(m, v, "north", north)
		b.Contests = list
		if err := b.Sign(v); err != nil {
			t.Fatal(err)
		}
		return b
	}
	cheat := func(v *ecdsa.PrivateKey, digits ...int64) *election.Ballot {
		tok := fx.TokenStyle(m, electiontest.VoterID(v), "north", v)
		b, err := electiontest.CheatLimit(p, v, tok, north, "council", digits)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	block := []struct {
		b    *election.Ballot
		code string
	}{
		{fx.ContestBallot(m, vs[0], "north", north), ""},
		{edited(vs[1], 0, 1, 2, 2), election.CodeContestRepeat},
		{fx.ContestBallot(m, vs[2], "south", south), ""},
		{edited(vs[3], 2, 1, 0), election.CodeContestOrder},
		{cheat(vs[4], 1, 1, 1, 0, 0, 0), election.CodeLimit},
		{edited(vs[5], 0), election.CodeContestMissing},
		{edited(vs[6], 0, 1, 2, 9), election.CodeNotInStyle},
		{cheat(vs[7], 0, 0, 0, 0, 1, 1), election.CodeLimit},
	}
	txs := make([]*Tx, len(block))
	for i, tc := range block {
		txs[i] = castTx(tc.b, i)
	}
	for i, err := range CheckBlock(nil, cache, txs) {
		if Code(err) != block[i].code {
			t.Errorf("tx %d: %v, want code %q", i, err, block[i].code)
		}
	}
}
