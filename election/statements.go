package election

import (
	"fmt"
	"io"
	"math/big"

	"github.com/fabvote/fabvote/crypto/votecode"
	"github.com/fabvote/fabvote/crypto/zkp"
)

// statement is one validity proof a ballot may carry: a claim of the
// layout about the ciphertexts of one contest, which begin at slot
// firstSlot of the election's slots (every contest's ciphertexts, in
// manifest order).
type statement struct {
	contest   int
	index     int // within the contest
	firstSlot int
	claim     votecode.Statement
	proofLen  int
	// limit: the claim is a per-option contest's count of selections,
	// whose failure means a selection outside the contest's limits.
	limit bool
}

// styleForm is what a ballot of one style carries: its contests, the
// slots of their ciphertexts and their statements, in ballot order, with
// each proof's offset in the proof field.
type styleForm struct {
	contests  []byte
	slots     []int // election slots, in ballot order
	stmts     []int // indexes into Prepared.statements, in ballot order
	proofOffs []int
	proofLen  int
}

// prepareStatements lists the statements of the layout contest by
// contest, lets zkp check each one's context (key size against challenge
// length, the messages), and prepares each style's form. Every packed
// tally must fit below N, and every style's ballot within MaxBallotSize.
func (p *Prepared) prepareStatements() error {
	if err := p.Layout.FitsModulus(p.PublicKey.N); err != nil {
		return manifestErr("contests: %v (N has %d bits)", err, p.PublicKey.N.BitLen())
	}
	branch := p.PublicKey.CiphertextLen() + p.Manifest.ChallengeBits/8 + p.PublicKey.ModulusLen()
	for ci := range p.Layout.Contests {
		c := &p.Layout.Contests[ci]
		p.contestSlot = append(p.contestSlot, p.slots)
		for k, claim := range c.Statements() {
			st := statement{contest: ci, index: k, firstSlot: p.slots, claim: claim, proofLen: len(claim.Messages) * branch,
				limit: c.Kind == votecode.PerOption && k == c.Ciphertexts()}
			if err := p.statementContext(&st, [32]byte{}, [PseudonymLen]byte{}).Check(); err != nil {
				return manifestErr("proof context of contests[%d]: %v", ci, err)
			}
			p.statements = append(p.statements, st)
		}
		p.slots += c.Ciphertexts()
	}
	for si := range p.Manifest.Styles {
		f := p.newStyleForm(si)
		if n := p.ballotLen(&f); n > MaxBallotSize {
			return manifestErr("styles[%d]: a ballot would have %d bytes, more than the %d a ballot may have", si, n, MaxBallotSize)
		}
		p.styles = append(p.styles, f)
	}
	return nil
}

// newStyleForm lays out the ballots of the style of index style.
func (p *Prepared) newStyleForm(style int) styleForm {
	var f styleForm
	for _, ci := range p.Manifest.StyleContests(style) {
		f.contests = append(f.contests, byte(ci))
		for j := 0; j < p.Layout.Contests[ci].Ciphertexts(); j++ {
			f.slots = append(f.slots, p.contestSlot[ci]+j)
		}
		for k := range p.statements {
			if p.statements[k].contest == ci {
				f.stmts = append(f.stmts, k)
				f.proofOffs = append(f.proofOffs, f.proofLen)
				f.proofLen += p.statements[k].proofLen
			}
		}
	}
	return f
}

