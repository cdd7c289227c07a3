package election

import (
	"crypto/ecdsa"
	"fmt"
	"io"
	"math/big"

	"github.com/fabvote/fabvote/crypto/paillier"
	"github.com/fabvote/fabvote/crypto/paillier/threshold"
	"github.com/fabvote/fabvote/crypto/votecode"
	"github.com/fabvote/fabvote/crypto/zkp"
)

// Prepared is a validated manifest with its keys parsed, ready to check many
// ballots. It is immutable and safe for concurrent use; the chaincode caches
// one per election because a manifest never changes once on the ledger.
type Prepared struct {
	Manifest       *Manifest
	ManifestDigest [32]byte // ManifestDigest of the canonical encoding
	PublicKey      *paillier.PublicKey
	Threshold      *threshold.PublicParams // nil for a single-key election
	Encoding       votecode.Encoding
	TokenKey       *ecdsa.PublicKey
	// Layout places the contests in the tally and says what a ballot
	// encrypts and proves for each (docs/PROTOCOL.md section 3.7).
	Layout     *votecode.Layout
	statements []statement // every proof a ballot carries, in order
	slots      int         // the ciphertexts a ballot carries
	proofLen   int
}

// Prepare validates m and parses its keys.
func Prepare(m *Manifest) (*Prepared, error) { return m.prepare() }

// ProofLen is the fixed length of a ballot's proofs in this election.
func (p *Prepared) ProofLen() int { return p.proofLen }

// Ciphertexts is the number of ciphertexts a ballot carries.
func (p *Prepared) Ciphertexts() int { return p.slots }

// ProofVerifier checks the validity proofs of one ballot, one item per
// statement (Prepared.ProofItems). The chaincode plugs in a batching
// implementation; DirectVerifier checks each proof on its own.
type ProofVerifier interface {
	Verify(items []zkp.BatchItem) error
}

// DirectVerifier verifies with zkp.VerifyValidity.
type DirectVerifier struct{}

// Verify implements ProofVerifier.
func (DirectVerifier) Verify(items []zkp.BatchItem) error {
	errs := make([]error, len(items))
	for i, it := range items {
		if errs[i] = zkp.VerifyValidity(it.Ctx, it.C, it.Proof); errs[i] != nil {
			break
		}
	}
	return BallotVerdict(errs)
}

// CheckShape performs the checks that need the manifest but no public-key
// cryptography: election id, ciphertext and proof lengths, and that every
// ciphertext is in Z*_{N²}. It returns the decoded ciphertexts.
// Errors: NO_ELECTION (wrong election), CIPHERTEXT, PROOF (wrong length).
func (p *Prepared) CheckShape(b *Ballot) ([]*big.Int, error) {
	if b.ElectionID != p.Manifest.ElectionID {
		return nil, errorf(CodeNoElection, "ballot is for election %q, not %q", b.ElectionID, p.Manifest.ElectionID)
	}
	w := p.PublicKey.CiphertextLen()
	if len(b.Ciphertext) != p.slots*w {
		return nil, errorf(CodeCiphertext, "ciphertext has %d bytes, want %d", len(b.Ciphertext), p.slots*w)
	}
	if len(b.Proof) != p.proofLen {
		return nil, errorf(CodeProof, "proof has %d bytes, want %d", len(b.Proof), p.proofLen)
	}
	cs := make([]*big.Int, p.slots)
	for i := range cs {
		c, err := p.PublicKey.DecodeCiphertext(b.Ciphertext[i*w : (i+1)*w])
		if err != nil {
			return nil, wrapf(CodeCiphertext, err, "%s", p.slotName(i))
		}
		cs[i] = c
	}
	return cs, nil
}

// CheckToken verifies the authority's token over (manifest, pseudonym, voter key).
func (p *Prepared) CheckToken(b *Ballot) error {
	return p.VerifyToken(b.VoterPub, b.Token)
}

// CheckProof verifies the validity proofs of a ballot whose ciphertexts
// are cs (from CheckShape). v nil means DirectVerifier.
func (p *Prepared) CheckProof(b *Ballot, cs []*big.Int, v ProofVerifier) error {
	items, err := p.ProofItems(b, cs)
	if err != nil {
		return err
	}
	if v == nil {
		v = DirectVerifier{}
	}
	if err := v.Verify(items); err != nil {
		return wrapf(CodeProof, err, "validity proof does not verify")
	}
	return nil
}

