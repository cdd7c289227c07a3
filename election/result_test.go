package election_test

import (
	"bytes"
	"crypto/rand"
	"math/big"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/fabvote/fabvote/crypto/paillier/threshold/thresholdtest"
	"github.com/fabvote/fabvote/crypto/votecode"
	"github.com/fabvote/fabvote/crypto/zkp"
	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/election/electiontest"
)

// productOf multiplies the ballots' ciphertexts, slot by slot.
func productOf(t *testing.T, p *election.Prepared, ballots []*election.Ballot) *election.Product {
	t.Helper()
	var cs [][]*big.Int
	for _, b := range ballots {
		c, err := p.CheckShape(b)
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, c)
	}
	return p.ProductOf(cs)
}

func singleKeyResult(t *testing.T) (*election.Manifest, *election.Result) {
	m, p, ballots := fixtures(t)
	prod := productOf(t, p, ballots).Packed()
	tally, nonce, err := zkp.ProveDecryption(fx.Paillier, prod)
	if err != nil {
		t.Fatal(err)
	}
	return m, &election.Result{
		Version:     election.ResultVersion,
		ElectionID:  m.ElectionID,
		BallotCount: uint64(len(ballots)),
		Product:     p.PublicKey.EncodeCiphertext(prod),
		Tally:       election.EncodeInt(tally),
		Contests: []election.ContestResult{{
			ID:      election.OneContestID,
			Ballots: uint64(len(ballots)),
			Counts:  []uint64{1, 1, 1, 1}, // ballots i vote for candidate i%4
		}},
		DecryptionNonce: election.EncodeInt(nonce),
	}
}

func TestVerifyResultSingleKey(t *testing.T) {
	m, r := singleKeyResult(t)
	if err := election.VerifyResult(m, r); err != nil {
		t.Fatalf("valid result rejected: %v", err)
	}
	enc, err := r.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := election.ParseResult(enc)
	if err != nil {
		t.Fatal(err)
	}
	if err := election.VerifyResult(m, back); err != nil {
		t.Fatalf("round-tripped result rejected: %v", err)
	}

	cases := []struct {
		name string
		mod  func(r *election.Result)
	}{
		{"wrong election", func(r *election.Result) { r.ElectionID = "e2" }},
		{"version 1 (counts of one list of candidates)", func(r *election.Result) { r.Version = 1 }},
		{"no version", func(r *election.Result) { r.Version = 0 }},
		{"no contest", func(r *election.Result) { r.Contests = nil }},
		{"a contest twice", func(r *election.Result) { r.Contests = append(r.Contests, r.Contests[0]) }},
		{"counts shifted", func(r *election.Result) { r.Contests[0].Counts = []uint64{2, 0, 1, 1} }},
		{"counts and ballot counts all inflated", func(r *election.Result) {
			r.Contests[0].Counts[0]++
			r.Contests[0].Ballots++
			r.BallotCount++
		}},
		{"ballot count below the contest's ballots", func(r *election.Result) { r.BallotCount = 3 }},
		{"too few counts", func(r *election.Result) { r.Contests[0].Counts = r.Contests[0].Counts[:3] }},
		{"counts overflow", func(r *election.Result) {
			r.Contests[0].Counts = []uint64{^uint64(0), 2, 0, 0}
			r.Contests[0].Ballots, r.BallotCount = 1, 1
		}},
		{"tally + 1", func(r *election.Result) {
			r.Tally = new(big.Int).Add(new(big.Int).SetBytes(r.Tally), big.NewInt(1)).Bytes()
		}},
		{"tally with a leading zero", func(r *election.Result) { r.Tally = append([]byte{0}, r.Tally...) }},
		{"nonce + 1", func(r *election.Result) {
			r.DecryptionNonce = new(big.Int).Add(new(big.Int).SetBytes(r.DecryptionNonce), big.NewInt(1)).Bytes()
		}},
		{"nonce missing", func(r *election.Result) { r.DecryptionNonce = nil }},
		{"product short", func(r *election.Result) { r.Product = r.Product[1:] }},
		{"product zero", func(r *election.Result) { r.Product = make([]byte, len(r.Product)) }},
		{"partials on a single-key election", func(r *election.Result) { r.Partials = [][]byte{{1}} }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, r := singleKeyResult(t)
			tc.mod(r)
			wantCode(t, election.VerifyResult(m, r), election.CodeResult)
		})
	}
}

