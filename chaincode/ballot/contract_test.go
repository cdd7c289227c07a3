package ballot

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"maps"
	"math/big"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fabvote/fabvote/crypto/paillier/threshold/thresholdtest"
	"github.com/fabvote/fabvote/crypto/zkp"
	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/election/electiontest"
)

const (
	authority = "AuthorityMSP"
	trustee   = "TrusteeMSP"
	outsider  = "PartyMSP"
)

var (
	fx     = electiontest.Load()
	during = electiontest.Start.Add(time.Hour)                                             // inside the voting window
	after  = electiontest.End.Add(electiontest.ClockSkewSeconds*time.Second + time.Minute) // a result is accepted from here on
)

// env is a contract on a fake ledger whose peer clock is set by clock.
type env struct {
	t     *testing.T
	w     *world
	c     *Contract
	clock time.Time
	mu    sync.Mutex
}

func newEnv(t *testing.T, v election.ProofVerifier) *env {
	e := &env{t: t, w: newWorld(), clock: during}
	e.c = New(Config{Verifier: v, MaxClockSkew: DefaultMaxClockSkew, Now: e.now})
	return e
}

func (e *env) now() time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.clock
}

func (e *env) setClock(t time.Time) {
	e.mu.Lock()
	e.clock = t
	e.mu.Unlock()
}

// open writes m through OpenElection as the authority and commits it.
func (e *env) open(m *election.Manifest) {
	e.t.Helper()
	enc, err := m.Marshal()
	if err != nil {
		e.t.Fatal(err)
	}
	s := e.w.tx(e.now())
	if err := e.c.OpenElection(txctx(s, m.AuthorityMSP), string(enc)); err != nil {
		e.t.Fatalf("OpenElection: %v", err)
	}
	s.commit()
}

// cast submits a ballot at tx time `at` and commits it on success.
func (e *env) cast(arg []byte, at time.Time) (*election.Receipt, *stub, error) {
	s := e.w.tx(at)
	out, err := e.c.CastBallot(txctx(s, outsider), arg)
	if err != nil {
		return nil, s, err
	}
	s.commit()
	var r election.Receipt
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		e.t.Fatalf("receipt %q: %v", out, err)
	}
	return &r, s, nil
}

func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	if err == nil {
		t.Fatalf("accepted, want %s", code)
	}
	if got := election.CodeOf(err); got != code {
		t.Fatalf("code %q (%v), want %s", got, err, code)
	}
	if !strings.HasPrefix(err.Error(), "fabvote "+code+": ") {
		t.Fatalf("message %q does not start with the code", err)
	}
}

// Ballots made once per test binary (each costs an encryption and a proof).
var (
	ballotsOnce sync.Once
	mE1         *election.Manifest
	ballotsE1   []*election.Ballot // voter i votes i % 4
)

func e1(t testing.TB) (*election.Manifest, []*election.Ballot) {
	ballotsOnce.Do(func() {
		mE1 = fx.Manifest("e1")
		for i := range fx.Voters {
			ballotsE1 = append(ballotsE1, fx.Ballot(mE1, fx.Voters[i], i%4))
		}
	})
	return mE1, ballotsE1
}

func clone(b *election.Ballot) *election.Ballot {
	c, err := election.ParseBallot(b.Marshal())
	if err != nil {
		panic(err)
	}
	return c
}

func resign(b *election.Ballot, k *ecdsa.PrivateKey) []byte {
	if err := b.Sign(k); err != nil {
		panic(err)
	}
	return b.Marshal()
}

