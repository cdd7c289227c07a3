package election

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"slices"

	"github.com/fabvote/fabvote/crypto/paillier/threshold"
	"github.com/fabvote/fabvote/crypto/zkp"
)

// MaxResultSize bounds an encoded result (64 trustees' partial decryptions at 4096 bits fit easily).
const MaxResultSize = 512 * 1024

// ResultVersion is the only result version this code accepts. Version 2
// counts contest by contest.
const ResultVersion = 2

// Result is the published outcome of an election.
//
// Integers are big-endian: Product is the fixed-length ciphertext encoding
// (CiphertextLen bytes); Tally and DecryptionNonce are minimal (big.Int.Bytes:
// no leading zero byte, zero is empty). With a single key, DecryptionNonce is
// R with Product = (1+N)^Tally · R^N mod N² and Partials is empty; with
// trustees, Partials holds at least K encoded threshold partial decryptions
// of Product (threshold.PartialDecryption encoding) and DecryptionNonce is
// empty.
type Result struct {
	Version         int             `json:"version"`
	ElectionID      string          `json:"electionID"`
	BallotCount     uint64          `json:"ballotCount"`
	Product         []byte          `json:"product"`
	Tally           []byte          `json:"tally"`
	Contests        []ContestResult `json:"contests"`
	DecryptionNonce []byte          `json:"decryptionNonce"`
	Partials        [][]byte        `json:"partials"`
}

// ContestResult is the count of one contest: of the Ballots that answer
// it, Blank voted blank, and the others selected the options Counts times;
// Undervotes is the number of selections they left unused,
// maxSelections·(Ballots − Blank) − ΣCounts.
type ContestResult struct {
	ID         string   `json:"id"`
	Ballots    uint64   `json:"ballots"`
	Counts     []uint64 `json:"counts"`
	Blank      uint64   `json:"blank"`
	Undervotes uint64   `json:"undervotes"`
}

// Marshal returns the canonical JSON encoding (nil slices as empty).
func (r *Result) Marshal() ([]byte, error) {
	c := *r
	if c.Product == nil {
		c.Product = []byte{}
	}
	if c.Tally == nil {
		c.Tally = []byte{}
	}
	c.Contests = make([]ContestResult, len(r.Contests))
	for i, cr := range r.Contests {
		if cr.Counts == nil {
			cr.Counts = []uint64{}
		}
		c.Contests[i] = cr
	}
	if c.DecryptionNonce == nil {
		c.DecryptionNonce = []byte{}
	}
	if c.Partials == nil {
		c.Partials = [][]byte{}
	}
	b, err := json.Marshal(&c)
	if err != nil {
		return nil, wrapf(CodeResult, err, "encoding result")
	}
	return b, nil
}

// ParseResult decodes the canonical encoding (size-limited, no unknown fields,
// no trailing data, exactly Marshal's output). It does not verify the result.
func ParseResult(b []byte) (*Result, error) {
	if len(b) > MaxResultSize {
		return nil, errorf(CodeSize, "result has %d bytes, the limit is %d", len(b), MaxResultSize)
	}
	r := new(Result)
	if err := strictJSON(b, r); err != nil {
		return nil, wrapf(CodeDecode, err, "result")
	}
	canon, err := r.Marshal()
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(canon, b) {
		return nil, errorf(CodeDecode, "result is not in canonical form (re-encode it with Result.Marshal)")
	}
	return r, nil
}

// EncodeInt returns the minimal big-endian encoding used for Tally and
// DecryptionNonce.
func EncodeInt(x *big.Int) []byte { return x.Bytes() }

// decodeMinimal parses a minimal big-endian non-negative integer below bound.
func decodeMinimal(b []byte, bound *big.Int, field string) (*big.Int, error) {
	if len(b) > 0 && b[0] == 0 {
		return nil, errorf(CodeResult, "%s has a leading zero byte (not minimal)", field)
	}
	x := new(big.Int).SetBytes(b)
	if x.Cmp(bound) >= 0 {
		return nil, errorf(CodeResult, "%s is not below N", field)
	}
	return x, nil
}

