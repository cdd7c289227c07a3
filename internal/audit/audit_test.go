package audit

import (
	"bytes"
	"crypto/ecdsa"
	"strings"
	"sync"
	"testing"

	"github.com/fabvote/fabvote/crypto/paillier/threshold"
	"github.com/fabvote/fabvote/crypto/paillier/threshold/thresholdtest"
	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/election/electiontest"
)

// world is a synthetic ledger: a 2-of-3 threshold election with a few ballots.
type world struct {
	m       *election.Manifest
	p       *election.Prepared
	pp      *threshold.PublicParams
	shares  []*threshold.KeyShare
	voters  []*ecdsa.PrivateKey
	ballots []*election.Ballot
	choices []int
}

var (
	worldOnce sync.Once
	theWorld  *world
)

func getWorld(t *testing.T) *world {
	t.Helper()
	worldOnce.Do(func() {
		fx := electiontest.Load()
		m, pp, shares := fx.ThresholdManifest("audit-e1", 2, 3)
		p, err := election.Prepare(m)
		if err != nil {
			panic(err)
		}
		w := &world{m: m, p: p, pp: pp, shares: shares, choices: []int{0, 3, 3, 1, 2, 3}}
		for i, c := range w.choices {
			v := fx.Voters[i]
			w.voters = append(w.voters, v)
			w.ballots = append(w.ballots, fx.Ballot(m, v, c))
		}
		theWorld = w
	})
	return theWorld
}

func entry(b *election.Ballot) election.BallotEntry {
	return election.BallotEntry{Pseudonym: b.PseudonymHex(), TxID: "tx-" + b.PseudonymHex()[:8], Ballot: b.Marshal()}
}

func source(entries []election.BallotEntry) BallotSource {
	return func(fn func(election.BallotEntry) error) error {
		for _, e := range entries {
			if err := fn(e); err != nil {
				return err
			}
		}
		return nil
	}
}

