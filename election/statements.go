package election

import (
	"errors"
	"fmt"
	"io"
	"math/big"

	"github.com/fabvote/fabvote/crypto/votecode"
	"github.com/fabvote/fabvote/crypto/zkp"
)

// statement is one validity proof a ballot carries: a claim of the layout
// about the ciphertexts of one contest, which begin at slot firstSlot of
// the ballot's ciphertexts, and where its proof lies in the ballot's proof
// field.
type statement struct {
	contest   int
	index     int // within the contest
	firstSlot int
	claim     votecode.Statement
	proofOff  int
	proofLen  int
}

// prepareStatements lists the statements of the layout in ballot order
// (contest by contest), with the offsets of their ciphertexts and proofs,
// and lets zkp check each statement's context (key size against challenge
// length, the messages). Every packed tally must fit below N, and every
// ballot within MaxBallotSize.
func (p *Prepared) prepareStatements() error {
	if err := p.Layout.FitsModulus(p.PublicKey.N); err != nil {
		return manifestErr("contests: %v (N has %d bits)", err, p.PublicKey.N.BitLen())
	}
	branch := p.PublicKey.CiphertextLen() + p.Manifest.ChallengeBits/8 + p.PublicKey.ModulusLen()
	for ci := range p.Layout.Contests {
		c := &p.Layout.Contests[ci]
		for k, claim := range c.Statements() {
			st := statement{contest: ci, index: k, firstSlot: p.slots, claim: claim, proofOff: p.proofLen, proofLen: len(claim.Messages) * branch}
			if err := p.statementContext(&st, [32]byte{}, [PseudonymLen]byte{}).Check(); err != nil {
				return manifestErr("proof context of contest %d: %v", ci, err)
			}
			p.statements = append(p.statements, st)
			p.proofLen += st.proofLen
		}
		p.slots += c.Ciphertexts()
	}
	if n := p.ballotLen(); n > MaxBallotSize {
		return manifestErr("contests: a ballot would have %d bytes, more than the %d a ballot may have", n, MaxBallotSize)
	}
	return nil
}

// ballotLen is the length of every encoded ballot of the election.
func (p *Prepared) ballotLen() int {
	n := 1 + 6*4 + len(p.Manifest.ElectionID) + VoterPubLen + TokenLen + SignatureLen
	return n + p.slots*p.PublicKey.CiphertextLen() + p.proofLen
}

// statementContext is the zkp context of st for a voter: it binds the
// manifest, the voter's pseudonym and key (by VoterKeyHash, hashed once per
// ballot by the caller), and st's messages.
func (p *Prepared) statementContext(st *statement, voterKeyHash [32]byte, pseudonym [PseudonymLen]byte) *zkp.Context {
	return &zkp.Context{
		ManifestDigest: p.ManifestDigest,
		ElectionID:     p.Manifest.ElectionID,
		PublicKey:      p.PublicKey,
		Messages:       st.claim.Messages,
		Pseudonym:      pseudonym,
		VoterKeyHash:   voterKeyHash,
		ChallengeBits:  p.Manifest.ChallengeBits,
	}
}

// slotName names ciphertext i of a ballot in errors.
func (p *Prepared) slotName(i int) string {
	if p.slots == 1 {
		return "ciphertext"
	}
	return fmt.Sprintf("ciphertext %d", i)
}

// statementErr prefixes err with the statement it is about when a ballot
// has more than one.
func statementErr(n, i int, err error) error {
	if n == 1 {
		return err
	}
	return fmt.Errorf("proof %d: %w", i, err)
}

// BallotVerdict is the verdict on a ballot from the verdicts on its proofs,
// one per statement in order: nil, or the first error, naming its proof
// when the ballot has several. A ballot with no proof is no valid ballot.
func BallotVerdict(errs []error) error {
	if len(errs) == 0 {
		return errors.New("the ballot carries no proof")
	}
	for i, err := range errs {
		if err != nil {
			return statementErr(len(errs), i, err)
		}
	}
	return nil
}

// statementCiphertext is Π cs[firstSlot+Slots[i]]^Exps[i] mod mod: from a
// ballot's ciphertexts (mod N²), the ciphertext st's proof is about; from
// their nonces (mod N), its nonce. A statement on one ciphertext is that
// ciphertext itself.
func statementCiphertext(st *statement, cs []*big.Int, mod *big.Int) *big.Int {
	claim := st.claim
	if len(claim.Slots) == 1 && claim.Exps[0] == 1 {
		return cs[st.firstSlot+claim.Slots[0]]
	}
	x := big.NewInt(1)
	for i, slot := range claim.Slots {
		y := cs[st.firstSlot+slot]
		if claim.Exps[i] != 1 {
			y = new(big.Int).Exp(y, big.NewInt(claim.Exps[i]), mod)
		}
		x.Mul(x, y).Mod(x, mod)
	}
	return x
}