func resultErr(format string, args ...any) *Error { return errorf(CodeResult, format, args...) }

// VerifyResult checks r against m: every contest's counts hold together
// (checkContestCounts), the product decodes, the decryption of the product
// is Tally (decryption proof with a single key; every partial decryption's
// proof and their combination with trustees), and Tally's digits are every
// contest's counts. It does not check that Product and the contests'
// ballots are those of the ballots on the ledger: the chaincode and
// `fabvote verify` recompute them themselves.
func VerifyResult(m *Manifest, r *Result) error {
	p, err := Prepare(m)
	if err != nil {
		return err
	}
	return p.VerifyResult(r)
}

// VerifyResult is VerifyResult with a prepared manifest.
func (p *Prepared) VerifyResult(r *Result) error {
	if r == nil {
		return resultErr("result is missing")
	}
	if r.Version != ResultVersion {
		return resultErr("version is %d, want %d", r.Version, ResultVersion)
	}
	if r.ElectionID != p.Manifest.ElectionID {
		return resultErr("result is for election %q, not %q", truncate(r.ElectionID, 80), p.Manifest.ElectionID)
	}
	if err := p.checkContestCounts(r); err != nil {
		return err
	}
	product, tally, err := p.decodeProductAndTally(r)
	if err != nil {
		return err
	}
	if p.Threshold == nil {
		err = p.checkSingleKeyDecryption(r, product, tally)
	} else {
		err = p.checkThresholdDecryption(r, product, tally)
	}
	if err != nil {
		return err
	}
	return p.checkTallyDigits(r, tally)
}

// checkContestCounts checks one entry per contest, in the manifest's
// order, each consistent with the contest's limits (checkContest), and
// ballotCount against them: a contest of every style counts every ballot,
// and every ballot answers some contest.
func (p *Prepared) checkContestCounts(r *Result) error {
	m := p.Manifest
	if len(r.Contests) != len(m.Contests) {
		return resultErr("contests has %d entries, want one per contest (%d)", len(r.Contests), len(m.Contests))
	}
	for i := range r.Contests {
		if err := p.checkContest(i, &r.Contests[i], r.BallotCount); err != nil {
			return err
		}
	}
	var answers uint64 // Σ ballots of the contests, saturating: every ballot answers one at least
	for i := range r.Contests {
		if answers += r.Contests[i].Ballots; answers < r.Contests[i].Ballots {
			answers = math.MaxUint64
		}
		if p.inEveryStyle(i) && r.Contests[i].Ballots != r.BallotCount {
			return resultErr("contests[%d] counts %d ballots, but every ballot answers it and ballotCount is %d", i, r.Contests[i].Ballots, r.BallotCount)
		}
	}
	if r.BallotCount > answers {
		return resultErr("ballotCount %d is more than the ballots the contests count together (%d): every ballot answers a contest", r.BallotCount, answers)
	}
	return nil
}

// inEveryStyle reports whether every ballot style has contest i.
func (p *Prepared) inEveryStyle(i int) bool {
	for _, f := range p.styles {
		if !slices.Contains(f.contests, byte(i)) {
			return false
		}
	}
	return true
}

