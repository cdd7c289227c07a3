package election

import (
	"bytes"
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
	TokenKey       *ecdsa.PublicKey
	// Layout places the contests in the tally and says what a ballot
	// encrypts and proves for each (docs/PROTOCOL.md section 3.7).
	Layout      *votecode.Layout
	statements  []statement // every contest's proofs, in manifest order
	slots       int         // every contest's ciphertexts
	contestSlot []int       // each contest's first slot
	styles      []styleForm // per style, what its ballots carry
}

// Prepare validates m and parses its keys.
func Prepare(m *Manifest) (*Prepared, error) { return m.prepare() }

// Slots is the number of ciphertexts of every contest together: the
// length of the slices CheckShape returns.
func (p *Prepared) Slots() int { return p.slots }

// ProofVerifier checks the validity proofs of one ballot
// (Prepared.ProofItems). The chaincode plugs in a batching
// implementation; DirectVerifier checks each proof on its own.
type ProofVerifier interface {
	Verify(ps Proofs) error
}

// DirectVerifier verifies with zkp.VerifyValidity.
type DirectVerifier struct{}

// Verify implements ProofVerifier.
func (DirectVerifier) Verify(ps Proofs) error {
	errs := make([]error, len(ps.Items))
	for i, it := range ps.Items {
		if errs[i] = zkp.VerifyValidity(it.Ctx, it.C, it.Proof); errs[i] != nil {
			break
		}
	}
	return ps.Verdict(errs)
}

// form is the style form of b's token. It reads the style byte alone:
// ParseBallot checked the token's form once, and VerifyToken checks its
// signature. Errors: DECODE for a token of the wrong length, TOKEN for a
// style the election does not have.
func (p *Prepared) form(b *Ballot) (*styleForm, error) {
	if len(b.Token) != TokenLen {
		return nil, errorf(CodeDecode, "token has %d bytes, want %d", len(b.Token), TokenLen)
	}
	style, err := p.checkStyle(b.Token[PseudonymLen])
	if err != nil {
		return nil, err
	}
	return &p.styles[style], nil
}

// CheckShape performs the checks that need the manifest but no public-key
// cryptography: election id, the ballot's contests against its token's
// style, ciphertext and proof lengths, and that every ciphertext is in
// Z*_{N²}. It returns the decoded ciphertexts at their slots among every
// contest's (nil at the slots of contests the style does not have).
// Errors: NO_ELECTION (wrong election), TOKEN (no such style), the
// contests' codes (checkContestList), CIPHERTEXT, PROOF (wrong length).
func (p *Prepared) CheckShape(b *Ballot) ([]*big.Int, error) {
	if b.ElectionID != p.Manifest.ElectionID {
		return nil, errorf(CodeNoElection, "ballot is for election %q, not %q", b.ElectionID, p.Manifest.ElectionID)
	}
	f, err := p.form(b)
	if err != nil {
		return nil, err
	}
	if err := p.checkContestList(b.Contests, f); err != nil {
		return nil, err
	}
	w := p.PublicKey.CiphertextLen()
	if len(b.Ciphertext) != len(f.slots)*w {
		return nil, errorf(CodeCiphertext, "ciphertext has %d bytes, want %d", len(b.Ciphertext), len(f.slots)*w)
	}
	if len(b.Proof) != f.proofLen {
		return nil, errorf(CodeProof, "proof has %d bytes, want %d", len(b.Proof), f.proofLen)
	}
	cs := make([]*big.Int, p.slots)
	for i, slot := range f.slots {
		c, err := p.PublicKey.DecodeCiphertext(b.Ciphertext[i*w : (i+1)*w])
		if err != nil {
			return nil, wrapf(CodeCiphertext, err, "%s", p.slotName(f, i))
		}
		cs[slot] = c
	}
	return cs, nil
}

// checkContestList checks that a ballot's contests are exactly its
// style's, in the manifest's order, with one code per way to miss:
// NOT_IN_STYLE, CONTEST_REPEAT, CONTEST_ORDER, CONTEST_MISSING.
func (p *Prepared) checkContestList(list []byte, f *styleForm) error {
	if bytes.Equal(list, f.contests) {
		return nil // every valid ballot: the rest names what is wrong
	}
	var inStyle, seen [MaxContests]bool
	for _, ci := range f.contests {
		inStyle[ci] = true
	}
	for i, ci := range list {
		switch {
		case int(ci) >= len(p.Manifest.Contests) || !inStyle[ci]:
			return errorf(CodeNotInStyle, "contests[%d] is contest %d, which is not in the ballot's style", i, ci)
		case seen[ci]:
			return errorf(CodeContestRepeat, "contests[%d] repeats contest %q", i, p.Manifest.Contests[ci].ID)
		case i > 0 && ci < list[i-1]:
			return errorf(CodeContestOrder, "contests[%d] %q comes after %q, against the manifest's order", i, p.Manifest.Contests[ci].ID, p.Manifest.Contests[list[i-1]].ID)
		}
		seen[ci] = true
	}
	if len(list) < len(f.contests) {
		for _, ci := range f.contests {
			if !seen[ci] {
				return errorf(CodeContestMissing, "the ballot does not answer contest %q of its style", p.Manifest.Contests[ci].ID)
			}
		}
	}
	return nil
}

