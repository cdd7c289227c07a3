package electiontest

import (
	"crypto/ecdsa"
	"crypto/rand"
	"fmt"
	"math/big"

	"github.com/fabvote/fabvote/crypto/votecode"
	"github.com/fabvote/fabvote/crypto/zkp"
	"github.com/fabvote/fabvote/election"
)

// CheatLimit returns the ballot of sels (one per contest of the token's
// style) in which contest, a per-option contest of the style, encrypts
// digits instead: a 0/1 vector the contest's limits refuse (too many
// options, or blank with an option). Every digit's 0/1 proof is true; the
// proof of the number of selections is made for a count the digits do not
// have, so it is the one proof that fails: a cheating voter's ballot,
// which every verifier must refuse with LIMIT. It uses the public layout
// only, as a cheating client would.
func CheatLimit(p *election.Prepared, voter *ecdsa.PrivateKey, token []byte, sels []votecode.Selection, contest string, digits []int64) (*election.Ballot, error) {
	b, err := p.NewBallotSelections(rand.Reader, voter, token, sels)
	if err != nil {
		return nil, err
	}
	ci := p.Manifest.ContestIndex(contest)
	if ci < 0 || p.Layout.Contests[ci].Kind != votecode.PerOption || len(digits) != p.Layout.Contests[ci].Digits() {
		return nil, fmt.Errorf("electiontest: %q is no per-option contest of %d digits", contest, len(digits))
	}
	ctOff, proofOff, err := contestOffsets(p, b, ci)
	if err != nil {
		return nil, err
	}
	pk := p.PublicKey
	w := pk.CiphertextLen()
	cs, rs := make([]*big.Int, len(digits)), make([]*big.Int, len(digits))
	for j, d := range digits {
		if cs[j], rs[j], err = pk.Encrypt(rand.Reader, big.NewInt(d)); err != nil {
			return nil, err
		}
		copy(b.Ciphertext[ctOff+j*w:], pk.EncodeCiphertext(cs[j]))
	}
	keyHash, pseud := election.VoterKeyHash(b.VoterPub), b.Pseudonym()
	for k, st := range p.Layout.Contests[ci].Statements() {
		choice := 0 // the count proof claims the first count, which it is not
		if k < len(digits) {
			choice = int(digits[k])
		}
		ctx := &zkp.Context{ManifestDigest: p.ManifestDigest, ElectionID: p.Manifest.ElectionID, PublicKey: pk, Messages: st.Messages,
			Pseudonym: pseud, VoterKeyHash: keyHash, ChallengeBits: p.Manifest.ChallengeBits}
		proof, err := zkp.ProveValidity(rand.Reader, ctx, combine(st, cs, pk.NSquared), choice, combine(st, rs, pk.N))
		if err != nil {
			return nil, err
		}
		enc := proof.Marshal(ctx)
		copy(b.Proof[proofOff:], enc)
		proofOff += len(enc)
	}
	return b, b.Sign(voter)
}

// contestOffsets are where contest ci's ciphertexts and proofs begin in
// b's fields: after those of the contests before it on the ballot.
func contestOffsets(p *election.Prepared, b *election.Ballot, ci int) (ctOff, proofOff int, err error) {
	branch := p.PublicKey.CiphertextLen() + p.Manifest.ChallengeBits/8 + p.PublicKey.ModulusLen()
	for _, c := range b.Contests {
		if int(c) == ci {
			return ctOff, proofOff, nil
		}
		cl := &p.Layout.Contests[c]
		ctOff += cl.Ciphertexts() * p.PublicKey.CiphertextLen()
		for _, st := range cl.Statements() {
			proofOff += len(st.Messages) * branch
		}
	}
	return 0, 0, fmt.Errorf("electiontest: the ballot does not answer contest %d", ci)
}

// combine is Π xs[Slots[i]]^Exps[i] mod mod.
func combine(st votecode.Statement, xs []*big.Int, mod *big.Int) *big.Int {
	out := big.NewInt(1)
	for i, s := range st.Slots {
		y := new(big.Int).Exp(xs[s], big.NewInt(st.Exps[i]), mod)
		out.Mul(out, y).Mod(out, mod)
	}
	return out
}

// ContestBallot is a valid ballot of voter, of ballot style style (an id
// of m's), with selections sels.
func (f *Fixture) ContestBallot(m *election.Manifest, voter *ecdsa.PrivateKey, style string, sels []votecode.Selection) *election.Ballot {
	p, err := election.Prepare(m)
	if err != nil {
		panic(err)
	}
	b, err := p.NewBallotSelections(rand.Reader, voter, f.TokenStyle(m, VoterID(voter), style, voter), sels)
	if err != nil {
		panic(err)
	}
	return b
}