// ProofItems decodes a ballot's proofs (canonical, every value
// range-checked) and returns one batch item per statement: its context,
// the ciphertext it is about (derived from cs, the ballot's ciphertexts
// from CheckShape) and its proof. Errors: PROOF.
func (p *Prepared) ProofItems(b *Ballot, cs []*big.Int) ([]zkp.BatchItem, error) {
	if len(cs) != p.slots || len(b.Proof) != p.proofLen {
		return nil, errorf(CodeProof, "the ballot has %d ciphertexts and %d proof bytes, want %d and %d", len(cs), len(b.Proof), p.slots, p.proofLen)
	}
	items := make([]zkp.BatchItem, len(p.statements))
	keyHash, pseudonym := VoterKeyHash(b.VoterPub), b.Pseudonym()
	for i := range p.statements {
		st := &p.statements[i]
		ctx := p.statementContext(st, keyHash, pseudonym)
		proof, err := zkp.ParseValidityProof(ctx, b.Proof[st.proofOff:st.proofOff+st.proofLen])
		if err != nil {
			return nil, wrapf(CodeProof, statementErr(len(p.statements), i, err), "proof does not decode")
		}
		items[i] = zkp.BatchItem{Ctx: ctx, C: statementCiphertext(st, cs, p.PublicKey.NSquared), Proof: proof}
	}
	return items, nil
}

// VerifyBallotProofs verifies the proofs of many ballots (each its
// ProofItems) in one batch, with weights from random (nil: crypto/rand;
// see zkp.VerifyBatch for why voters must not predict them), and returns
// one verdict per ballot: nil, or a PROOF error naming its first proof
// that fails.
func VerifyBallotProofs(random io.Reader, ballots [][]zkp.BatchItem) []error {
	var flat []zkp.BatchItem
	for _, items := range ballots {
		flat = append(flat, items...)
	}
	errs := zkp.VerifyBatch(random, flat)
	out := make([]error, len(ballots))
	for i, items := range ballots {
		if err := BallotVerdict(errs[:len(items)]); err != nil {
			out[i] = wrapf(CodeProof, err, "validity proof does not verify")
		}
		errs = errs[len(items):]
	}
	return out
}

// encryptAndProve encrypts one selection per contest and proves every
// statement, contest by contest (its ciphertexts, then its proofs, so that
// a deterministic reader gives reproducible ballots), and returns the
// ballot's ciphertext and proof fields.
func (p *Prepared) encryptAndProve(random io.Reader, voterPub []byte, pseudonym [PseudonymLen]byte, sels []votecode.Selection) (cts, proofs []byte, err error) {
	if len(sels) != len(p.Layout.Contests) {
		return nil, nil, fmt.Errorf("election: %d selections for %d contests", len(sels), len(p.Layout.Contests))
	}
	var cs, rs []*big.Int
	keyHash := VoterKeyHash(voterPub)
	next := 0 // the next statement
	for ci := range p.Layout.Contests {
		plaintexts, choices, err := p.Layout.Contests[ci].Encode(sels[ci])
		if err != nil {
			return nil, nil, fmt.Errorf("election: contest %d: %w", ci, err)
		}
		for _, m := range plaintexts {
			c, r, err := p.PublicKey.Encrypt(random, m)
			if err != nil {
				return nil, nil, fmt.Errorf("election: encrypting: %w", err)
			}
			cs, rs = append(cs, c), append(rs, r)
			cts = append(cts, p.PublicKey.EncodeCiphertext(c)...)
		}
		for _, choice := range choices {
			st := &p.statements[next]
			next++
			ctx := p.statementContext(st, keyHash, pseudonym)
			proof, err := zkp.ProveValidity(random, ctx, statementCiphertext(st, cs, p.PublicKey.NSquared), choice, statementCiphertext(st, rs, p.PublicKey.N))
			if err != nil {
				return nil, nil, fmt.Errorf("election: proving validity: %w", err)
			}
			proofs = append(proofs, proof.Marshal(ctx)...)
		}
	}
	return cts, proofs, nil
}