// slotName names ciphertext i of a ballot of style f in errors.
func (p *Prepared) slotName(f *styleForm, i int) string {
	if len(f.slots) == 1 {
		return "ciphertext"
	}
	return fmt.Sprintf("ciphertext %d", i)
}

// CheckToken verifies the authority's token over (manifest, pseudonym, voter key).
func (p *Prepared) CheckToken(b *Ballot) error {
	return p.VerifyToken(b.VoterPub, b.Token)
}

// CheckProof verifies the validity proofs of a ballot whose ciphertexts
// are cs (from CheckShape). v nil means DirectVerifier.
func (p *Prepared) CheckProof(b *Ballot, cs []*big.Int, v ProofVerifier) error {
	ps, err := p.ProofItems(b, cs)
	if err != nil {
		return err
	}
	if v == nil {
		v = DirectVerifier{}
	}
	return v.Verify(ps)
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

// NewBallot encrypts choice (0-based option index) in the one contest of
// m, proves it is one of the options, and signs everything with voter's key.
func NewBallot(random io.Reader, m *Manifest, voter *ecdsa.PrivateKey, token []byte, choice int) (*Ballot, error) {
	p, err := Prepare(m)
	if err != nil {
		return nil, err
	}
	return p.NewBallot(random, voter, token, choice)
}

// NewBallot is NewBallot with a prepared manifest (for bulk generation).
func (p *Prepared) NewBallot(random io.Reader, voter *ecdsa.PrivateKey, token []byte, choice int) (*Ballot, error) {
	if len(p.Manifest.Contests) != 1 {
		return nil, fmt.Errorf("election: the election has %d contests; a ballot needs a selection for each", len(p.Manifest.Contests))
	}
	if n := len(p.Manifest.Contests[0].Options); choice < 0 || choice >= n {
		return nil, fmt.Errorf("election: choice %d, want 0..%d", choice, n-1)
	}
	return p.NewBallotSelections(random, voter, token, []votecode.Selection{{Options: []int{choice}}})
}

// NewBallotSelections encrypts one selection per contest of the token's
// style (in the style's order), proves every statement, and signs
// everything with voter's key: PrecomputeBallot and Finish in one call,
// except that knowing the selections it draws and computes nothing for the
// real branch of any proof.
func (p *Prepared) NewBallotSelections(random io.Reader, voter *ecdsa.PrivateKey, token []byte, sels []votecode.Selection) (*Ballot, error) {
	voterPub, t, err := p.checkVoter(voter, token)
	if err != nil {
		return nil, err
	}
	// Knowing the selections, the precomputation skips every real branch.
	style, err := p.checkStyle(t.Style)
	if err != nil {
		return nil, err
	}
	enc, err := p.encodeSelections(&p.styles[style], sels)
	if err != nil {
		return nil, err
	}
	var known []int
	for _, e := range enc {
		known = append(known, e.choices...)
	}
	bp, err := p.precomputeBallot(random, style, known)
	if err != nil {
		return nil, err
	}
	// The voter, the token and the selections are checked above: finish
	// does not check them again.
	b, _, err := bp.finish(voter, voterPub, t.Pseudonym, token, enc)
	return b, err
}

// TokenStyle is the index of the ballot style token names, checked to be
// one of the election's. Errors: DECODE, TOKEN.
func (p *Prepared) TokenStyle(token []byte) (int, error) {
	t, err := ParseToken(token)
	if err != nil {
		return 0, err
	}
	return p.checkStyle(t.Style)
}

// checkStyle is style as an index of the election's styles. Errors: TOKEN.
func (p *Prepared) checkStyle(style byte) (int, error) {
	if int(style) >= len(p.styles) {
		return 0, errorf(CodeToken, "token names style %d; the election has %d", style, len(p.styles))
	}
	return int(style), nil
}