func TestVerifyResultThreshold(t *testing.T) {
	m, pp, shares := fx.ThresholdManifest("thr", 2, 3)
	p, err := election.Prepare(m)
	if err != nil {
		t.Fatal(err)
	}
	var ballots []*election.Ballot
	choices := []int{3, 3, 0}
	for i, c := range choices {
		ballots = append(ballots, fx.Ballot(m, fx.Voters[i], c))
	}
	prod := productOf(t, p, ballots).Packed()
	partial := func(i int) []byte {
		pd, err := thresholdtest.PartialDecrypt(shares[i], pp, prod)
		if err != nil {
			t.Fatal(err)
		}
		b, err := pd.Marshal(pp)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	parts := [][]byte{partial(0), partial(2), partial(1)}
	tally := new(big.Int).Add(new(big.Int).Lsh(big.NewInt(2), 30), big.NewInt(1)) // 2·M^3 + 1·M^0
	good := func() *election.Result {
		return &election.Result{
			Version:     election.ResultVersion,
			ElectionID:  m.ElectionID,
			BallotCount: 3,
			Product:     p.PublicKey.EncodeCiphertext(prod),
			Tally:       tally.Bytes(),
			Contests:    []election.ContestResult{{ID: election.OneContestID, Ballots: 3, Counts: []uint64{1, 0, 0, 2}}},
			Partials:    [][]byte{parts[0], parts[1]},
		}
	}
	if err := p.VerifyResult(good()); err != nil {
		t.Fatalf("valid threshold result rejected: %v", err)
	}
	all := good()
	all.Partials = parts
	if err := p.VerifyResult(all); err != nil {
		t.Fatalf("valid result with all 3 partials rejected: %v", err)
	}

	otherProd := productOf(t, p, ballots[:2]).Packed()
	pdOther, err := thresholdtest.PartialDecrypt(shares[1], pp, otherProd)
	if err != nil {
		t.Fatal(err)
	}
	partialOfOther, _ := pdOther.Marshal(pp)
	mauled := append([]byte(nil), parts[0]...)
	mauled[len(mauled)-1] ^= 1

	cases := []struct {
		name string
		mod  func(r *election.Result)
	}{
		{"one partial (K = 2)", func(r *election.Result) { r.Partials = r.Partials[:1] }},
		{"duplicate partial", func(r *election.Result) { r.Partials = [][]byte{parts[0], parts[0]} }},
		{"four partials", func(r *election.Result) { r.Partials = append(parts, parts[0]) }},
		{"partial of another ciphertext", func(r *election.Result) { r.Partials[1] = partialOfOther }},
		{"mauled partial proof", func(r *election.Result) { r.Partials[0] = mauled }},
		{"garbage partial", func(r *election.Result) { r.Partials[0] = []byte("garbage") }},
		{"wrong tally", func(r *election.Result) {
			r.Tally = new(big.Int).Add(tally, big.NewInt(1)).Bytes()
			r.Contests[0].Counts = []uint64{2, 0, 0, 2}
			r.Contests[0].Ballots, r.BallotCount = 4, 4
		}},
		{"nonce on a threshold election", func(r *election.Result) { r.DecryptionNonce = []byte{1} }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := good()
			tc.mod(r)
			wantCode(t, p.VerifyResult(r), election.CodeResult)
		})
	}
}