func TestOpenElection(t *testing.T) {
	m := fx.Manifest("open-1")
	good, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	invalid := bytes.Replace(good, []byte(`"challengeBits":128`), []byte(`"challengeBits":8`), 1)
	other := fx.Manifest("open-1")
	other.Title = "A different manifest for the same id"
	otherEnc, _ := other.Marshal()

	e := newEnv(t, nil)
	s := e.w.tx(during)
	if err := e.c.OpenElection(txctx(s, authority), string(good)); err != nil {
		t.Fatal(err)
	}
	if len(s.writes) != 1 || len(s.events) != 1 {
		t.Fatalf("%d writes, %d events; want 1, 1", len(s.writes), len(s.events))
	}
	s.commit()
	got, err := e.c.GetManifest(txctx(e.w.tx(during), outsider), "open-1")
	if err != nil || got != string(good) {
		t.Fatalf("GetManifest = %q, %v", got, err)
	}

	cases := []struct {
		name     string
		msp      string
		manifest string
		code     string
	}{
		{"second open, same manifest", authority, string(good), election.CodeExists},
		{"second open, other manifest", authority, string(otherEnc), election.CodeExists},
		{"party identity", outsider, string(good), election.CodeAccess},
		{"trustee identity", trustee, string(good), election.CodeAccess},
		{"no identity", "", string(good), election.CodeAccess},
		{"malformed", authority, "{not json", election.CodeDecode},
		{"non-canonical", authority, string(good) + " ", election.CodeDecode},
		{"invalid field", authority, string(invalid), election.CodeManifest},
		{"oversize", authority, strings.Repeat(" ", election.MaxManifestSize+1), election.CodeSize},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := e.w.snapshot()
			s := e.w.tx(during)
			wantCode(t, e.c.OpenElection(txctx(s, tc.msp), tc.manifest), tc.code)
			if len(s.writes) != 0 || !maps.EqualFunc(before, e.w.snapshot(), bytes.Equal) {
				t.Fatal("a rejected OpenElection wrote state")
			}
		})
	}

	t.Run("authority allow-list", func(t *testing.T) {
		e := newEnv(t, nil)
		e.c.e.cfg.AuthorityMSPs = []string{"ElectionCommissionMSP"}
		s := e.w.tx(during)
		wantCode(t, e.c.OpenElection(txctx(s, authority), string(good)), election.CodeAccess)
		if len(s.writes) != 0 {
			t.Fatal("wrote state")
		}
	})
}

// TestOpenElectionKeyOrigin: a distributed key opens when its ceremony
// verifies; one whose ceremony is well formed but does not verify is
// refused with MANIFEST and the ledger is unchanged.
func TestOpenElectionKeyOrigin(t *testing.T) {
	good, _, _ := fx.DistributedManifest("dist-1")
	bad, _, _ := fx.DistributedManifest("dist-2")
	bad.KeyCeremony.ModulusProof[len(bad.KeyCeremony.ModulusProof)-1] ^= 1
	for _, tc := range []struct {
		m    *election.Manifest
		code string
	}{{good, ""}, {bad, election.CodeManifest}} {
		t.Run(tc.m.ElectionID, func(t *testing.T) {
			enc, err := tc.m.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			e := newEnv(t, nil)
			s := e.w.tx(during)
			err = e.c.OpenElection(txctx(s, authority), string(enc))
			if tc.code == "" {
				if err != nil || len(s.writes) != 1 {
					t.Fatalf("OpenElection: %v, %d writes; want nil, 1", err, len(s.writes))
				}
				return
			}
			wantCode(t, err, tc.code)
			if !strings.Contains(err.Error(), "keyCeremony") || len(s.writes) != 0 || len(s.events) != 0 {
				t.Fatalf("error %q, %d writes, %d events: want keyCeremony named and nothing written", err, len(s.writes), len(s.events))
			}
		})
	}
}