// result builds a correct result over entries with trustees 1 and 3.
func (w *world) result(t *testing.T, entries []election.BallotEntry) []byte {
	t.Helper()
	tally, err := CheckBallots(w.p, source(entries), Options{Workers: 2, BatchSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	var parts []*threshold.PartialDecryption
	for _, i := range []int{0, 2} {
		pd, err := thresholdtest.PartialDecrypt(w.shares[i], w.pp, tally.Product)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, pd)
	}
	r, err := ResultFromPartials(w.p, tally, parts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func (w *world) entries() []election.BallotEntry {
	var es []election.BallotEntry
	for _, b := range w.ballots {
		es = append(es, entry(b))
	}
	return es
}

func manifestBytes(t *testing.T, m *election.Manifest) []byte {
	b, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestAuditPasses(t *testing.T) {
	w := getWorld(t)
	es := w.entries()
	rep := Run(&Ledger{Manifest: manifestBytes(t, w.m), Ballots: source(es), Result: w.result(t, es)}, Options{Workers: 2, BatchSize: 4})
	var out bytes.Buffer
	rep.Write(&out)
	if !rep.OK() {
		t.Fatalf("audit of an honest election failed:\n%s", out.String())
	}
	want := make([]uint64, len(w.m.Contests[0].Options))
	for _, c := range w.choices {
		want[c]++
	}
	for i := range want {
		if rep.Result.Contests[0].Counts[i] != want[i] {
			t.Fatalf("counts %v, want %v", rep.Result.Contests[0].Counts, want)
		}
	}
	if rep.Tally.Valid != len(w.ballots) || rep.Tally.Entries != len(w.ballots) {
		t.Fatalf("tally valid=%d entries=%d, want %d", rep.Tally.Valid, rep.Tally.Entries, len(w.ballots))
	}
	if !strings.Contains(out.String(), "RESULT: PASS") {
		t.Fatalf("report lacks PASS:\n%s", out.String())
	}
}

// mutate returns a copy of b changed by f and re-signed by voter (unless voter is nil).
func mutate(b *election.Ballot, voter *ecdsa.PrivateKey, f func(*election.Ballot)) *election.Ballot {
	c := *b
	c.VoterPub = append([]byte(nil), b.VoterPub...)
	c.Token = append([]byte(nil), b.Token...)
	c.Ciphertext = append([]byte(nil), b.Ciphertext...)
	c.Proof = append([]byte(nil), b.Proof...)
	c.Signature = append([]byte(nil), b.Signature...)
	f(&c)
	if voter != nil {
		if err := c.Sign(voter); err != nil {
			panic(err)
		}
	}
	return &c
}

func TestAuditBallotFailures(t *testing.T) {
	w := getWorld(t)
	fx := electiontest.Load()
	other := fx.Manifest("audit-other")
	good := w.entries()
	stranger := electiontest.NewVoter()

	cases := []struct {
		name string
		bad  func() election.BallotEntry
		kind string
		code string
	}{
		{"truncated ballot", func() election.BallotEntry {
			e := entry(w.ballots[0])
			e.Ballot = e.Ballot[:len(e.Ballot)-3]
			return e
		}, KindBallotDecode, election.CodeDecode},
		{"stored under another key", func() election.BallotEntry {
			e := entry(w.ballots[0])
			e.Pseudonym = w.ballots[1].PseudonymHex()
			return e
		}, KindBallotKey, ""},
		{"token from another election", func() election.BallotEntry {
			return entry(mutate(w.ballots[0], w.voters[0], func(b *election.Ballot) { b.Token = fx.Token(other, w.voters[0]) }))
		}, KindBallotInvalid, election.CodeToken},
		{"token for another key", func() election.BallotEntry {
			return entry(mutate(w.ballots[0], stranger, func(b *election.Ballot) {
				b.VoterPub, _ = stranger.PublicKey.Bytes()
			}))
		}, KindBallotInvalid, election.CodeToken},
		{"bad signature", func() election.BallotEntry {
			return entry(mutate(w.ballots[0], w.voters[1], func(*election.Ballot) {}))
		}, KindBallotInvalid, election.CodeSignature},
		{"mauled proof", func() election.BallotEntry {
			return entry(mutate(w.ballots[0], w.voters[0], func(b *election.Ballot) { b.Proof[len(b.Proof)/2] ^= 1 }))
		}, KindBallotInvalid, election.CodeProof},
		{"ciphertext swapped (proof no longer matches)", func() election.BallotEntry {
			return entry(mutate(w.ballots[0], w.voters[0], func(b *election.Ballot) { b.Ciphertext = w.ballots[1].Ciphertext }))
		}, KindBallotInvalid, election.CodeProof},
		{"ballot of another election", func() election.BallotEntry {
			return entry(mutate(w.ballots[0], w.voters[0], func(b *election.Ballot) { b.ElectionID = "audit-other" }))
		}, KindBallotInvalid, election.CodeNoElection},
		{"duplicate voter key", func() election.BallotEntry { return entry(w.ballots[2]) }, KindDuplicate, election.CodeDuplicate},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			es := append(append([]election.BallotEntry(nil), good...), tc.bad())
			// The published result is the honest one over the good ballots.
			rep := Run(&Ledger{Manifest: manifestBytes(t, w.m), Ballots: source(es), Result: w.result(t, good)}, Options{Workers: 2, BatchSize: 3})
			if rep.OK() {
				t.Fatal("audit passed with a bad ballot on the ledger")
			}
			found := false
			for _, f := range rep.Failures {
				if f.Kind == tc.kind && f.Code == tc.code {
					found = true
				} else {
					t.Errorf("unexpected extra failure: %s", f)
				}
			}
			if !found {
				t.Fatalf("no %s/%s failure in %v", tc.kind, tc.code, rep.Failures)
			}
			if rep.Tally.Valid != len(good) {
				t.Fatalf("valid = %d, want %d (the bad ballot must not count)", rep.Tally.Valid, len(good))
			}
			var out bytes.Buffer
			rep.Write(&out)
			if !strings.Contains(out.String(), "RESULT: FAIL") || !strings.Contains(out.String(), tc.kind) {
				t.Fatalf("report does not name the failure:\n%s", out.String())
			}
		})
	}
}

func TestAuditResultFailures(t *testing.T) {
	w := getWorld(t)
	es := w.entries()
	honest := w.result(t, es)
	fewer := w.result(t, es[:len(es)-1])
	parsed := func() *election.Result {
		r, err := election.ParseResult(honest)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	enc := func(r *election.Result) []byte {
		b, err := r.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	cases := []struct {
		name   string
		result []byte
		kinds  []string
	}{
		{"no result", nil, []string{KindResultMissing}},
		{"garbage result", []byte("{"), []string{KindResultDecode}},
		{"result over fewer ballots", fewer, []string{KindResultCount, KindResultProduct}},
		{"counts moved between candidates", enc(func() *election.Result {
			r := parsed()
			r.Contests[0].Counts[0]++
			r.Contests[0].Counts[3]--
			return r
		}()), []string{KindResult}},
		{"ballot count inflated", enc(func() *election.Result { r := parsed(); r.BallotCount++; r.Contests[0].Counts[1]++; return r }()), []string{KindResultCount, KindResult}},
		{"partial from one trustee only", enc(func() *election.Result { r := parsed(); r.Partials = r.Partials[:1]; return r }()), []string{KindResult}},
		{"mauled partial", enc(func() *election.Result {
			r := parsed()
			r.Partials[1][len(r.Partials[1])-1] ^= 1
			return r
		}()), []string{KindResult}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rep := Run(&Ledger{Manifest: manifestBytes(t, w.m), Ballots: source(es), Result: tc.result}, Options{Workers: 2})
			got := map[string]bool{}
			for _, f := range rep.Failures {
				got[f.Kind] = true
			}
			for _, k := range tc.kinds {
				if !got[k] {
					t.Errorf("missing failure %s; got %v", k, rep.Failures)
				}
			}
			if len(got) != len(tc.kinds) {
				t.Errorf("failures %v, want exactly kinds %v", rep.Failures, tc.kinds)
			}
		})
	}
}

func TestAuditManifestAndSourceFailures(t *testing.T) {
	w := getWorld(t)
	rep := Run(&Ledger{Manifest: []byte("not a manifest"), Ballots: source(nil)}, Options{})
	if rep.OK() || rep.Failures[0].Kind != KindManifest {
		t.Fatalf("garbage manifest: %v", rep.Failures)
	}
	broken := func(fn func(election.BallotEntry) error) error {
		fn(entry(w.ballots[0]))
		return errString("peer went away")
	}
	rep = Run(&Ledger{Manifest: manifestBytes(t, w.m), Ballots: broken}, Options{})
	if rep.OK() || rep.Failures[len(rep.Failures)-1].Kind != KindSource || !strings.Contains(rep.Failures[len(rep.Failures)-1].Err, "peer went away") {
		t.Fatalf("source error not reported: %v", rep.Failures)
	}
}

type errString string

func (e errString) Error() string { return string(e) }

func TestSingleKeyResult(t *testing.T) {
	fx := electiontest.Load()
	m := fx.Manifest("audit-single")
	p, err := election.Prepare(m)
	if err != nil {
		t.Fatal(err)
	}
	var es []election.BallotEntry
	for i, c := range []int{1, 1, 2} {
		es = append(es, entry(fx.Ballot(m, fx.Voters[i], c)))
	}
	tally, err := CheckBallots(p, source(es), Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := ResultFromKey(p, tally, fx.Paillier)
	if err != nil {
		t.Fatal(err)
	}
	if r.Contests[0].Counts[1] != 2 || r.Contests[0].Counts[2] != 1 || r.BallotCount != 3 {
		t.Fatalf("counts %v, ballotCount %d", r.Contests[0].Counts, r.BallotCount)
	}
	rb, _ := r.Marshal()
	rep := Run(&Ledger{Manifest: manifestBytes(t, m), Ballots: source(es), Result: rb}, Options{})
	if !rep.OK() {
		t.Fatalf("single-key audit failed: %v", rep.Failures)
	}
	if _, err := ResultFromPartials(p, tally, nil); err == nil {
		t.Fatal("ResultFromPartials accepted a single-key election")
	}
}