// ballotLen is the length of every encoded ballot of style form f.
func (p *Prepared) ballotLen(f *styleForm) int {
	n := 1 + 7*4 + len(p.Manifest.ElectionID) + VoterPubLen + TokenLen + len(f.contests) + SignatureLen
	return n + len(f.slots)*p.PublicKey.CiphertextLen() + f.proofLen
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

// statementName names st in errors: its contest, and which of the
// contest's proofs it is when there are several.
func (p *Prepared) statementName(st *statement) string {
	name := fmt.Sprintf("contest %q", p.Manifest.Contests[st.contest].ID)
	switch c := &p.Layout.Contests[st.contest]; {
	case st.limit:
		return name + ": the proof of the number of selections"
	case c.Kind == votecode.PerOption && st.index == c.Options:
		return name + ": the proof of the blank digit"
	case c.Kind == votecode.PerOption:
		return fmt.Sprintf("%s: the proof of option %d", name, st.index)
	}
	return name
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

// Proofs are a ballot's validity proofs, ready to verify: one batch item
// per statement, in ballot order.
type Proofs struct {
	Items []zkp.BatchItem
	p     *Prepared
	stmts []int
}

// Verdict is the verdict on the ballot from the verdicts on its proofs
// (errs, one per item): nil, or an error naming the first proof that
// fails. It is LIMIT when that proof is a contest's count of selections,
// else PROOF. A ballot with no proof is no valid ballot.
func (ps Proofs) Verdict(errs []error) error {
	if len(errs) == 0 || len(errs) != len(ps.Items) {
		return errorf(CodeProof, "the ballot carries %d proofs, with %d verdicts", len(ps.Items), len(errs))
	}
	for i, err := range errs {
		if err == nil {
			continue
		}
		if ps.p == nil { // proofs not from ProofItems: no statement to name
			return wrapf(CodeProof, err, "proof %d does not verify", i)
		}
		st := &ps.p.statements[ps.stmts[i]]
		code := CodeProof
		if st.limit {
			code = CodeLimit
		}
		return wrapf(code, err, "%s does not verify", ps.p.statementName(st))
	}
	return nil
}

// ProofItems decodes a ballot's proofs (canonical, every value
// range-checked) and returns one batch item per statement of its style:
// its context, the ciphertext it is about (derived from cs, the
// ciphertexts from CheckShape) and its proof. Errors: PROOF.
func (p *Prepared) ProofItems(b *Ballot, cs []*big.Int) (Proofs, error) {
	f, err := p.form(b)
	if err != nil {
		return Proofs{}, err
	}
	if len(cs) != p.slots || len(b.Proof) != f.proofLen {
		return Proofs{}, errorf(CodeProof, "the ballot has %d slots and %d proof bytes, want %d and %d", len(cs), len(b.Proof), p.slots, f.proofLen)
	}
	ps := Proofs{Items: make([]zkp.BatchItem, len(f.stmts)), p: p, stmts: f.stmts}
	keyHash, pseudonym := VoterKeyHash(b.VoterPub), b.Pseudonym()
	for i, k := range f.stmts {
		st := &p.statements[k]
		ctx := p.statementContext(st, keyHash, pseudonym)
		proof, err := zkp.ParseValidityProof(ctx, b.Proof[f.proofOffs[i]:f.proofOffs[i]+st.proofLen])
		if err != nil {
			return Proofs{}, wrapf(CodeProof, err, "%s: proof does not decode", p.statementName(st))
		}
		ps.Items[i] = zkp.BatchItem{Ctx: ctx, C: statementCiphertext(st, cs, p.PublicKey.NSquared), Proof: proof}
	}
	return ps, nil
}

// VerifyBallotProofs verifies the proofs of many ballots (each its
// ProofItems) in one batch, with weights from random (nil: crypto/rand;
// see zkp.VerifyBatch for why voters must not predict them), and returns
// one verdict per ballot (Proofs.Verdict).
func VerifyBallotProofs(random io.Reader, ballots []Proofs) []error {
	var flat []zkp.BatchItem
	for _, ps := range ballots {
		flat = append(flat, ps.Items...)
	}
	errs := zkp.VerifyBatch(random, flat)
	out := make([]error, len(ballots))
	for i, ps := range ballots {
		out[i] = ps.Verdict(errs[:len(ps.Items)])
		errs = errs[len(ps.Items):]
	}
	return out
}

// encodedContest is one contest's selection as the layout encodes it: the
// plaintext of each of its ciphertexts and, for each of its statements,
// the index of the true message.
type encodedContest struct {
	plaintexts []*big.Int
	choices    []int
}

// encodeSelections encodes one selection per contest of style f, in the
// style's order. Errors name the contest and wrap votecode.ErrInvalid.
func (p *Prepared) encodeSelections(f *styleForm, sels []votecode.Selection) ([]encodedContest, error) {
	if len(sels) != len(f.contests) {
		return nil, fmt.Errorf("election: %d selections for the style's %d contests", len(sels), len(f.contests))
	}
	enc := make([]encodedContest, len(sels))
	for i, ci := range f.contests {
		plaintexts, choices, err := p.Layout.Contests[ci].Encode(sels[i])
		if err != nil {
			return nil, fmt.Errorf("election: contest %q: %w", p.Manifest.Contests[ci].ID, err)
		}
		enc[i] = encodedContest{plaintexts: plaintexts, choices: choices}
	}
	return enc, nil
}

// ballotWork is a ballot in the making: its ciphertexts and their nonces
// at their election slots, its encoded fields and its opening.
type ballotWork struct {
	cs, rs      []*big.Int
	cts, proofs []byte
	opening     *Opening
}

// encryptAndProve encrypts the encoded selections of style f with the
// precomputed nonces and finishes the precomputed proofs, contest by
// contest (its ciphertexts, then its proofs), and returns the ballot's
// ciphertext and proof fields and its opening.
func (p *Prepared) encryptAndProve(voterPub []byte, pseudonym [PseudonymLen]byte, f *styleForm, enc []encodedContest, nonces []slotNonce, pcs []*zkp.ValidityPrecomputation) (cts, proofs []byte, opening *Opening, err error) {
	w := &ballotWork{cs: make([]*big.Int, p.slots), rs: make([]*big.Int, p.slots), opening: &Opening{}}
	keyHash := VoterKeyHash(voterPub)
	for i, ci := range f.contests {
		n := len(enc[i].plaintexts)
		if err := p.encryptContest(w, int(ci), enc[i].plaintexts, nonces[:n]); err != nil {
			return nil, nil, nil, err
		}
		nonces = nonces[n:]
		k := len(enc[i].choices)
		if err := p.proveContest(w, keyHash, pseudonym, int(ci), enc[i].choices, pcs[:k]); err != nil {
			return nil, nil, nil, err
		}
		pcs = pcs[k:]
	}
	return w.cts, w.proofs, w.opening, nil
}

// encryptContest encrypts contest ci's plaintexts with their nonces.
func (p *Prepared) encryptContest(w *ballotWork, ci int, plaintexts []*big.Int, nonces []slotNonce) error {
	for j, m := range plaintexts {
		slot := p.contestSlot[ci] + j
		c, err := p.PublicKey.EncryptWithNoncePower(m, nonces[j].rN)
		if err != nil {
			return fmt.Errorf("election: encrypting: %w", err)
		}
		w.cs[slot], w.rs[slot] = c, nonces[j].r
		w.cts = append(w.cts, p.PublicKey.EncodeCiphertext(c)...)
		w.opening.add(m, nonces[j].r)
	}
	return nil
}

// proveContest appends the proofs of contest ci's statements, whose
// choices (the index of the true message of each) Encode gave, finishing
// their precomputations.
func (p *Prepared) proveContest(w *ballotWork, keyHash [32]byte, pseudonym [PseudonymLen]byte, ci int, choices []int, pcs []*zkp.ValidityPrecomputation) error {
	k := 0
	for i := range p.statements {
		st := &p.statements[i]
		if st.contest != ci {
			continue
		}
		ctx := p.statementContext(st, keyHash, pseudonym)
		c, r := statementCiphertext(st, w.cs, p.PublicKey.NSquared), statementCiphertext(st, w.rs, p.PublicKey.N)
		proof, err := pcs[k].Finish(ctx, c, choices[k], r)
		if err != nil {
			return fmt.Errorf("election: proving validity: %w", err)
		}
		w.proofs = append(w.proofs, proof.Marshal(ctx)...)
		k++
	}
	return nil
}