// CheckAuthorised is the ballot rule short of the proofs, cheapest first:
// shape and ciphertext ranges, the authority's token, the voter's
// signature. It returns the ciphertexts, whose validity proofs the caller
// checks next (alone with CheckProof, or in a batch through ProofItems).
// The chaincode, the validation plugin, the audit and CheckBallot all call
// it, so that the rule is written once.
func (p *Prepared) CheckAuthorised(b *Ballot) ([]*big.Int, error) {
	cs, err := p.CheckShape(b)
	if err != nil {
		return nil, err
	}
	if err := p.CheckToken(b); err != nil {
		return nil, err
	}
	if err := b.VerifySignature(); err != nil {
		return nil, err
	}
	return cs, nil
}

// CheckBallot runs every check that depends on the ballot and the manifest
// alone, cheapest first: CheckAuthorised, then the validity proofs. It does
// not check the voting window or duplicates (those need the ledger). v nil
// means DirectVerifier.
func (p *Prepared) CheckBallot(b *Ballot, v ProofVerifier) error {
	cs, err := p.CheckAuthorised(b)
	if err != nil {
		return err
	}
	return p.CheckProof(b, cs, v)
}

// CheckBallot checks token, signature and proof of b under m (no window, no
// duplicate check). It parses m every call; use Prepare for many ballots.
func CheckBallot(m *Manifest, b *Ballot) error {
	p, err := Prepare(m)
	if err != nil {
		return err
	}
	return p.CheckBallot(b, nil)
}

// NewBallot encrypts choice (0-based candidate index) under m, proves it is
// one of the candidates, and signs everything with voter's key.
func NewBallot(random io.Reader, m *Manifest, voter *ecdsa.PrivateKey, token []byte, choice int) (*Ballot, error) {
	p, err := Prepare(m)
	if err != nil {
		return nil, err
	}
	return p.NewBallot(random, voter, token, choice)
}

// NewBallot is NewBallot with a prepared manifest (for bulk generation).
func (p *Prepared) NewBallot(random io.Reader, voter *ecdsa.PrivateKey, token []byte, choice int) (*Ballot, error) {
	if choice < 0 || choice >= len(p.Manifest.Candidates) {
		return nil, fmt.Errorf("election: choice %d, want 0..%d", choice, len(p.Manifest.Candidates)-1)
	}
	return p.NewBallotSelections(random, voter, token, []votecode.Selection{{Options: []int{choice}}})
}

// NewBallotSelections encrypts one selection per contest of the layout,
// proves every statement, and signs everything with voter's key.
func (p *Prepared) NewBallotSelections(random io.Reader, voter *ecdsa.PrivateKey, token []byte, sels []votecode.Selection) (*Ballot, error) {
	if voter == nil || voter.Curve != p256 {
		return nil, fmt.Errorf("election: voter key must be an ECDSA P-256 key")
	}
	voterPub, err := voter.PublicKey.Bytes()
	if err != nil {
		return nil, fmt.Errorf("election: voter key: %w", err)
	}
	if err := p.VerifyToken(voterPub, token); err != nil {
		return nil, fmt.Errorf("election: the token is not valid for this voter key and election: %w", err)
	}
	pseudonym, _, _ := ParseToken(token) // VerifyToken parsed it
	cts, proofs, err := p.encryptAndProve(random, voterPub, pseudonym, sels)
	if err != nil {
		return nil, err
	}
	b := &Ballot{
		ElectionID: p.Manifest.ElectionID,
		VoterPub:   voterPub,
		Token:      append([]byte(nil), token...),
		Ciphertext: cts,
		Proof:      proofs,
	}
	if len(b.Proof) != p.proofLen {
		return nil, fmt.Errorf("election: proofs encode to %d bytes, the manifest implies %d", len(b.Proof), p.proofLen)
	}
	if err := b.Sign(voter); err != nil {
		return nil, err
	}
	return b, nil
}