// checkContest checks what a contest's counts must satisfy before any
// decryption: at most ballotCount ballots and fewer than M (so that no
// digit of the tally can carry into the next: the per-contest overflow
// check), one count per option, blank only where allowed, every count
// within the ballots that did not vote blank, the selections within
// the contest's limits for those ballots, and the undervotes they leave.
func (p *Prepared) checkContest(i int, cr *ContestResult, ballotCount uint64) error {
	c := &p.Manifest.Contests[i]
	field := fmt.Sprintf("contests[%d]", i)
	switch {
	case cr.ID != c.ID:
		return resultErr("%s is %q, want contest %q", field, truncate(cr.ID, 80), c.ID)
	case cr.Ballots > ballotCount:
		return resultErr("%s counts %d ballots, more than ballotCount %d", field, cr.Ballots, ballotCount)
	case p.Manifest.EncodingBits < 64 && cr.Ballots>>p.Manifest.EncodingBits != 0:
		return resultErr("%s counts %d ballots: a count could reach 2^%d and overflow its digit", field, cr.Ballots, p.Manifest.EncodingBits)
	case len(cr.Counts) != len(c.Options):
		return resultErr("%s has %d counts, want one per option (%d)", field, len(cr.Counts), len(c.Options))
	case cr.Blank != 0 && !c.Blank:
		return resultErr("%s counts %d blank votes, but the contest allows none", field, cr.Blank)
	case cr.Blank > cr.Ballots:
		return resultErr("%s counts %d blank votes of %d ballots", field, cr.Blank, cr.Ballots)
	}
	voted := cr.Ballots - cr.Blank
	for j, n := range cr.Counts {
		if n > voted {
			return resultErr("%s.counts[%d] is %d, more than the %d ballots that did not vote blank", field, j, n, voted)
		}
	}
	sum, lo, hi := selections(c, cr)
	if sum.Cmp(lo) < 0 || sum.Cmp(hi) > 0 {
		return resultErr("%s has %s selections in all, outside %s..%s for %d ballots of %d to %d selections", field, sum, lo, hi, voted, c.Min, c.Max)
	}
	if under := hi.Sub(hi, sum); !under.IsUint64() || under.Uint64() != cr.Undervotes {
		return resultErr("%s has undervotes %d, want %s (maxSelections × %d ballots − %s selections)", field, cr.Undervotes, under, voted, sum)
	}
	return nil
}

// decodeProductAndTally decodes the product ciphertext (of its fixed
// length) and the tally (minimal, below N).
func (p *Prepared) decodeProductAndTally(r *Result) (product, tally *big.Int, err error) {
	pk := p.PublicKey
	if len(r.Product) != pk.CiphertextLen() {
		return nil, nil, resultErr("product has %d bytes, want %d", len(r.Product), pk.CiphertextLen())
	}
	product, err = pk.DecodeCiphertext(r.Product)
	if err != nil {
		return nil, nil, wrapf(CodeResult, err, "product")
	}
	tally, err = decodeMinimal(r.Tally, pk.N, "tally")
	if err != nil {
		return nil, nil, err
	}
	return product, tally, nil
}

// checkSingleKeyDecryption verifies the proof that tally decrypts product
// under the election's single key: the decryption nonce.
func (p *Prepared) checkSingleKeyDecryption(r *Result, product, tally *big.Int) error {
	if len(r.Partials) != 0 {
		return resultErr("partials given for a single-key election")
	}
	nonce, err := decodeMinimal(r.DecryptionNonce, p.PublicKey.N, "decryptionNonce")
	if err != nil {
		return err
	}
	if err := zkp.VerifyDecryption(p.PublicKey, product, tally, nonce); err != nil {
		return wrapf(CodeResult, err, "decryption proof")
	}
	return nil
}

// checkThresholdDecryption parses the trustees' partial decryptions and
// checks that they combine to tally.
func (p *Prepared) checkThresholdDecryption(r *Result, product, tally *big.Int) error {
	if len(r.DecryptionNonce) != 0 {
		return resultErr("decryptionNonce given for a threshold election")
	}
	if len(r.Partials) < p.Threshold.K || len(r.Partials) > p.Threshold.L {
		return resultErr("partials: %d, want %d..%d", len(r.Partials), p.Threshold.K, p.Threshold.L)
	}
	parts := make([]*threshold.PartialDecryption, len(r.Partials))
	for i, b := range r.Partials {
		pd, err := threshold.ParsePartialDecryption(p.Threshold, b)
		if err != nil {
			return wrapf(CodeResult, err, "partials[%d]", i)
		}
		parts[i] = pd
	}
	// Combine verifies every partial's proof (naming a bad one) before combining.
	got, err := p.Threshold.Combine(product, parts)
	if err != nil {
		return wrapf(CodeResult, err, "partial decryptions")
	}
	if got.Cmp(tally) != 0 {
		return resultErr("the partial decryptions combine to a different tally")
	}
	return nil
}