func TestParseResultRejects(t *testing.T) {
	_, r := singleKeyResult(t)
	good, err := r.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	// A version 1 result: one list of counts where version 2 has contests.
	i, j := bytes.Index(good, []byte(`"contests":`)), bytes.Index(good, []byte(`,"decryptionNonce":`))
	if i < 0 || j < i {
		t.Fatalf("no contests in %s", good)
	}
	v1 := append(append(append([]byte(nil), good[:i]...), `"counts":[1,1,1,1]`...), good[j:]...)
	v1 = bytes.Replace(v1, []byte(`{"version":2`), []byte(`{"version":1`), 1)
	cases := []struct {
		name string
		in   []byte
		code string
	}{
		{"oversize", make([]byte, election.MaxResultSize+1), election.CodeSize},
		{"empty", nil, election.CodeDecode},
		{"unknown field", bytes.Replace(good, []byte(`{"version":2,"electionID"`), []byte(`{"x":0,"version":2,"electionID"`), 1), election.CodeDecode},
		{"version 1 (counts, no contests)", v1, election.CodeDecode},
		{"trailing", append(append([]byte(nil), good...), '\n'), election.CodeDecode},
		{"indented", bytes.Replace(good, []byte(`,"ballotCount"`), []byte(`, "ballotCount"`), 1), election.CodeDecode},
		{"negative count", bytes.Replace(good, []byte(`"counts":[1,`), []byte(`"counts":[-1,`), 1), election.CodeDecode},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := election.ParseResult(tc.in)
			wantCode(t, err, tc.code)
		})
	}
}

// resultFor builds the single-key result of an election of one contest
// whose true counts are n (one per candidate) by encrypting the true tally
// Σ n_j·M^j, which is what the product of those ballots decrypts to. The
// result claims counts, and the true number of ballots Σ n_j (the number
// the chaincode checks against the ledger), unless ballots says otherwise.
func resultFor(t *testing.T, p *election.Prepared, n, counts []uint64, ballots ...uint64) *election.Result {
	t.Helper()
	tally, total := new(big.Int), uint64(0)
	for j, nj := range n {
		d := new(big.Int).Lsh(new(big.Int).SetUint64(nj), p.Layout.Bits*uint(j))
		tally.Add(tally, d)
		total += nj
	}
	if len(ballots) > 0 {
		total = ballots[0]
	}
	c, _, err := p.PublicKey.Encrypt(rand.Reader, tally)
	if err != nil {
		t.Fatal(err)
	}
	dec, nonce, err := zkp.ProveDecryption(fx.Paillier, c)
	if err != nil {
		t.Fatal(err)
	}
	return &election.Result{Version: election.ResultVersion, ElectionID: p.Manifest.ElectionID, BallotCount: total,
		Product: p.PublicKey.EncodeCiphertext(c), Tally: election.EncodeInt(dec),
		Contests:        []election.ContestResult{{ID: election.OneContestID, Ballots: total, Counts: counts}},
		DecryptionNonce: election.EncodeInt(nonce)}
}

// No count can carry into the next digit: a contest counting M =
// 2^encodingBits ballots or more is refused (the per-contest overflow
// rule; an election has at most maxVoters < M ballots), whatever its
// counts, so that any count, which is at most the contest's ballots, is
// below M. Up to maxVoters ballots, the true result is accepted.
func TestVerifyResultRejectsDigitOverflow(t *testing.T) {
	m := fx.Manifest("edges")
	m.MaxVoters, m.EncodingBits = 3, 2 // M = 4
	p, err := election.Prepare(m)
	if err != nil {
		t.Fatal(err)
	}
	accept := []struct {
		name string
		n    []uint64
	}{
		{"maxVoters-1 ballots, one candidate", []uint64{2, 0, 0, 0}},
		{"maxVoters ballots, one candidate", []uint64{3, 0, 0, 0}},
		{"maxVoters ballots, the last candidate", []uint64{0, 0, 0, 3}},
		{"maxVoters ballots, three candidates", []uint64{1, 1, 1, 0}},
	}
	for _, tc := range accept {
		if err := p.VerifyResult(resultFor(t, p, tc.n, tc.n)); err != nil {
			t.Errorf("%s: the true result is rejected: %v", tc.name, err)
		}
	}
	reject := []struct {
		name      string
		n, counts []uint64
	}{
		{"maxVoters+1 ballots, though no count reaches M", []uint64{2, 2, 0, 0}, []uint64{2, 2, 0, 0}},
		// M votes for candidate 0 carry into candidate 1's digit.
		{"M for one candidate, true counts claimed", []uint64{4, 0, 0, 0}, []uint64{4, 0, 0, 0}},
		{"M for one candidate, the tally's digits claimed", []uint64{4, 0, 0, 0}, []uint64{0, 1, 0, 0}},
		{"overflow of the last candidate (tally ≥ M^p)", []uint64{0, 0, 0, 4}, []uint64{0, 0, 0, 4}},
		{"3·(M-1) ballots, every digit full but one", []uint64{3, 3, 0, 3}, []uint64{3, 3, 0, 3}},
	}
	for _, tc := range reject {
		err := p.VerifyResult(resultFor(t, p, tc.n, tc.counts))
		wantCode(t, err, election.CodeResult)
		if !strings.Contains(err.Error(), "overflow its digit") {
			t.Errorf("%s: %v, want the overflow rule", tc.name, err)
		}
	}
	// A tally of M^p (4 votes for the last candidate) under a claim of
	// fewer ballots: its digits do not decode.
	err = p.VerifyResult(resultFor(t, p, []uint64{0, 0, 0, 4}, []uint64{0, 0, 0, 3}, 3))
	wantCode(t, err, election.CodeResult)
	if !strings.Contains(err.Error(), "tally") {
		t.Fatalf("tally ≥ M^p: %v, want an error naming the tally", err)
	}
	// M votes for candidate 0 decrypt to one vote for candidate 1: a
	// result claiming one ballot is the result of such a ballot, and only
	// the ledger's number of ballots (which the chaincode and the audit
	// compare, CheckContestBallots) tells the two apart.
	r := resultFor(t, p, []uint64{4, 0, 0, 0}, []uint64{0, 1, 0, 0}, 1)
	if err := p.VerifyResult(r); err != nil {
		t.Fatalf("the result of one ballot for candidate 1: %v", err)
	}
	wantCode(t, election.CheckContestBallots(r, []uint64{4}), election.CodeResult)
}