func TestCastBallot(t *testing.T) {
	m, ballots := e1(t)
	e := newEnv(t, nil)
	e.open(m)

	// First cast: the manifest is loaded (one extra read, once per process).
	r, s, err := e.cast(ballots[0].Marshal(), during)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.reads) != 3 || len(s.writes) != 2 {
		t.Fatalf("first cast: %d reads, %d writes; want 3, 2", len(s.reads), len(s.writes))
	}
	// Later casts of e1's one-ciphertext ballots: exactly two keys read and
	// written, the ballot key and the ciphertext's claim key, which holds
	// the cast's claim.
	for i, b := range ballots[1:3] {
		r2, s, err := e.cast(b.Marshal(), during)
		if err != nil {
			t.Fatalf("ballot %d: %v", i+1, err)
		}
		bkey, _ := ballotKey(txctx(s, ""), "e1", b.PseudonymHex())
		ckey := election.CiphertextKey("e1", b.Ciphertext)
		if !slices.Equal(s.reads, []string{bkey, ckey}) || len(s.writes) != 2 || s.writes[bkey] == nil || s.ranges != 0 {
			t.Fatalf("cast: reads %q, %d writes, %d range queries; want the ballot and claim keys read and written", s.reads, len(s.writes), s.ranges)
		}
		if claim, err := election.ParseCiphertextClaim(s.writes[ckey]); err != nil || claim.Kind != election.ClaimCast || claim.HolderHex() != b.PseudonymHex() {
			t.Fatalf("ciphertext claim %q: %v", s.writes[ckey], err)
		}
		if len(s.events) != 0 {
			t.Fatal("a cast emitted an event")
		}
		if r2.Pseudonym != b.PseudonymHex() {
			t.Fatal("receipt names another voter")
		}
	}
	// The receipt matches what GetBallot answers from the ledger.
	h := election.BallotHash(ballots[0].Marshal())
	if r.ElectionID != "e1" || r.BallotHash != hex.EncodeToString(h[:]) || r.TxID != s.txID {
		t.Fatalf("receipt %+v", r)
	}
	got, err := e.c.GetBallot(txctx(e.w.tx(during), outsider), "e1", r.Pseudonym)
	if err != nil {
		t.Fatal(err)
	}
	var r3 election.Receipt
	if err := json.Unmarshal([]byte(got), &r3); err != nil || r3 != *r {
		t.Fatalf("GetBallot = %+v (%v), cast receipt %+v", r3, err, *r)
	}
	// The stored value is the record of exactly the submitted bytes.
	key, _ := ballotKey(txctx(s, ""), "e1", r.Pseudonym)
	rec, err := election.ParseRecord(e.w.get(key))
	if err != nil || !bytes.Equal(rec.Ballot, ballots[0].Marshal()) || rec.TxID != r.TxID {
		t.Fatalf("stored record wrong: %v", err)
	}
	// Base64 argument (text-only clients) is accepted and stored as binary.
	r4, _, err := e.cast([]byte(base64.StdEncoding.EncodeToString(ballots[3].Marshal())), during)
	if err != nil {
		t.Fatal(err)
	}
	key4, _ := ballotKey(txctx(s, ""), "e1", r4.Pseudonym)
	if rec, _ := election.ParseRecord(e.w.get(key4)); rec == nil || !bytes.Equal(rec.Ballot, ballots[3].Marshal()) {
		t.Fatal("base64 ballot not stored in binary form")
	}
	if st := e.c.e.stats(); st.Accepted != 4 || st.ProofsChecked != 4 || st.CachedManifests != 1 {
		t.Fatalf("stats %+v", st)
	}
}

