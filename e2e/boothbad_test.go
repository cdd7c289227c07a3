//go:build e2e && browser

package e2e

import (
	"crypto/ecdsa"
	"crypto/rand"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/crypto/votecode"
	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/box"
	"github.com/fabvote/fabvote/internal/gateway"
	"github.com/fabvote/fabvote/internal/nettest"
)

// madeBallot is a ballot made here with the election package, as the
// booth makes it, with its opening and its voter's key.
type madeBallot struct {
	b       *election.Ballot
	opening *election.Opening
	key     *ecdsa.PrivateKey
	pub     []byte
}

// makeBallot makes the ballot of a fresh voter of roll id voterID for
// candidate choice.
func (r *boothRun) makeBallot(t *testing.T, voterID string, choice int) madeBallot {
	mb := madeBallot{}
	mb.key, mb.pub = nettest.VoterKey(t)
	bp, err := r.prep.PrecomputeBallot(rand.Reader, 0)
	if err != nil {
		t.Fatal(err)
	}
	mb.b, mb.opening, err = bp.Finish(mb.key, r.issueToken(t, r.m, voterID, mb.pub), []votecode.Selection{{Options: []int{choice}}})
	if err != nil {
		t.Fatal(err)
	}
	return mb
}

// issueToken is the token the authority issues, for election m, to the
// holder of pub of roll id voterID: what the registrar does.
func (r *boothRun) issueToken(t *testing.T, m *election.Manifest, voterID string, pub []byte) []byte {
	p, err := election.Prepare(m)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := election.Pseudonym(r.pseudKey, m.ElectionID, voterID)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := p.IssueToken(rand.Reader, r.eaKey, ps, 0, pub)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// spoiled is the ballot's spoiled ballot (§2 JSON).
func (mb madeBallot) spoiled(t *testing.T) *election.SpoiledBallot {
	s, err := election.NewSpoiledBallot(mb.b, mb.opening)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// ledgerState is what a refused request must leave as it was: the
// election's ballots and spoiled ballots.
type ledgerState struct{ ballots, spoiled int }

func (r *boothRun) state(t *testing.T) ledgerState {
	n, err := r.voter.CountBallots(r.c, r.m.ElectionID)
	if err != nil {
		t.Fatal(err)
	}
	st := ledgerState{ballots: n}
	for bookmark := ""; ; {
		raw, err := r.voter.Conn.Evaluate(r.c, "ListSpoiled", []byte(r.m.ElectionID), []byte("1000"), []byte(bookmark))
		if err != nil {
			t.Fatalf("ListSpoiled: %v", err)
		}
		var page struct {
			Spoiled  []json.RawMessage
			Bookmark string
		}
		if err := json.Unmarshal(raw, &page); err != nil {
			t.Fatal(err)
		}
		st.spoiled += len(page.Spoiled)
		if bookmark = page.Bookmark; bookmark == "" {
			return st
		}
	}
}

// absent asserts that the ledger has no spoiled ballot under tracker and
// no ballot of pseudonym (each unless "").
func (r *boothRun) absent(t *testing.T, tracker, pseudonym string) {
	t.Helper()
	if tracker != "" {
		_, err := r.voter.Conn.Evaluate(r.c, "GetSpoiled", []byte(r.m.ElectionID), []byte(tracker))
		if code := rejectCode(err); code != election.CodeNotFound {
			t.Errorf("GetSpoiled %s after the refusal: %v, want %s", tracker, err, election.CodeNotFound)
		}
	}
	if pseudonym != "" {
		_, err := r.voter.GetBallot(r.c, r.m.ElectionID, pseudonym)
		if code := rejectCode(err); code != election.CodeNotFound {
			t.Errorf("GetBallot %s after the refusal: %v, want %s", pseudonym, err, election.CodeNotFound)
		}
	}
}

func rejectCode(err error) string {
	var re *gateway.RejectError
	if errors.As(err, &re) {
		return re.Code
	}
	return ""
}

// badRequest is one bad request, ready to send, and the tracker and
// pseudonym it must leave absent from the ledger ("" for none).
type badRequest struct {
	tracker, pseudonym string
	send               func(t *testing.T) boxAnswer
}

// badInput sends the boxes one kind of bad input per subtest: each is
// refused with its status and code, and the ledger keeps its ballots and
// spoiled ballots. cast is a voter whose ballot the ledger holds.
func (r *boothRun) badInput(t *testing.T, cast *boothVoter) {
	cases := []struct {
		name    string
		status  int
		code    string
		prepare func(t *testing.T) badRequest
	}{
		{"opening that does not match its ciphertext", http.StatusUnprocessableEntity, election.CodeOpening, r.wrongOpening},
		{"spoiled ballot cast", http.StatusUnprocessableEntity, election.CodeSpoiled, r.spoiledCast},
		{"ballot replayed to another box", http.StatusUnprocessableEntity, election.CodeDuplicate, func(t *testing.T) badRequest {
			return badRequest{send: func(t *testing.T) boxAnswer { return r.box2.castBallot(t, cast.ballot) }}
		}},
		{"oversized request", http.StatusRequestEntityTooLarge, election.CodeSize, func(t *testing.T) badRequest {
			body := `{"ballot":"` + strings.Repeat("A", 2*election.MaxBallotSize) + `"}`
			return badRequest{send: func(t *testing.T) boxAnswer { return r.box.post(t, box.BallotsPath, []byte(body)) }}
		}},
		{"token of another election", http.StatusUnprocessableEntity, election.CodeToken, r.foreignToken},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := tc.prepare(t)
			before := r.state(t)
			if a := req.send(t); a.status != tc.status || a.Code != tc.code {
				t.Fatalf("the box answered %d %s (%s), want %d %s", a.status, a.Code, a.body, tc.status, tc.code)
			}
			if after := r.state(t); after != before {
				t.Errorf("the ledger went from %+v to %+v", before, after)
			}
			r.absent(t, req.tracker, req.pseudonym)
		})
	}
}