// A ballot of Fixture.ContestManifest: the voter (an index into the
// fixture's voters), the style, and the selections for the style's
// contests.
type contestVote struct {
	voter int
	style string
	sels  []votecode.Selection
}

func sel(options ...int) votecode.Selection { return votecode.Selection{Options: options} }

var blank = votecode.Selection{Blank: true}

// contestVotes are three ballots of style north (mayor, council: up to
// 2 of 5 or blank, referendum) and two of style south (mayor,
// referendum), and contestCounts their counts.
var (
	contestVotes = []contestVote{
		{0, "north", []votecode.Selection{sel(1), sel(0, 3), sel(0)}},
		{1, "north", []votecode.Selection{sel(1), blank, sel(1)}},
		{2, "north", []votecode.Selection{sel(3), sel(), sel(0)}},
		{3, "south", []votecode.Selection{sel(0), sel(0)}},
		{4, "south", []votecode.Selection{sel(1), sel(0)}},
	}
	contestCounts = []election.ContestResult{
		{ID: "mayor", Ballots: 5, Counts: []uint64{1, 3, 0, 1}},
		// 2 ballots not blank, of at most 2 selections: 4, of which 2 made.
		{ID: "council", Ballots: 3, Counts: []uint64{1, 0, 0, 1, 0}, Blank: 1, Undervotes: 2},
		{ID: "referendum", Ballots: 5, Counts: []uint64{4, 1}},
	}
)

var (
	contestMu    sync.Mutex
	contestCache = map[string]*contestElection{}
)

type contestElection struct {
	m       *election.Manifest
	p       *election.Prepared
	ballots []*election.Ballot
}

// contestManifest is Fixture.ContestManifest("contests") with the
// council in the given encoding.
func contestManifest(councilEncoding string) *election.Manifest {
	m := fx.ContestManifest("contests")
	m.Contests[1].Encoding = councilEncoding
	return m
}

// contestBallots are the ballots of contestVotes under
// contestManifest(councilEncoding), made once per encoding.
func contestBallots(t *testing.T, councilEncoding string) *contestElection {
	t.Helper()
	contestMu.Lock()
	defer contestMu.Unlock()
	if e, ok := contestCache[councilEncoding]; ok {
		return e
	}
	m := contestManifest(councilEncoding)
	e := &contestElection{m: m, p: prepare(t, m)}
	for _, v := range contestVotes {
		e.ballots = append(e.ballots, styleBallot(t, e.p, v))
	}
	contestCache[councilEncoding] = e
	return e
}