func TestCastBallotRejects(t *testing.T) {
	m, ballots := e1(t)
	e := newEnv(t, nil)
	e.open(m)
	if _, _, err := e.cast(ballots[0].Marshal(), during); err != nil {
		t.Fatal(err)
	}
	p, err := election.Prepare(m)
	if err != nil {
		t.Fatal(err)
	}
	v1 := fx.Voters[1]
	pub1, _ := v1.PublicKey.Bytes()
	tokOther := fx.Token(fx.Manifest("e2"), v1)
	good := ballots[1].Marshal()
	// Same id, same keys, another title: a different manifest, whose
	// digest the token and the proof bind.
	twin := fx.Manifest(m.ElectionID)
	twin.Title = "another manifest with the same id and keys"
	twinBallot := fx.Ballot(twin, v1, 0)

	cases := []struct {
		name string
		arg  []byte
		at   time.Time
		code string
	}{
		{"oversize", make([]byte, maxBallotArg+1), during, election.CodeSize},
		{"oversize after base64 decoding", []byte(base64.StdEncoding.EncodeToString(make([]byte, election.MaxBallotSize+1))), during, election.CodeSize},
		{"empty", nil, during, election.CodeDecode},
		{"not base64", []byte("hello, world"), during, election.CodeDecode},
		{"truncated", good[:len(good)-10], during, election.CodeDecode},
		{"trailing byte", append(append([]byte(nil), good...), 0), during, election.CodeDecode},
		{"no such election", fx.Ballot(fx.Manifest("e2"), v1, 0).Marshal(), during, election.CodeNoElection},
		{"before the window", good, electiontest.Start.Add(-time.Second), election.CodeWindow},
		{"at the window's end", good, electiontest.End, election.CodeWindow},
		{"timestamp 6 min ahead of the peer", good, during.Add(6 * time.Minute), election.CodeClock},
		{"timestamp 6 min behind the peer", good, during.Add(-6 * time.Minute), election.CodeClock},
		{"ciphertext out of range", func() []byte {
			b := clone(ballots[1])
			b.Ciphertext = p.PublicKey.N.FillBytes(make([]byte, len(b.Ciphertext)))
			return resign(b, v1)
		}(), during, election.CodeCiphertext},
		{"token for another election", func() []byte {
			b := clone(ballots[1])
			b.Token = tokOther
			return resign(b, v1)
		}(), during, election.CodeToken},
		{"token for another key", func() []byte {
			b := clone(ballots[1])
			b.Token = ballots[2].Token
			return resign(b, v1)
		}(), during, election.CodeToken},
		{"made under another manifest with the same id and keys", twinBallot.Marshal(), during, election.CodeToken},
		{"proof made under another manifest with the same id and keys", func() []byte {
			b := clone(twinBallot) // this manifest's token, the twin's ciphertext and proof
			b.Token = ballots[1].Token
			return resign(b, v1)
		}(), during, election.CodeProof},
		{"bad signature", func() []byte {
			b := clone(ballots[1])
			b.Signature = ballots[2].Signature
			return b.Marshal()
		}(), during, election.CodeSignature},
		{"writing another voter's key (their key and token, signed by me)", func() []byte {
			b := clone(ballots[1])
			b.VoterPub = clone(ballots[2]).VoterPub
			b.Token = ballots[2].Token
			return resign(b, v1)
		}(), during, election.CodeSignature},
		{"double vote (same ballot)", ballots[0].Marshal(), during, election.CodeDuplicate},
		{"double vote (new ballot, same key)", fx.Ballot(m, fx.Voters[0], 3).Marshal(), during, election.CodeDuplicate},
		{"ballot copied from another voter", func() []byte {
			b := clone(ballots[2]) // voter 2's ciphertext and proof under voter 1's key
			b.VoterPub = pub1
			b.Token = ballots[1].Token
			return resign(b, v1)
		}(), during, election.CodeProof},
		{"mauled proof", func() []byte {
			b := clone(ballots[1])
			b.Proof[10] ^= 0x40
			return resign(b, v1)
		}(), during, election.CodeProof},
		{"proof from another ballot", func() []byte {
			b := clone(ballots[1])
			b.Proof = ballots[2].Proof
			return resign(b, v1)
		}(), during, election.CodeProof},
		{"vote for two (c·Enc(M))", func() []byte {
			b := clone(ballots[1])
			c, _ := p.PublicKey.DecodeCiphertext(b.Ciphertext)
			mm := new(big.Int).Lsh(big.NewInt(1), p.Layout.Bits)
			c2, _, _ := p.PublicKey.Encrypt(rand.Reader, mm)
			b.Ciphertext = p.PublicKey.EncodeCiphertext(p.PublicKey.Add(c, c2))
			return resign(b, v1)
		}(), during, election.CodeProof},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// The peer's clock agrees with the transaction, except in the skew cases.
			e.setClock(tc.at)
			if tc.code == election.CodeClock {
				e.setClock(during)
			}
			before := e.w.snapshot()
			proofsBefore := e.c.e.proofsChecked.Load()
			_, s, err := e.cast(tc.arg, tc.at)
			wantCode(t, err, tc.code)
			if len(s.writes) != 0 || !maps.EqualFunc(before, e.w.snapshot(), bytes.Equal) {
				t.Fatal("a rejected cast wrote state")
			}
			// Only the last check (the proof) may spend a proof verification.
			if spent := e.c.e.proofsChecked.Load() - proofsBefore; tc.code != election.CodeProof && spent != 0 {
				t.Fatalf("a %s rejection ran %d proof checks", tc.code, spent)
			}
		})
	}
	if st := e.c.e.stats(); st.Rejected[election.CodeDuplicate] != 2 || st.Accepted != 1 {
		t.Fatalf("stats %+v", st)
	}
}

