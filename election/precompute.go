package election

import (
	"crypto/ecdsa"
	"errors"
	"fmt"
	"io"
	"math/big"
	"sync"

	"github.com/fabvote/fabvote/crypto/votecode"
	"github.com/fabvote/fabvote/crypto/zkp"
)

// ErrPrecomputationUsed: a ballot precomputation serves one ballot. Its
// nonces in a second ballot would let anyone who sees both learn the
// difference of the two votes, and its proof randomness the vote itself.
var ErrPrecomputationUsed = errors.New("election: ballot precomputation already used (it serves one ballot)")

// BallotPrecomputation is everything of a ballot of one style that depends
// neither on the voter's selections nor on the voter's key: the encryption
// nonces r with r^N, and each validity proof's precomputation
// (zkp.PrecomputeValidity). It holds every exponentiation by N of the
// ballot, so that Finish has only cheap work left. It is secret, and it
// serves one ballot.
type BallotPrecomputation struct {
	p     *Prepared
	style int

	mu     sync.Mutex
	used   bool
	nonces []slotNonce                   // per ciphertext of the style, in ballot order
	proofs []*zkp.ValidityPrecomputation // per statement of the style, in ballot order
}

// slotNonce is one ciphertext's nonce r ∈ Z*_N and r^N mod N².
type slotNonce struct{ r, rN *big.Int }

// PrecomputeBallot draws the randomness of a ballot of the style of index
// style and does its exponentiations by N, contest by contest in ballot
// order (the contest's nonces, then its proofs' precomputations). random
// must be a cryptographically secure source (nil means crypto/rand).
// Errors: TOKEN for a style the election does not have.
func (p *Prepared) PrecomputeBallot(random io.Reader, style int) (*BallotPrecomputation, error) {
	return p.precomputeBallot(random, style, nil)
}

// precomputeBallot is PrecomputeBallot. Given known, the real branch of
// each of the style's statements in ballot order (what the selections
// encode to), it draws and computes nothing for those branches, as a
// prover that knows the choice needs nothing there, and Finish refuses
// other selections.
func (p *Prepared) precomputeBallot(random io.Reader, style int, known []int) (*BallotPrecomputation, error) {
	if style < 0 || style >= len(p.styles) {
		return nil, errorf(CodeToken, "ballot style %d; the election has %d", style, len(p.styles))
	}
	f := &p.styles[style]
	bp := &BallotPrecomputation{p: p, style: style}
	next := 0 // f.stmts index
	for _, ci := range f.contests {
		for j := 0; j < p.Layout.Contests[ci].Ciphertexts(); j++ {
			r, rN, err := p.PublicKey.NoncePower(random)
			if err != nil {
				return nil, fmt.Errorf("election: drawing a nonce: %w", err)
			}
			bp.nonces = append(bp.nonces, slotNonce{r: r, rN: rN})
		}
		for ; next < len(f.stmts) && p.statements[f.stmts[next]].contest == int(ci); next++ {
			st := &p.statements[f.stmts[next]]
			pc, err := p.precomputeProof(random, len(st.claim.Messages), known, len(bp.proofs))
			if err != nil {
				return nil, fmt.Errorf("election: precomputing a proof: %w", err)
			}
			bp.proofs = append(bp.proofs, pc)
		}
	}
	return bp, nil
}

// precomputeProof precomputes the proof of the i-th statement of a ballot,
// of branches branches, for its known real branch if known gives it.
func (p *Prepared) precomputeProof(random io.Reader, branches int, known []int, i int) (*zkp.ValidityPrecomputation, error) {
	if known == nil {
		return zkp.PrecomputeValidity(random, p.PublicKey, branches, p.Manifest.ChallengeBits)
	}
	if i >= len(known) {
		return nil, fmt.Errorf("election: %d known choices for more statements", len(known))
	}
	return zkp.PrecomputeValidityFor(random, p.PublicKey, branches, p.Manifest.ChallengeBits, known[i])
}

// Style is the index of the ballot style the precomputation is for.
func (bp *BallotPrecomputation) Style() int { return bp.style }