// styleBallot is the ballot of v, with a token of v's style.
func styleBallot(t *testing.T, p *election.Prepared, v contestVote) *election.Ballot {
	t.Helper()
	voter := fx.Voters[v.voter]
	tok := fx.TokenStyle(p.Manifest, electiontest.VoterID(voter), v.style, voter)
	b, err := p.NewBallotSelections(rand.Reader, voter, tok, v.sels)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// contestResult is the single-key result of ballots, with the product
// and the contests' ballots from Product, and the contests' results from
// NewContestResults.
func contestResult(t *testing.T, p *election.Prepared, ballots []*election.Ballot) (*election.Result, *election.Product) {
	t.Helper()
	prod := productOf(t, p, ballots)
	packed := prod.Packed()
	tally, nonce, err := zkp.ProveDecryption(fx.Paillier, packed)
	if err != nil {
		t.Fatal(err)
	}
	crs, err := p.NewContestResults(tally, prod.Ballots())
	if err != nil {
		t.Fatal(err)
	}
	return &election.Result{
		Version:         election.ResultVersion,
		ElectionID:      p.Manifest.ElectionID,
		BallotCount:     uint64(len(ballots)),
		Product:         p.PublicKey.EncodeCiphertext(packed),
		Tally:           election.EncodeInt(tally),
		Contests:        crs,
		DecryptionNonce: election.EncodeInt(nonce),
	}, prod
}

// The result of real ballots of both styles of a 3-contest election,
// built with Product and NewContestResults, verifies and counts what the
// voters selected, with the council packed and per option; and
// CheckContestBallots refuses a wrong number of ballots of a contest.
func TestContestResult(t *testing.T) {
	for _, enc := range []string{"packed", "per-option"} {
		t.Run(enc, func(t *testing.T) {
			e := contestBallots(t, enc)
			if got := e.p.Layout.Contests[1].Kind.String(); got != enc {
				t.Fatalf("the council is laid out %s, want %s", got, enc)
			}
			r, prod := contestResult(t, e.p, e.ballots)
			if err := e.p.VerifyResult(r); err != nil {
				t.Fatalf("the result of the ballots: %v", err)
			}
			enc, err := r.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			back, err := election.ParseResult(enc)
			if err != nil {
				t.Fatal(err)
			}
			if err := election.VerifyResult(e.m, back); err != nil {
				t.Fatalf("the round-tripped result: %v", err)
			}
			for i, want := range contestCounts {
				got := r.Contests[i]
				if got.ID != want.ID || got.Ballots != want.Ballots || !slices.Equal(got.Counts, want.Counts) || got.Blank != want.Blank || got.Undervotes != want.Undervotes {
					t.Errorf("contests[%d] = %+v, want %+v", i, got, want)
				}
			}
			if got := prod.Ballots(); !slices.Equal(got, []uint64{5, 3, 5}) {
				t.Fatalf("Product.Ballots = %v, want [5 3 5]", got)
			}
			if err := election.CheckContestBallots(r, prod.Ballots()); err != nil {
				t.Fatalf("CheckContestBallots of the product's ballots: %v", err)
			}
			for _, tc := range []struct {
				name    string
				ballots []uint64
				want    string
			}{
				{"one council ballot fewer", []uint64{5, 2, 5}, `contests[1] "council" counts 3 ballots, but 2 ballots answer it`},
				{"one referendum ballot more", []uint64{5, 3, 6}, `contests[2] "referendum" counts 5 ballots, but 6`},
				{"a contest short", []uint64{5, 3}, "contests has 3 entries, want 2"},
			} {
				err := election.CheckContestBallots(r, tc.ballots)
				if election.CodeOf(err) != election.CodeResult || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("%s: %v, want RESULT containing %q", tc.name, err, tc.want)
				}
			}
			// Council ballots inflated with undervotes hold together and
			// match the tally: only the ledger's number of council ballots
			// refuses them.
			inflated := *r
			inflated.Contests = slices.Clone(r.Contests)
			inflated.Contests[1].Ballots += 2
			inflated.Contests[1].Undervotes += 4
			if err := e.p.VerifyResult(&inflated); err != nil {
				t.Fatalf("inflated council ballots: %v", err)
			}
			wantCode(t, election.CheckContestBallots(&inflated, prod.Ballots()), election.CodeResult)
		})
	}
}

