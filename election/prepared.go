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
	Messages       []*big.Int // M^0 … M^(p-1), shared by every proof context (read-only)
	proofLen       int
}

// Prepare validates m and parses its keys.
func Prepare(m *Manifest) (*Prepared, error) { return m.prepare() }

// ProofLen is the fixed length of an encoded validity proof in this election.
func (p *Prepared) ProofLen() int { return p.proofLen }

// ProofContext returns the zkp context binding this manifest, the voter's
// pseudonym and voterPub.
func (p *Prepared) ProofContext(voterPub []byte, pseudonym [PseudonymLen]byte) *zkp.Context {
	return &zkp.Context{
		ManifestDigest: p.ManifestDigest,
		ElectionID:     p.Manifest.ElectionID,
		PublicKey:      p.PublicKey,
		Messages:       p.Messages,
		Pseudonym:      pseudonym,
		VoterKeyHash:   VoterKeyHash(voterPub),
		ChallengeBits:  p.Manifest.ChallengeBits,
	}
}

// ProofVerifier checks one validity proof. The chaincode plugs in a batching
// implementation; DirectVerifier checks each proof on its own.
type ProofVerifier interface {
	Verify(ctx *zkp.Context, c *big.Int, proof *zkp.ValidityProof) error
}

// DirectVerifier verifies with zkp.VerifyValidity.
type DirectVerifier struct{}

// Verify implements ProofVerifier.
func (DirectVerifier) Verify(ctx *zkp.Context, c *big.Int, proof *zkp.ValidityProof) error {
	return zkp.VerifyValidity(ctx, c, proof)
}

// CheckShape performs the checks that need the manifest but no public-key
// cryptography: election id, ciphertext and proof lengths, and that the
// ciphertext is in Z*_{N²}. It returns the decoded ciphertext.
// Errors: NO_ELECTION (wrong election), CIPHERTEXT, PROOF (wrong length).
func (p *Prepared) CheckShape(b *Ballot) (*big.Int, error) {
	if b.ElectionID != p.Manifest.ElectionID {
		return nil, errorf(CodeNoElection, "ballot is for election %q, not %q", b.ElectionID, p.Manifest.ElectionID)
	}
	if len(b.Ciphertext) != p.PublicKey.CiphertextLen() {
		return nil, errorf(CodeCiphertext, "ciphertext has %d bytes, want %d", len(b.Ciphertext), p.PublicKey.CiphertextLen())
	}
	if len(b.Proof) != p.proofLen {
		return nil, errorf(CodeProof, "proof has %d bytes, want %d", len(b.Proof), p.proofLen)
	}
	c, err := p.PublicKey.DecodeCiphertext(b.Ciphertext)
	if err != nil {
		return nil, wrapf(CodeCiphertext, err, "ciphertext")
	}
	return c, nil
}

// CheckToken verifies the authority's token over (manifest, pseudonym, voter key).
func (p *Prepared) CheckToken(b *Ballot) error {
	return p.VerifyToken(b.VoterPub, b.Token)
}

// ParseProof decodes the proof (canonical, every value range-checked) and
// returns it with the context it must verify under. Errors: PROOF.
func (p *Prepared) ParseProof(b *Ballot) (*zkp.Context, *zkp.ValidityProof, error) {
	ctx := p.ProofContext(b.VoterPub, b.Pseudonym())
	proof, err := zkp.ParseValidityProof(ctx, b.Proof)
	if err != nil {
		return nil, nil, wrapf(CodeProof, err, "proof does not decode")
	}
	return ctx, proof, nil
}

// CheckProof verifies the validity proof of a ballot whose ciphertext is c
// (from CheckShape). v nil means DirectVerifier.
func (p *Prepared) CheckProof(b *Ballot, c *big.Int, v ProofVerifier) error {
	ctx, proof, err := p.ParseProof(b)
	if err != nil {
		return err
	}
	if v == nil {
		v = DirectVerifier{}
	}
	if err := v.Verify(ctx, c, proof); err != nil {
		return wrapf(CodeProof, err, "validity proof does not verify")
	}
	return nil
}

// CheckAuthorised is the ballot rule short of the proof, cheapest first:
// shape and ciphertext range, the authority's token, the voter's
// signature. It returns the ciphertext, whose validity proof the caller
// checks next (alone with CheckProof, or in a batch). The chaincode, the
// validation plugin, the audit and CheckBallot all call it, so that the
// rule is written once.
func (p *Prepared) CheckAuthorised(b *Ballot) (*big.Int, error) {
	c, err := p.CheckShape(b)
	if err != nil {
		return nil, err
	}
	if err := p.CheckToken(b); err != nil {
		return nil, err
	}
	if err := b.VerifySignature(); err != nil {
		return nil, err
	}
	return c, nil
}

// CheckBallot runs every check that depends on the ballot and the manifest
// alone, cheapest first: CheckAuthorised, then the validity proof. It does
// not check the voting window or duplicates (those need the ledger). v nil
// means DirectVerifier.
func (p *Prepared) CheckBallot(b *Ballot, v ProofVerifier) error {
	c, err := p.CheckAuthorised(b)
	if err != nil {
		return err
	}
	return p.CheckProof(b, c, v)
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
	if voter == nil || voter.Curve != p256 {
		return nil, fmt.Errorf("election: voter key must be an ECDSA P-256 key")
	}
	voterPub, err := voter.PublicKey.Bytes()
	if err != nil {
		return nil, fmt.Errorf("election: voter key: %w", err)
	}
	if choice < 0 || choice >= len(p.Manifest.Candidates) {
		return nil, fmt.Errorf("election: choice %d, want 0..%d", choice, len(p.Manifest.Candidates)-1)
	}
	if err := p.VerifyToken(voterPub, token); err != nil {
		return nil, fmt.Errorf("election: the token is not valid for this voter key and election: %w", err)
	}
	msg, err := p.Encoding.Encode(choice)
	if err != nil {
		return nil, fmt.Errorf("election: encoding choice: %w", err)
	}
	c, r, err := p.PublicKey.Encrypt(random, msg)
	if err != nil {
		return nil, fmt.Errorf("election: encrypting: %w", err)
	}
	pseudonym, _, _ := ParseToken(token) // VerifyToken parsed it
	ctx := p.ProofContext(voterPub, pseudonym)
	proof, err := zkp.ProveValidity(random, ctx, c, choice, r)
	if err != nil {
		return nil, fmt.Errorf("election: proving validity: %w", err)
	}
	b := &Ballot{
		ElectionID: p.Manifest.ElectionID,
		VoterPub:   voterPub,
		Token:      append([]byte(nil), token...),
		Ciphertext: p.PublicKey.EncodeCiphertext(c),
		Proof:      proof.Marshal(ctx),
	}
	if len(b.Proof) != p.proofLen {
		return nil, fmt.Errorf("election: proof encodes to %d bytes, the manifest implies %d", len(b.Proof), p.proofLen)
	}
	if err := b.Sign(voter); err != nil {
		return nil, err
	}
	return b, nil
}