// checkTallyDigits checks that the tally's digits are every contest's
// counts, then its blank votes.
func (p *Prepared) checkTallyDigits(r *Result, tally *big.Int) error {
	digits, err := p.Layout.Decode(tally)
	if err != nil {
		return wrapf(CodeResult, err, "tally")
	}
	for i, d := range digits {
		c, cr := &p.Manifest.Contests[i], &r.Contests[i]
		for j, n := range cr.Counts {
			if d[j] != n {
				return resultErr("contests[%d].counts[%d] (%s) is %d, but the tally says %d", i, j, truncate(c.Options[j], 40), n, d[j])
			}
		}
		if blank := uint64(0); c.Blank {
			if blank = d[len(c.Options)]; blank != cr.Blank {
				return resultErr("contests[%d].blank is %d, but the tally says %d", i, cr.Blank, blank)
			}
		}
	}
	return nil
}

// NewContestResults are the results of every contest from the tally's
// digits and each contest's number of ballots (Product.Ballots).
func (p *Prepared) NewContestResults(tally *big.Int, ballots []uint64) ([]ContestResult, error) {
	digits, err := p.Layout.Decode(tally)
	if err != nil {
		return nil, wrapf(CodeResult, err, "tally")
	}
	out := make([]ContestResult, len(digits))
	for i, d := range digits {
		c := &p.Manifest.Contests[i]
		cr := ContestResult{ID: c.ID, Ballots: ballots[i], Counts: d[:len(c.Options)]}
		if c.Blank {
			cr.Blank = d[len(c.Options)]
		}
		cr.Undervotes = undervotes(c, &cr)
		out[i] = cr
	}
	return out, nil
}

// selections are a contest count's selections, ΣCounts, and their bounds
// for its v = Ballots − Blank ballots that did not vote blank (Blank ≤
// Ballots), minSelections·v and maxSelections·v: in big.Int, as 64 counts
// of up to 2^64 − 1 do not fit 64 bits. The undervotes are hi − sum.
func selections(c *Contest, cr *ContestResult) (sum, lo, hi *big.Int) {
	sum = new(big.Int)
	for _, n := range cr.Counts {
		sum.Add(sum, new(big.Int).SetUint64(n))
	}
	v := new(big.Int).SetUint64(cr.Ballots - cr.Blank)
	return sum, new(big.Int).Mul(big.NewInt(int64(c.Min)), v), new(big.Int).Mul(big.NewInt(int64(c.Max)), v)
}

// undervotes is maxSelections·(Ballots − Blank) − ΣCounts for an honest
// count (0 where that is not a count).
func undervotes(c *Contest, cr *ContestResult) uint64 {
	if cr.Blank > cr.Ballots {
		return 0
	}
	sum, _, hi := selections(c, cr)
	if under := hi.Sub(hi, sum); under.Sign() >= 0 && under.IsUint64() {
		return under.Uint64()
	}
	return 0
}

// CheckContestBallots checks that each contest of r counts ballots[i]
// ballots: the number of ballots on the ledger that answer it
// (Product.Ballots). It returns the first error of ContestBallotErrors.
func CheckContestBallots(r *Result, ballots []uint64) error {
	if errs := ContestBallotErrors(r, ballots); len(errs) > 0 {
		return errs[0]
	}
	return nil
}

// ContestBallotErrors is one RESULT error for each contest of r that does
// not count ballots[i] ballots, or one for a list of another length.
func ContestBallotErrors(r *Result, ballots []uint64) []error {
	if len(r.Contests) != len(ballots) {
		return []error{resultErr("contests has %d entries, want %d", len(r.Contests), len(ballots))}
	}
	var errs []error
	for i, n := range ballots {
		if r.Contests[i].Ballots != n {
			errs = append(errs, resultErr("contests[%d] %q counts %d ballots, but %d ballots answer it", i, truncate(r.Contests[i].ID, 80), r.Contests[i].Ballots, n))
		}
	}
	return errs
}