// Finish encrypts one selection per contest of the precomputation's style
// (in the style's order), proves every statement and signs everything with
// voter's key, whose token must name that style. It returns the ballot and
// its opening. It consumes the precomputation once voter, token and
// selections are checked: a second call fails with ErrPrecomputationUsed.
// Errors: the voter key's, the token's (TOKEN, also for a token of another
// style), the selections' (votecode.ErrInvalid, naming the contest).
func (bp *BallotPrecomputation) Finish(voter *ecdsa.PrivateKey, token []byte, sels []votecode.Selection) (*Ballot, *Opening, error) {
	p := bp.p
	voterPub, t, err := p.checkVoter(voter, token)
	if err != nil {
		return nil, nil, err
	}
	if int(t.Style) != bp.style {
		return nil, nil, errorf(CodeToken, "the token names ballot style %d, the precomputation is for style %d", t.Style, bp.style)
	}
	enc, err := p.encodeSelections(&p.styles[bp.style], sels)
	if err != nil {
		return nil, nil, err
	}
	return bp.finish(voter, voterPub, t.Pseudonym, token, enc)
}

// finish is Finish on a checked voter, token and encoded selections: it
// consumes the precomputation, encrypts, proves and signs.
func (bp *BallotPrecomputation) finish(voter *ecdsa.PrivateKey, voterPub []byte, pseudonym [PseudonymLen]byte, token []byte, enc []encodedContest) (*Ballot, *Opening, error) {
	cts, proofs, opening, err := bp.encryptAndProve(voterPub, pseudonym, enc)
	if err != nil {
		return nil, nil, err
	}
	b, err := bp.p.signedBallot(voter, voterPub, token, &bp.p.styles[bp.style], cts, proofs)
	if err != nil {
		return nil, nil, err
	}
	return b, opening, nil
}

// encryptAndProve consumes the precomputation and returns the ballot's
// ciphertext and proof fields for the encoded selections of the voter of
// key voterPub and pseudonym, and its opening.
func (bp *BallotPrecomputation) encryptAndProve(voterPub []byte, pseudonym [PseudonymLen]byte, enc []encodedContest) (cts, proofs []byte, opening *Opening, err error) {
	nonces, pcs, err := bp.take()
	if err != nil {
		return nil, nil, nil, err
	}
	return bp.p.encryptAndProve(voterPub, pseudonym, &bp.p.styles[bp.style], enc, nonces, pcs)
}

// take hands out the precomputation's values once.
func (bp *BallotPrecomputation) take() ([]slotNonce, []*zkp.ValidityPrecomputation, error) {
	bp.mu.Lock()
	defer bp.mu.Unlock()
	if bp.used {
		return nil, nil, ErrPrecomputationUsed
	}
	bp.used = true
	nonces, proofs := bp.nonces, bp.proofs
	bp.nonces, bp.proofs = nil, nil
	return nonces, proofs, nil
}

// checkVoter checks the voter's key and that token is the authority's
// token for it in this election, and returns the key's encoding and the
// parsed token.
func (p *Prepared) checkVoter(voter *ecdsa.PrivateKey, token []byte) ([]byte, Token, error) {
	if voter == nil || voter.Curve != p256 {
		return nil, Token{}, fmt.Errorf("election: voter key must be an ECDSA P-256 key")
	}
	voterPub, err := voter.PublicKey.Bytes()
	if err != nil {
		return nil, Token{}, fmt.Errorf("election: voter key: %w", err)
	}
	if err := p.VerifyToken(voterPub, token); err != nil {
		return nil, Token{}, fmt.Errorf("election: the token is not valid for this voter key and election: %w", err)
	}
	t, _ := ParseToken(token) // VerifyToken parsed it and checked its style
	return voterPub, t, nil
}

// signedBallot assembles the ballot of style f and signs it.
func (p *Prepared) signedBallot(voter *ecdsa.PrivateKey, voterPub, token []byte, f *styleForm, cts, proofs []byte) (*Ballot, error) {
	b := &Ballot{
		ElectionID: p.Manifest.ElectionID,
		VoterPub:   voterPub,
		Token:      append([]byte(nil), token...),
		Contests:   append([]byte(nil), f.contests...),
		Ciphertext: cts,
		Proof:      proofs,
	}
	if len(b.Proof) != f.proofLen {
		return nil, fmt.Errorf("election: proofs encode to %d bytes, the manifest implies %d", len(b.Proof), f.proofLen)
	}
	if err := b.Sign(voter); err != nil {
		return nil, err
	}
	return b, nil
}