func TestQueriesReject(t *testing.T) {
	m, _ := e1(t)
	e := newEnv(t, nil)
	e.open(m)
	ctx := txctx(e.w.tx(during), outsider)
	cases := []struct {
		name string
		call func() error
		code string
	}{
		{"GetBallot absent", func() error { _, err := e.c.GetBallot(ctx, "e1", strings.Repeat("ab", 32)); return err }, election.CodeNotFound},
		{"GetBallot upper-case hash", func() error { _, err := e.c.GetBallot(ctx, "e1", strings.Repeat("AB", 32)); return err }, election.CodeArgument},
		{"GetBallot short hash", func() error { _, err := e.c.GetBallot(ctx, "e1", "abcd"); return err }, election.CodeArgument},
		{"GetBallot bad election id", func() error { _, err := e.c.GetBallot(ctx, "e\x001", strings.Repeat("ab", 32)); return err }, election.CodeArgument},
		{"ListBallots page 0", func() error { _, err := e.c.ListBallots(ctx, "e1", 0, ""); return err }, election.CodeArgument},
		{"ListBallots page 1001", func() error { _, err := e.c.ListBallots(ctx, "e1", 1001, ""); return err }, election.CodeArgument},
		{"ListBallots bad id", func() error { _, err := e.c.ListBallots(ctx, "", 10, ""); return err }, election.CodeArgument},
		{"ListBallots bookmark of another election", func() error {
			bm, _ := ballotKey(ctx, "e0", strings.Repeat("ab", 32))
			_, err := e.c.ListBallots(ctx, "e1", 10, bm)
			return err
		}, election.CodeArgument},
		{"ListBallots bookmark outside ballots", func() error { _, err := e.c.ListBallots(ctx, "e1", 10, "\x00manifest\x00e1\x00"); return err }, election.CodeArgument},
		{"GetManifest absent", func() error { _, err := e.c.GetManifest(ctx, "nope"); return err }, election.CodeNoElection},
		{"GetResult absent", func() error { _, err := e.c.GetResult(ctx, "e1"); return err }, election.CodeNotFound},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { wantCode(t, tc.call(), tc.code) })
	}
}

func TestListBallotsPages(t *testing.T) {
	m, ballots := e1(t)
	e := newEnv(t, nil)
	e.open(m)
	want := map[string][]byte{}
	for _, b := range ballots[:5] {
		if _, _, err := e.cast(b.Marshal(), during); err != nil {
			t.Fatal(err)
		}
		want[b.PseudonymHex()] = b.Marshal()
	}
	// Another election's ballots must not show up.
	m2 := fx.Manifest("e10")
	e.open(m2)
	if _, _, err := e.cast(fx.Ballot(m2, fx.Voters[0], 0).Marshal(), during); err != nil {
		t.Fatal(err)
	}
	got := map[string][]byte{}
	bookmark, pages := "", 0
	for {
		out, err := e.c.ListBallots(txctx(e.w.tx(during), outsider), "e1", 2, bookmark)
		if err != nil {
			t.Fatal(err)
		}
		var page election.BallotPage
		if err := json.Unmarshal([]byte(out), &page); err != nil {
			t.Fatal(err)
		}
		pages++
		for _, b := range page.Ballots {
			if _, dup := got[b.Pseudonym]; dup {
				t.Fatalf("ballot %s on two pages", b.Pseudonym)
			}
			got[b.Pseudonym] = b.Ballot
			if b.TxID == "" {
				t.Fatal("entry without tx id")
			}
		}
		if page.Bookmark == "" {
			break
		}
		bookmark = page.Bookmark
		if pages > 10 {
			t.Fatal("pagination does not end")
		}
	}
	if pages != 3 || !maps.EqualFunc(got, want, bytes.Equal) {
		t.Fatalf("%d pages, %d ballots; want 3 pages with the 5 ballots", pages, len(got))
	}
}