// TestVerifyResultContestRules: each rule of a contest's counts, and of
// the tally's digits, reached through VerifyResult on the result of
// contestVotes, one case each, refused as RESULT naming the contest.
func TestVerifyResultContestRules(t *testing.T) {
	e := contestBallots(t, "packed")
	good, _ := contestResult(t, e.p, e.ballots)
	for _, tc := range []struct {
		name string
		edit func(r *election.Result)
		want string
	}{
		{"version 1", func(r *election.Result) { r.Version = 1 }, "version is 1, want 2"},
		{"a contest missing", func(r *election.Result) { r.Contests = r.Contests[:2] }, "contests has 2 entries, want one per contest (3)"},
		{"contests out of order", func(r *election.Result) { r.Contests[0], r.Contests[2] = r.Contests[2], r.Contests[0] }, `contests[0] is "referendum", want contest "mayor"`},
		{"another contest's id", func(r *election.Result) { r.Contests[1].ID = "Council" }, `contests[1] is "Council", want contest "council"`},
		{"more ballots than ballotCount", func(r *election.Result) { r.BallotCount = 4 }, "contests[0] counts 5 ballots, more than ballotCount 4"},
		{"ballots reach M", func(r *election.Result) { r.Contests[1].Ballots, r.BallotCount = 1024, 1024 }, "contests[1] counts 1024 ballots: a count could reach 2^10"},
		{"a count missing", func(r *election.Result) { r.Contests[2].Counts = r.Contests[2].Counts[:1] }, "contests[2] has 1 counts, want one per option (2)"},
		{"ballotCount above a contest of every style", func(r *election.Result) { r.BallotCount++ }, "contests[0] counts 5 ballots, but every ballot answers it and ballotCount is 6"},
		{"a count too many", func(r *election.Result) { r.Contests[0].Counts = append(r.Contests[0].Counts, 0) }, "contests[0] has 5 counts, want one per option (4)"},
		{"blank where the contest allows none", func(r *election.Result) { r.Contests[0].Blank = 1 }, "contests[0] counts 1 blank votes, but the contest allows none"},
		{"blank above the ballots", func(r *election.Result) { r.Contests[1].Blank = 4 }, "contests[1] counts 4 blank votes of 3 ballots"},
		{"a count above the ballots not blank", func(r *election.Result) { r.Contests[1].Counts[0] = 3 }, "contests[1].counts[0] is 3, more than the 2 ballots that did not vote blank"},
		{"fewer selections than the least", func(r *election.Result) { r.Contests[0].Counts = []uint64{1, 3, 0, 0} }, "contests[0] has 4 selections in all, outside 5..5"},
		{"more selections than the most", func(r *election.Result) { r.Contests[1].Counts = []uint64{2, 2, 1, 0, 0} }, "contests[1] has 5 selections in all, outside 0..4"},
		{"undervotes wrong", func(r *election.Result) { r.Contests[1].Undervotes = 1 }, "contests[1] has undervotes 1, want 2"},
		{"undervotes of a contest of exactly one", func(r *election.Result) { r.Contests[2].Undervotes = 1 }, "contests[2] has undervotes 1, want 0"},
		// The counts hold together, but are not the tally's.
		{"a vote moved between options", func(r *election.Result) { r.Contests[0].Counts = []uint64{2, 2, 0, 1} }, "contests[0].counts[0] (Ana) is 2, but the tally says 1"},
		{"a referendum vote moved", func(r *election.Result) { r.Contests[2].Counts = []uint64{3, 2} }, "contests[2].counts[0] (Yes) is 3, but the tally says 4"},
		{"one more blank vote", func(r *election.Result) { r.Contests[1].Blank++; r.Contests[1].Ballots++ }, "contests[1].blank is 2, but the tally says 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := *good
			r.Contests = make([]election.ContestResult, len(good.Contests))
			for i, cr := range good.Contests {
				cr.Counts = slices.Clone(cr.Counts)
				r.Contests[i] = cr
			}
			if err := e.p.VerifyResult(&r); err != nil {
				t.Fatalf("the copy of the good result: %v", err)
			}
			tc.edit(&r)
			err := e.p.VerifyResult(&r)
			if election.CodeOf(err) != election.CodeResult || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want RESULT containing %q", err, tc.want)
			}
		})
	}
}