// wrongOpening is a spoiled ballot whose opening is another ballot's.
func (r *boothRun) wrongOpening(t *testing.T) badRequest {
	mb, other := r.makeBallot(t, "bad-opening", 1), r.makeBallot(t, "bad-opening-2", 1)
	s := mb.spoiled(t)
	s.Opening = other.opening
	return badRequest{tracker: s.TrackerHex(), send: func(t *testing.T) boxAnswer { return r.box.post(t, box.SpoiledPath, s.Marshal()) }}
}

// spoiledCast audits a ballot (its spoiled ballot is accepted, with its
// choice), then is the cast of that ballot.
func (r *boothRun) spoiledCast(t *testing.T) badRequest {
	mb := r.makeBallot(t, "bad-spoiled", 2)
	s := mb.spoiled(t)
	if a := r.box.post(t, box.SpoiledPath, s.Marshal()); a.status != http.StatusOK {
		t.Fatalf("auditing the ballot: %d %s", a.status, a.body)
	}
	if got := r.spoiledChoice(t, s.TrackerHex()); !slices.Equal(got, []int{2}) {
		t.Fatalf("the spoiled ballot reveals %v, want [2]", got)
	}
	return badRequest{pseudonym: mb.b.PseudonymHex(), send: func(t *testing.T) boxAnswer { return r.box.castBallot(t, mb.b.Marshal()) }}
}

// foreignToken is a ballot of the booth's election that carries a token
// the authority issued for another election.
func (r *boothRun) foreignToken(t *testing.T) badRequest {
	other := *r.m
	other.ElectionID = r.m.ElectionID + "-other"
	mb := r.makeBallot(t, "bad-token", 0)
	mb.b.Token = r.issueToken(t, &other, "bad-token", mb.pub)
	ballot := resign(t, mb.b, mb.key)
	return badRequest{tracker: mb.b.TrackerHex(), pseudonym: mb.b.PseudonymHex(), send: func(t *testing.T) boxAnswer { return r.box.castBallot(t, ballot) }}
}
