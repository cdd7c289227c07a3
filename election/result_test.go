package election_test

import (
	"bytes"
	"crypto/rand"
	"math/big"
	"testing"

	"github.com/fabvote/fabvote/crypto/paillier/threshold/thresholdtest"
	"github.com/fabvote/fabvote/crypto/zkp"
	"github.com/fabvote/fabvote/election"
)

// productOf multiplies the ballots' ciphertexts.
func productOf(t *testing.T, p *election.Prepared, ballots []*election.Ballot) *big.Int {
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
	prod := productOf(t, p, ballots)
	tally, nonce, err := zkp.ProveDecryption(fx.Paillier, prod)
	if err != nil {
		t.Fatal(err)
	}
	return m, &election.Result{
		ElectionID:      m.ElectionID,
		BallotCount:     uint64(len(ballots)),
		Product:         p.PublicKey.EncodeCiphertext(prod),
		Tally:           election.EncodeInt(tally),
		Counts:          []uint64{1, 1, 1, 1}, // ballots i vote for candidate i%4
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
		{"counts shifted", func(r *election.Result) { r.Counts = []uint64{2, 0, 1, 1} }},
		{"counts and ballot count both inflated", func(r *election.Result) { r.Counts[0]++; r.BallotCount++ }},
		{"ballot count off", func(r *election.Result) { r.BallotCount = 5 }},
		{"too few counts", func(r *election.Result) { r.Counts = r.Counts[:3] }},
		{"counts overflow", func(r *election.Result) { r.Counts = []uint64{^uint64(0), 2, 0, 0}; r.BallotCount = 1 }},
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
	prod := productOf(t, p, ballots)
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
			ElectionID:  m.ElectionID,
			BallotCount: 3,
			Product:     p.PublicKey.EncodeCiphertext(prod),
			Tally:       tally.Bytes(),
			Counts:      []uint64{1, 0, 0, 2},
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

	otherProd := productOf(t, p, ballots[:2])
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
			r.Counts = []uint64{2, 0, 0, 2}
			r.BallotCount = 4
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
	cases := []struct {
		name string
		in   []byte
		code string
	}{
		{"oversize", make([]byte, election.MaxResultSize+1), election.CodeSize},
		{"empty", nil, election.CodeDecode},
		{"unknown field", bytes.Replace(good, []byte(`{"electionID"`), []byte(`{"x":0,"electionID"`), 1), election.CodeDecode},
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

// resultFor builds the single-key result of an election whose true counts
// are n (one per candidate) by encrypting the true tally Σ n_j·M^j, which is
// what the product of those ballots decrypts to. counts is what the result
// claims.
func resultFor(t *testing.T, p *election.Prepared, n, counts []uint64) *election.Result {
	t.Helper()
	tally, total := new(big.Int), uint64(0)
	for j, nj := range n {
		d := new(big.Int).Lsh(new(big.Int).SetUint64(nj), p.Encoding.Bits*uint(j))
		tally.Add(tally, d)
		total += nj
	}
	c, _, err := p.PublicKey.Encrypt(rand.Reader, tally)
	if err != nil {
		t.Fatal(err)
	}
	dec, nonce, err := zkp.ProveDecryption(fx.Paillier, c)
	if err != nil {
		t.Fatal(err)
	}
	return &election.Result{ElectionID: p.Manifest.ElectionID, BallotCount: total, Product: p.PublicKey.EncodeCiphertext(c),
		Tally: election.EncodeInt(dec), Counts: counts, DecryptionNonce: election.EncodeInt(nonce)}
}

// The result check rejects exactly a count that overflowed its digit: the
// number of ballots (maxVoters - 1, maxVoters, maxVoters + 1) does not
// matter as long as no candidate reaches M = 2^encodingBits.
func TestVerifyResultRejectsExactlyDigitOverflow(t *testing.T) {
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
		{"maxVoters+1 ballots, no count reaches M", []uint64{2, 2, 0, 0}},
		{"3·(M-1) ballots, every digit full but one", []uint64{3, 3, 0, 3}},
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
		// M votes for candidate 0 carry into candidate 1's digit.
		{"maxVoters+1 for one candidate, true counts claimed", []uint64{4, 0, 0, 0}, []uint64{4, 0, 0, 0}},
		{"maxVoters+1 for one candidate, the tally's digits claimed", []uint64{4, 0, 0, 0}, []uint64{0, 1, 0, 0}},
		{"overflow of the last candidate (tally ≥ M^p)", []uint64{0, 0, 0, 4}, []uint64{0, 0, 0, 4}},
	}
	for _, tc := range reject {
		err := p.VerifyResult(resultFor(t, p, tc.n, tc.counts))
		wantCode(t, err, election.CodeResult)
	}
}