// singleResult builds the correct single-key result for ballots.
func singleResult(t *testing.T, m *election.Manifest, ballots []*election.Ballot) *election.Result {
	p, err := election.Prepare(m)
	if err != nil {
		t.Fatal(err)
	}
	var cs [][]*big.Int
	for _, b := range ballots {
		c, err := p.CheckShape(b)
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, c)
	}
	prod := p.ProductOf(cs)
	tally, nonce, err := zkp.ProveDecryption(fx.Paillier, prod.Packed())
	if err != nil {
		t.Fatal(err)
	}
	contests, err := p.NewContestResults(tally, prod.Ballots())
	if err != nil { // a tally past its digits (an overflow test): counts of nothing
		contests = []election.ContestResult{{ID: m.Contests[0].ID, Ballots: uint64(len(ballots)), Counts: make([]uint64, len(m.Contests[0].Options))}}
	}
	return &election.Result{
		Version: election.ResultVersion, ElectionID: m.ElectionID, BallotCount: uint64(len(ballots)),
		Product: p.PublicKey.EncodeCiphertext(prod.Packed()), Tally: tally.Bytes(), Contests: contests,
		DecryptionNonce: nonce.Bytes(),
	}
}

func resultJSON(t *testing.T, r *election.Result) string {
	b, err := r.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestPublishResult(t *testing.T) {
	m, ballots := e1(t)
	e := newEnv(t, nil)
	e.open(m)
	cast := ballots[:4]
	for _, b := range cast {
		if _, _, err := e.cast(b.Marshal(), during); err != nil {
			t.Fatal(err)
		}
	}
	good := singleResult(t, m, cast)
	if !equalCounts(good.Contests[0].Counts, []uint64{1, 1, 1, 1}) {
		t.Fatalf("counts %v", good.Contests[0].Counts)
	}
	mod := func(f func(r *election.Result)) string {
		r := singleResult(t, m, cast)
		f(r)
		return resultJSON(t, r)
	}
	e.setClock(after)
	cases := []struct {
		name   string
		msp    string
		at     time.Time
		result string
		code   string
	}{
		{"before the window ends", authority, electiontest.End.Add(-time.Second), resultJSON(t, good), election.CodeWindow},
		{"party identity", outsider, after, resultJSON(t, good), election.CodeAccess},
		{"no identity", "", after, resultJSON(t, good), election.CodeAccess},
		{"timestamp far from the peer clock", authority, after.Add(time.Hour), resultJSON(t, good), election.CodeClock},
		{"product of a subset of the ballots", authority, after, resultJSON(t, singleResult(t, m, cast[:3])), election.CodeResult},
		{"ballot count off", authority, after, mod(func(r *election.Result) { r.BallotCount = 5; r.Contests[0].Ballots++; r.Contests[0].Counts[0]++ }), election.CodeResult},
		{"counts swapped", authority, after, mod(func(r *election.Result) { r.Contests[0].Counts = []uint64{2, 0, 1, 1} }), election.CodeResult},
		{"bad decryption nonce", authority, after, mod(func(r *election.Result) { r.DecryptionNonce = []byte{7} }), election.CodeResult},
		{"unknown election", authority, after, mod(func(r *election.Result) { r.ElectionID = "nope" }), election.CodeNoElection},
		{"malformed", authority, after, "{", election.CodeDecode},
		{"oversize", authority, after, strings.Repeat(" ", election.MaxResultSize+1), election.CodeSize},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := e.w.snapshot()
			s := e.w.tx(tc.at)
			wantCode(t, e.c.PublishResult(txctx(s, tc.msp), tc.result), tc.code)
			if len(s.writes) != 0 || !maps.EqualFunc(before, e.w.snapshot(), bytes.Equal) {
				t.Fatal("a rejected PublishResult wrote state")
			}
		})
	}
	// A trustee may publish; then it is final.
	s := e.w.tx(after)
	if err := e.c.PublishResult(txctx(s, trustee), resultJSON(t, good)); err != nil {
		t.Fatal(err)
	}
	s.commit()
	got, err := e.c.GetResult(txctx(e.w.tx(after), outsider), "e1")
	if err != nil || got != resultJSON(t, good) {
		t.Fatalf("GetResult: %v", err)
	}
	s = e.w.tx(after)
	wantCode(t, e.c.PublishResult(txctx(s, authority), resultJSON(t, good)), election.CodeExists)
	// Casting after the window is rejected.
	_, _, err = e.cast(ballots[5].Marshal(), after)
	wantCode(t, err, election.CodeWindow)
}

