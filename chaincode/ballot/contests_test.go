package ballot

import (
	"testing"

	"github.com/fabvote/fabvote/crypto/votecode"
	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/election/electiontest"
)

// northSels and southSels are valid selections of the two styles of
// electiontest's contest manifest.
var (
	northSels = []votecode.Selection{{Options: []int{2}}, {Options: []int{0, 3}}, {Options: []int{1}}}
	southSels = []votecode.Selection{{Options: []int{0}}, {Options: []int{0}}}
)

// TestCastContestBallots: ballots of both styles are stored, and every way
// a ballot's contests or selections break the rule is refused with its own
// code, leaving the ledger as it was. The result counts each contest over
// the ballots that answer it.
func TestCastContestBallots(t *testing.T) {
	m := fx.ContestManifest("contests")
	p, err := election.Prepare(m)
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, nil)
	e.open(m)
	north := fx.ContestBallot(m, fx.Voters[0], "north", northSels)
	south := fx.ContestBallot(m, fx.Voters[1], "south", southSels)
	for _, b := range []*election.Ballot{north, south} {
		if _, _, err := e.cast(b.Marshal(), during); err != nil {
			t.Fatal(err)
		}
	}
	v2 := fx.Voters[2]
	fresh := fx.ContestBallot(m, v2, "north", northSels)
	withContests := func(list ...byte) []byte {
		b := clone(fresh)
		b.Contests = list
		return resign(b, v2)
	}
	cheat := func(digits ...int64) []byte {
		b, err := electiontest.CheatLimit(p, v2, fresh.Token, northSels, "council", digits)
		if err != nil {
			t.Fatal(err)
		}
		return b.Marshal()
	}
	for _, tc := range []struct {
		name string
		arg  []byte
		code string
	}{
		{"a contest not in the style", withContests(0, 1, 2, 3), election.CodeNotInStyle},
		{"a contest twice", withContests(0, 1, 1), election.CodeContestRepeat},
		{"contests out of order", withContests(0, 2, 1), election.CodeContestOrder},
		{"a contest left out", withContests(0, 2), election.CodeContestMissing},
		{"three council members of at most two", cheat(1, 1, 1, 0, 0, 0), election.CodeLimit},
		{"blank with a council member", cheat(1, 0, 0, 0, 0, 1), election.CodeLimit},
		{"the ciphertexts of another ballot", func() []byte {
			b := clone(fresh)
			other := fx.ContestBallot(m, v2, "north", []votecode.Selection{{Options: []int{2}}, {}, {Options: []int{1}}})
			b.Ciphertext = other.Ciphertext
			return resign(b, v2)
		}(), election.CodeProof},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.rejectedUnchanged(during, tc.code, func(s *stub) error {
				_, err := e.c.CastBallot(txctx(s, outsider), tc.arg)
				return err
			})
		})
	}
	e.setClock(after)
	r := singleResult(t, m, []*election.Ballot{north, south})
	if got := r.Contests; got[0].Ballots != 2 || got[1].Ballots != 1 || got[2].Ballots != 2 || got[1].Counts[3] != 1 || got[1].Undervotes != 0 {
		t.Fatalf("contests %+v", got)
	}
	s := e.w.tx(after)
	if err := e.c.PublishResult(txctx(s, authority), resultJSON(t, r)); err != nil {
		t.Fatal(err)
	}
}
