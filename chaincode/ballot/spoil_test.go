package ballot

import (
	"crypto/rand"
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/fabvote/fabvote/crypto/votecode"
	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/election/electiontest"
)

// audited is a ballot of election e1 with its spoiled form: what a voter
// who audits the ballot publishes.
type audited struct {
	ballot  *election.Ballot
	spoiled *election.SpoiledBallot
}

// auditedBallot makes a ballot of voter for choice in m, and its spoiled
// form.
func auditedBallot(t *testing.T, m *election.Manifest, voter int, choice int) audited {
	t.Helper()
	p, err := election.Prepare(m)
	if err != nil {
		t.Fatal(err)
	}
	bp, err := p.PrecomputeBallot(rand.Reader, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, o, err := bp.Finish(fx.Voters[voter], fx.Token(m, fx.Voters[voter]), []votecode.Selection{{Options: []int{choice}}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := election.NewSpoiledBallot(b, o)
	if err != nil {
		t.Fatal(err)
	}
	return audited{ballot: b, spoiled: s}
}

// spoil submits a spoiled ballot's JSON at `at` and commits it on success.
func (e *env) spoil(js []byte, at time.Time) (*spoilReceipt, *stub, error) {
	s := e.w.tx(at)
	out, err := e.c.SpoilBallot(txctx(s, outsider), string(js))
	if err != nil {
		return nil, s, err
	}
	s.commit()
	var r spoilReceipt
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		e.t.Fatalf("answer %q: %v", out, err)
	}
	return &r, s, nil
}

func TestSpoilBallot(t *testing.T) {
	m, _ := e1(t)
	e := newEnv(t, nil)
	e.open(m)
	a := auditedBallot(t, m, 0, 2)
	js := a.spoiled.Marshal()
	r, s, err := e.spoil(js, during)
	if err != nil {
		t.Fatal(err)
	}
	tkey, _ := trackerKey(txctx(s, ""), "e1", a.ballot.TrackerHex())
	ckey := election.CiphertextKey("e1", a.ballot.Ciphertext)
	if r.ElectionID != "e1" || r.Tracker != a.ballot.TrackerHex() || r.TxID != s.txID {
		t.Fatalf("answer %+v", r)
	}
	// The spoil of a one-ciphertext ballot writes its tracker key, holding
	// the canonical JSON, and its ciphertext's claim; besides the manifest
	// (first call) it reads these two keys alone.
	if len(s.writes) != 2 || string(s.writes[tkey]) != string(js) || s.writes[ckey] == nil || !slices.Equal(withoutManifest(s, "e1"), []string{tkey, ckey}) {
		t.Fatalf("spoil: reads %q, writes %d", s.reads, len(s.writes))
	}
	if strings.Contains(r.TxID+string(s.writes[tkey]), a.ballot.PseudonymHex()) {
		t.Fatal("the spoiled ballot names the voter's pseudonym")
	}
	got, err := e.c.GetSpoiled(txctx(e.w.tx(during), outsider), "e1", a.ballot.TrackerHex())
	if err != nil || got != string(js) {
		t.Fatalf("GetSpoiled = %q, %v", got, err)
	}
}

// TestSpoilAndCastExclude: a whole ballot is cast or spoiled, never both,
// nor spoiled twice; each refusal leaves the ledger unchanged.
func TestSpoilAndCastExclude(t *testing.T) {
	m, _ := e1(t)
	e := newEnv(t, nil)
	e.open(m)
	spoiledFirst := auditedBallot(t, m, 0, 1)
	if _, _, err := e.spoil(spoiledFirst.spoiled.Marshal(), during); err != nil {
		t.Fatal(err)
	}
	castFirst := auditedBallot(t, m, 1, 3)
	if _, _, err := e.cast(castFirst.ballot.Marshal(), during); err != nil {
		t.Fatal(err)
	}
	other := auditedBallot(t, m, 2, 0)
	cases := []struct {
		name string
		f    func(s *stub) error
		code string
	}{
		{"a spoiled ballot cast", func(s *stub) error {
			_, err := e.c.CastBallot(txctx(s, outsider), spoiledFirst.ballot.Marshal())
			return err
		}, election.CodeSpoiled},
		{"a cast ballot spoiled", func(s *stub) error {
			_, err := e.c.SpoilBallot(txctx(s, outsider), string(castFirst.spoiled.Marshal()))
			return err
		}, election.CodeCastOpened},
		{"spoiled twice", func(s *stub) error {
			_, err := e.c.SpoilBallot(txctx(s, outsider), string(spoiledFirst.spoiled.Marshal()))
			return err
		}, election.CodeExists},
		{"an opening of another ballot", func(s *stub) error {
			bad := *other.spoiled
			bad.Opening = spoiledFirst.spoiled.Opening
			_, err := e.c.SpoilBallot(txctx(s, outsider), string(bad.Marshal()))
			return err
		}, election.CodeOpening},
		{"not JSON", func(s *stub) error {
			_, err := e.c.SpoilBallot(txctx(s, outsider), "{")
			return err
		}, election.CodeDecode},
		{"oversize", func(s *stub) error {
			_, err := e.c.SpoilBallot(txctx(s, outsider), strings.Repeat(" ", election.MaxSpoiledSize+1))
			return err
		}, election.CodeSize},
		{"no such election", func(s *stub) error {
			_, err := e.c.SpoilBallot(txctx(s, outsider), string(auditedBallot(t, fx.Manifest("e2"), 2, 0).spoiled.Marshal()))
			return err
		}, election.CodeNoElection},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { e.rejectedUnchanged(during, tc.code, tc.f) })
	}
}

func TestSpoilOutsideWindow(t *testing.T) {
	m, _ := e1(t)
	e := newEnv(t, nil)
	e.open(m)
	js := string(auditedBallot(t, m, 0, 1).spoiled.Marshal())
	for name, at := range map[string]time.Time{
		"before the window":   electiontest.Start.Add(-time.Second),
		"at the window's end": electiontest.End,
	} {
		t.Run(name, func(t *testing.T) {
			e.setClock(at)
			e.rejectedUnchanged(at, election.CodeWindow, func(s *stub) error {
				_, err := e.c.SpoilBallot(txctx(s, outsider), js)
				return err
			})
		})
	}
}

// TestTallyIgnoresSpoiled: with spoiled ballots on the ledger, the result
// over the cast ballots alone is the one PublishResult accepts, and the
// spoiled ballots' choices are not in it.
func TestTallyIgnoresSpoiled(t *testing.T) {
	m, _ := e1(t)
	e := newEnv(t, nil)
	e.open(m)
	var cast []*election.Ballot
	for v, choice := range []int{0, 0, 1} {
		a := auditedBallot(t, m, v, choice)
		if _, _, err := e.cast(a.ballot.Marshal(), during); err != nil {
			t.Fatal(err)
		}
		cast = append(cast, a.ballot)
	}
	for v := 3; v < 6; v++ {
		if _, _, err := e.spoil(auditedBallot(t, m, v, 3).spoiled.Marshal(), during); err != nil {
			t.Fatal(err)
		}
	}
	p, err := election.Prepare(m)
	if err != nil {
		t.Fatal(err)
	}
	_, count, err := ledgerProduct(txctx(e.w.tx(after), ""), p)
	if err != nil || count != 3 {
		t.Fatalf("the tally's product runs over %d ballots (%v), want the 3 cast", count, err)
	}
	r := singleResult(t, m, cast)
	if !equalCounts(r.Contests[0].Counts, []uint64{2, 1, 0, 0}) {
		t.Fatalf("counts %v: a spoiled choice (Dave) counted", r.Contests[0].Counts)
	}
	e.setClock(after)
	s := e.w.tx(after)
	if err := e.c.PublishResult(txctx(s, authority), resultJSON(t, r)); err != nil {
		t.Fatalf("the result over the cast ballots alone: %v", err)
	}
}

func TestListSpoiledPages(t *testing.T) {
	m, _ := e1(t)
	e := newEnv(t, nil)
	e.open(m)
	want := map[string]bool{}
	for v := 0; v < 5; v++ {
		a := auditedBallot(t, m, v, v%4)
		if v%2 == 1 { // cast ballots leave the tracker keys alone
			if _, _, err := e.cast(a.ballot.Marshal(), during); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if _, _, err := e.spoil(a.spoiled.Marshal(), during); err != nil {
			t.Fatal(err)
		}
		want[string(a.spoiled.Marshal())] = true
	}
	var got []string
	bookmark, pages := "", 0
	for {
		out, err := e.c.ListSpoiled(txctx(e.w.tx(during), outsider), "e1", 2, bookmark)
		if err != nil {
			t.Fatal(err)
		}
		var page struct {
			Spoiled  []json.RawMessage `json:"spoiled"`
			Bookmark string            `json:"bookmark"`
		}
		if err := json.Unmarshal([]byte(out), &page); err != nil {
			t.Fatal(err)
		}
		for _, s := range page.Spoiled {
			got = append(got, string(s))
		}
		pages++
		if bookmark = page.Bookmark; bookmark == "" {
			break
		}
	}
	sort.Strings(got)
	// Three spoiled ballots, two per page: a full page, then the last.
	if len(got) != len(want) || len(want) != 3 || pages != 2 {
		t.Fatalf("%d spoiled ballots in %d pages, want %d in 2", len(got), pages, len(want))
	}
	for _, s := range got {
		if !want[s] {
			t.Fatalf("listed %s, which was not spoiled", s)
		}
	}
}

func TestSpoiledQueriesReject(t *testing.T) {
	m, _ := e1(t)
	e := newEnv(t, nil)
	e.open(m)
	a := auditedBallot(t, m, 0, 0)
	if _, _, err := e.cast(a.ballot.Marshal(), during); err != nil {
		t.Fatal(err)
	}
	ctx := txctx(e.w.tx(during), outsider)
	tr := a.ballot.TrackerHex()
	for _, tc := range []struct {
		name, id, tracker, code string
	}{
		{"a cast ballot's tracker", "e1", tr, election.CodeNotFound},
		{"an unknown tracker", "e1", strings.Repeat("0", 64), election.CodeNotFound},
		{"uppercase tracker", "e1", strings.ToUpper(tr), election.CodeArgument},
		{"short tracker", "e1", tr[2:], election.CodeArgument},
		{"bad election id", "/e1", tr, election.CodeArgument},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.c.GetSpoiled(ctx, tc.id, tc.tracker)
			wantCode(t, err, tc.code)
		})
	}
	for _, tc := range []struct {
		name     string
		size     int32
		bookmark string
	}{
		{"page size 0", 0, ""},
		{"page size above the limit", MaxPageSize + 1, ""},
		{"a bookmark outside the election's trackers", 10, "\x00ballot\x00e1\x00"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.c.ListSpoiled(ctx, "e1", tc.size, tc.bookmark)
			wantCode(t, err, election.CodeArgument)
		})
	}
}