// A result whose count may have overflowed its digit (M = 2^encodingBits
// votes for one option carry into the next digit) is unsound whatever
// counts it claims, and PublishResult rejects it without writing: a
// contest of M ballots is refused even when no count reached M, since in
// a contest of several selections a carry can leave counts that look
// consistent. maxVoters ballots (M − 1 at most) are accepted.
func TestPublishResultDigitOverflow(t *testing.T) {
	e := newEnv(t, nil)
	for _, tc := range []struct {
		name, id string
		choices  []int
		counts   []uint64 // claimed; nil: the true counts
		code     string   // "": accepted
	}{
		{"maxVoters ballots", "ov-sound", []int{0, 0, 1}, nil, ""},
		{"maxVoters+1 = M ballots, no count reaches M", "ov-m", []int{0, 0, 1, 1}, nil, election.CodeResult},
		{"M votes for one candidate, the true counts claimed", "ov-true", []int{0, 0, 0, 0}, nil, election.CodeResult},
		{"M votes for one candidate, the tally's digits claimed", "ov-digits", []int{0, 0, 0, 0}, []uint64{0, 1, 0, 0}, election.CodeResult},
		{"M votes for the last candidate (tally ≥ M^candidates)", "ov-last", []int{3, 3, 3, 3}, nil, election.CodeResult},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// One election per case: maxVoters 3, M = 4.
			m := fx.Manifest(tc.id)
			m.MaxVoters, m.EncodingBits = 3, 2
			e.setClock(during)
			e.open(m)
			var cast []*election.Ballot
			for i, choice := range tc.choices {
				b := fx.Ballot(m, fx.Voters[i], choice)
				if _, _, err := e.cast(b.Marshal(), during); err != nil {
					t.Fatal(err)
				}
				cast = append(cast, b)
			}
			r := singleResult(t, m, cast)
			if tc.counts != nil {
				r.Contests[0].Counts = tc.counts
			}
			e.setClock(after)
			before := e.w.snapshot()
			s := e.w.tx(after)
			err := e.c.PublishResult(txctx(s, authority), resultJSON(t, r))
			if tc.code == "" {
				if err != nil {
					t.Fatalf("the true result is rejected: %v", err)
				}
				return
			}
			wantCode(t, err, tc.code)
			if len(s.writes) != 0 || !maps.EqualFunc(before, e.w.snapshot(), bytes.Equal) {
				t.Fatal("a rejected PublishResult wrote state")
			}
		})
	}
}

