package election

import (
	"bytes"
	"encoding/json"
	"math/big"

	"github.com/fabvote/fabvote/crypto/paillier/threshold"
	"github.com/fabvote/fabvote/crypto/zkp"
)

// MaxResultSize bounds an encoded result (64 trustees' partial decryptions at 4096 bits fit easily).
const MaxResultSize = 512 * 1024

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
	ElectionID      string   `json:"electionID"`
	BallotCount     uint64   `json:"ballotCount"`
	Product         []byte   `json:"product"`
	Tally           []byte   `json:"tally"`
	Counts          []uint64 `json:"counts"`
	DecryptionNonce []byte   `json:"decryptionNonce"`
	Partials        [][]byte `json:"partials"`
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
	if c.Counts == nil {
		c.Counts = []uint64{}
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

// VerifyResult checks r against m: the product decodes, the decryption of the
// product is Tally (decryption proof with a single key; every partial
// decryption's proof and their combination with trustees), Tally's base-M
// digits are Counts, and Σ Counts = BallotCount. It does not check that
// Product is the product of the ballots on the ledger: the chaincode and
// `fabvote verify` recompute that themselves.
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
	if r.ElectionID != p.Manifest.ElectionID {
		return resultErr("result is for election %q, not %q", truncate(r.ElectionID, 80), p.Manifest.ElectionID)
	}
	if err := p.checkCounts(r); err != nil {
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

// checkCounts checks that there is one count per candidate, that they sum
// to BallotCount, and that so many ballots cannot wrap the tally modulo N.
func (p *Prepared) checkCounts(r *Result) error {
	m := p.Manifest
	if len(r.Counts) != len(m.Candidates) {
		return resultErr("counts has %d entries, want one per candidate (%d)", len(r.Counts), len(m.Candidates))
	}
	var sum uint64
	for i, c := range r.Counts {
		if sum+c < sum {
			return resultErr("counts overflow at counts[%d]", i)
		}
		sum += c
	}
	if sum != r.BallotCount {
		return resultErr("counts sum to %d, but ballotCount is %d (if the counts are the tally's base-2^%d digits, a candidate's count reached 2^%d and overflowed its digit)",
			sum, r.BallotCount, m.EncodingBits, m.EncodingBits)
	}
	return p.checkNoWrap(r.BallotCount)
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

// checkTallyDigits checks that the tally's base-M digits are the counts.
func (p *Prepared) checkTallyDigits(r *Result, tally *big.Int) error {
	counts, err := p.Encoding.Decode(tally)
	if err != nil {
		return wrapf(CodeResult, err, "tally")
	}
	for i := range counts {
		if counts[i] != r.Counts[i] {
			return resultErr("counts[%d] (%s) is %d, but the tally says %d", i, truncate(p.Manifest.Candidates[i], 40), r.Counts[i], counts[i])
		}
	}
	return nil
}

// checkNoWrap requires ballotCount · M^(p-1) < N. Every valid ballot
// encrypts some M^j with j ≤ p-1, so the true tally Σ n_j·M^j is at most
// that bound; below N, decryption returns it exactly (not reduced mod N).
// This is the premise of the exactness argument in docs/PROTOCOL.md
// section 4.3; no realistic election comes near it (for 2048-bit N it
// needs more than 2^(2047 - b·(p-1)) ballots).
func (p *Prepared) checkNoWrap(ballotCount uint64) error {
	top := new(big.Int).Lsh(big.NewInt(1), p.Encoding.Bits*uint(p.Encoding.Candidates-1))
	if top.Mul(top, new(big.Int).SetUint64(ballotCount)).Cmp(p.PublicKey.N) >= 0 {
		return resultErr("ballotCount %d times M^%d reaches N: the tally could have wrapped modulo N", ballotCount, p.Encoding.Candidates-1)
	}
	return nil
}