func equalCounts(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestPublishThresholdResult(t *testing.T) {
	m, pp, shares := fx.ThresholdManifest("thr", 2, 3)
	e := newEnv(t, nil)
	e.open(m)
	p, _ := election.Prepare(m)
	choices := []int{2, 0, 2}
	var cs [][]*big.Int
	for i, ch := range choices {
		b := fx.Ballot(m, fx.Voters[i], ch)
		if _, _, err := e.cast(b.Marshal(), during); err != nil {
			t.Fatal(err)
		}
		c, _ := p.CheckShape(b)
		cs = append(cs, c)
	}
	product := p.ProductOf(cs)
	prod := product.Packed()
	var parts [][]byte
	for _, i := range []int{2, 0} {
		pd, err := thresholdtest.PartialDecrypt(shares[i], pp, prod)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := pd.Marshal(pp)
		parts = append(parts, b)
	}
	tally, err := fx.Paillier.Decrypt(prod) // the fixture's threshold key shares its modulus
	if err != nil {
		t.Fatal(err)
	}
	contests := []election.ContestResult{{ID: election.OneContestID, Ballots: 3, Counts: []uint64{1, 0, 2, 0}}}
	r := &election.Result{Version: election.ResultVersion, ElectionID: "thr", BallotCount: 3, Product: p.PublicKey.EncodeCiphertext(prod),
		Tally: tally.Bytes(), Contests: contests, Partials: parts}
	e.setClock(after)
	bad := *r
	bad.Partials = parts[:1]
	s := e.w.tx(after)
	wantCode(t, e.c.PublishResult(txctx(s, trustee), resultJSON(t, &bad)), election.CodeResult)
	s = e.w.tx(after)
	if err := e.c.PublishResult(txctx(s, trustee), resultJSON(t, r)); err != nil {
		t.Fatalf("valid threshold result rejected: %v", err)
	}
}

// Many concurrent casts through the batching verifier, valid and invalid
// mixed, on a contract whose manifest cache starts empty: every caller gets
// its own verdict, the manifest is parsed once, and exactly the valid
// ballots are stored. Run with -race.
func TestConcurrentCastsBatched(t *testing.T) {
	m, ballots := e1(t)
	batcher := NewBatcher(8, 50*time.Millisecond)
	e := newEnv(t, batcher)
	e.open(m)
	type job struct {
		arg   []byte
		valid bool
	}
	var jobs []job
	for i, b := range ballots {
		jobs = append(jobs, job{b.Marshal(), true})
		// An invalid twin for each voter that passes every check but the
		// proof: another voter's proof, re-signed. It races its valid twin,
		// so it is rejected either as DUPLICATE or as PROOF.
		bad := clone(b)
		bad.Proof = ballots[(i+1)%len(ballots)].Proof
		jobs = append(jobs, job{resign(bad, fx.Voters[i]), false})
	}
	// Invalid ballots of fresh voters (no duplicate possible): proof mauled.
	for i := 0; i < 6; i++ {
		v := electiontest.NewVoter()
		b := clone(ballots[i%len(ballots)])
		b.VoterPub, _ = v.PublicKey.Bytes()
		b.Token = fx.Token(m, v)
		jobs = append(jobs, job{resign(b, v), false})
	}
	errs := make([]error, len(jobs))
	stubs := make([]*stub, len(jobs))
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := e.w.tx(during)
			_, err := e.c.CastBallot(txctx(s, outsider), j.arg)
			errs[i], stubs[i] = err, s
		}()
	}
	wg.Wait()
	for i, j := range jobs {
		code := election.CodeOf(errs[i])
		switch {
		case j.valid && errs[i] != nil:
			t.Errorf("job %d: valid ballot rejected: %v", i, errs[i])
		case !j.valid && code != election.CodeProof && code != election.CodeDuplicate:
			t.Errorf("job %d: invalid ballot got %q (%v), want PROOF", i, code, errs[i])
		case !j.valid && i >= 2*len(ballots) && code != election.CodeProof:
			t.Errorf("job %d: fresh voter's invalid ballot got %q, want PROOF", i, code)
		}
		if (errs[i] == nil) != (len(stubs[i].writes) == 2) { // the ballot and its ciphertext's claim
			t.Errorf("job %d: %d writes with error %v", i, len(stubs[i].writes), errs[i])
		}
	}
	st := e.c.e.stats()
	if st.CachedManifests != 1 || st.Accepted != uint64(len(ballots)) {
		t.Fatalf("stats %+v", st)
	}
	if st.BatchedProofs != st.ProofsChecked {
		t.Fatalf("batcher saw %d proofs, contract handed over %d", st.BatchedProofs, st.ProofsChecked)
	}
	t.Logf("%d proofs in %d batches", st.BatchedProofs, st.Batches)
}

type panicky struct{}

func (panicky) Verify(election.Proofs) error { panic("verifier bug") }

// A bug that panics costs one transaction (INTERNAL), not the chaincode process.
func TestPanicBecomesInternalError(t *testing.T) {
	m, ballots := e1(t)
	e := newEnv(t, panicky{})
	e.open(m)
	_, s, err := e.cast(ballots[0].Marshal(), during)
	wantCode(t, err, election.CodeInternal)
	if len(s.writes) != 0 {
		t.Fatal("wrote state")
	}
}

// An election without ballots has the product 1 (= Enc(0) with nonce 1) and
// all-zero counts; its result is accepted.
func TestPublishEmptyElection(t *testing.T) {
	m := fx.Manifest("empty")
	e := newEnv(t, nil)
	e.open(m)
	e.setClock(after)
	r := singleResult(t, m, nil)
	if r.BallotCount != 0 || new(big.Int).SetBytes(r.Product).Cmp(big.NewInt(1)) != 0 {
		t.Fatalf("empty result %+v", r)
	}
	s := e.w.tx(after)
	if err := e.c.PublishResult(txctx(s, authority), resultJSON(t, r)); err != nil {
		t.Fatal(err)
	}
	if len(s.writes) != 1 {
		t.Fatalf("%d writes", len(s.writes))
	}
}
