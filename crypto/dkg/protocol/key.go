package protocol

import (
	"fmt"
	"math/big"

	"github.com/fabvote/fabvote/crypto/dkg/keygen"
	"github.com/fabvote/fabvote/crypto/dkg/keyshare"
	"github.com/fabvote/fabvote/crypto/dkg/wellformed"
	"github.com/fabvote/fabvote/crypto/paillier/threshold"
)

// finish runs the steps after an accepted modulus, as
// keygen.FinishInProcess does in one process: the key-share step, the Πmod
// proof, the self-test, then the check of the public result. The shares
// of p, q and m are wiped on return.
func (s *session) finish(acc *accepted) (*keygen.Public, *threshold.KeyShare, error) {
	defer wipe(acc.share.P, acc.share.Q, acc.share.M)
	params, err := keyshare.NewParams(acc.n, s.cfg.Trustees, s.cfg.K, s.cfg.Ceremony)
	if err != nil {
		return nil, nil, fmt.Errorf("protocol: %w", err)
	}
	party, gamma, err := s.openGamma(params, acc.share.M)
	if err != nil {
		return nil, nil, err
	}
	share, commits, err := s.redeal(party, gamma)
	if err != nil {
		return nil, nil, err
	}
	pp, err := keyshare.PublicParams(params, gamma, commits)
	if err != nil {
		return nil, nil, fmt.Errorf("protocol: %w", err)
	}
	exps, err := party.Exponents()
	if err != nil {
		return nil, nil, fmt.Errorf("protocol: %w", err)
	}
	defer wipe(exps.M, exps.U, exps.E)
	proof, err := s.proveModulus(acc.n, exps)
	if err != nil {
		return nil, nil, err
	}
	partials, err := s.selfTest(share, pp)
	if err != nil {
		return nil, nil, err
	}
	pub := &keygen.Public{Ceremony: append([]byte(nil), s.cfg.Ceremony...), Params: pp, ModulusProof: proof, SelfTest: partials}
	if err := s.verify(pub); err != nil {
		return nil, nil, fmt.Errorf("protocol: the public result: %w", err)
	}
	if s.cfg.reveal != nil {
		s.cfg.reveal(revealed{me: s.me, p: acc.share.P, q: acc.share.Q, m: acc.share.M, party: party, share: share})
	}
	return pub, share, nil
}

func (s *session) verify(pub *keygen.Public) error {
	if s.cfg.verify != nil {
		return s.cfg.verify(pub)
	}
	return pub.Verify()
}

// openGamma deals this trustee's field shares of m_i, β_i, R_i and opens γ.
func (s *session) openGamma(params *keyshare.Params, m *big.Int) (*keyshare.Party, *big.Int, error) {
	r := Round{Phase: PhaseKeyShare, Step: stepKeyDeal}
	party, dealt, err := keyshare.NewParty(params, s.me, m, s.random)
	if err != nil {
		return nil, nil, roundErr(r, err)
	}
	sh := flat(kindKeyDeal, 4)
	err = s.sendEach(r, sh, func(k int) [][]*big.Int {
		d := dealt[k-1]
		return [][]*big.Int{{d.M, d.Beta, d.R, d.Zero}}
	})
	if err != nil {
		return nil, nil, err
	}
	in, err := s.receiveFlat(r, s.all, sh)
	if err != nil {
		return nil, nil, err
	}
	received := make([]keyshare.Dealt, len(in))
	for i, v := range in {
		received[i] = keyshare.Dealt{From: s.all[i], To: s.me, M: v[0], Beta: v[1], R: v[2], Zero: v[3]}
	}
	o, err := party.Open(received)
	if err != nil {
		return nil, nil, roundErr(r, err)
	}
	r.Step = stepGamma
	sh = flat(kindGamma, 1)
	if err := s.broadcast(r, sh, []*big.Int{o.Gamma}); err != nil {
		return nil, nil, err
	}
	if in, err = s.receiveFlat(r, s.all, sh); err != nil {
		return nil, nil, err
	}
	openings := make([]keyshare.Opening, len(in))
	for i, v := range in {
		openings[i] = keyshare.Opening{From: s.all[i], Gamma: v[0]}
	}
	gamma, err := keyshare.OpenGamma(params, openings)
	if err != nil {
		return nil, nil, roundErr(r, err)
	}
	return party, gamma, nil
}

// redeal broadcasts this trustee's Feldman commitments, sends each trustee
// its sub-share, and checks the ones it receives into its key share.
func (s *session) redeal(party *keyshare.Party, gamma *big.Int) (*threshold.KeyShare, []keyshare.Commitment, error) {
	r := Round{Phase: PhaseKeyShare, Step: stepCommitment}
	commit, subs, err := party.Deal(gamma)
	if err != nil {
		return nil, nil, roundErr(r, err)
	}
	csh := flat(kindCommitment, s.cfg.K)
	if err := s.broadcast(r, csh, commit.C); err != nil {
		return nil, nil, err
	}
	subRound := Round{Phase: PhaseKeyShare, Step: stepSubShare}
	ssh := flat(kindSubShare, 1)
	err = s.sendEach(subRound, ssh, func(k int) [][]*big.Int { return [][]*big.Int{{subs[k-1].Value}} })
	if err != nil {
		return nil, nil, err
	}
	cs, err := s.receiveFlat(r, s.all, csh)
	if err != nil {
		return nil, nil, err
	}
	commits := make([]keyshare.Commitment, len(cs))
	for i, c := range cs {
		commits[i] = keyshare.Commitment{From: s.all[i], C: c}
	}
	in, err := s.receiveFlat(subRound, s.all, ssh)
	if err != nil {
		return nil, nil, err
	}
	received := make([]keyshare.SubShare, len(in))
	for i, v := range in {
		received[i] = keyshare.SubShare{From: s.all[i], To: s.me, Value: v[0]}
	}
	share, err := party.Receive(commits, received)
	if err != nil {
		return nil, nil, roundErr(subRound, err)
	}
	return share, commits, nil
}

// proveModulus runs the two rounds of the distributed Πmod prover.
func (s *session) proveModulus(n *big.Int, exps *wellformed.Share) (*wellformed.Proof, error) {
	r := Round{Phase: PhaseModulusProof, Step: stepSigma}
	st, err := wellformed.NewStatement(n, s.cfg.Ceremony)
	if err != nil {
		return nil, roundErr(r, err)
	}
	sigma, err := st.Sigmas(exps)
	if err != nil {
		return nil, roundErr(r, err)
	}
	sh := flat(kindSigma, wellformed.Challenges)
	if err := s.broadcast(r, sh, sigma); err != nil {
		return nil, err
	}
	sigmas, err := s.receiveFlat(r, s.all, sh)
	if err != nil {
		return nil, err
	}
	a, err := st.Signs(sigmas)
	if err != nil {
		return nil, roundErr(r, err)
	}
	r.Step = stepRoots
	x, z, err := st.Roots(exps, a)
	if err != nil {
		return nil, roundErr(r, err)
	}
	sh = shape{kind: kindRoots, lists: 2, width: wellformed.Challenges}
	if err := s.broadcast(r, sh, x, z); err != nil {
		return nil, err
	}
	in, err := s.receive(r, s.all, sh)
	if err != nil {
		return nil, err
	}
	xs, zs := make([][]*big.Int, len(in)), make([][]*big.Int, len(in))
	for i, l := range in {
		xs[i], zs[i] = l[0], l[1]
	}
	proof, err := st.Assemble(a, xs, zs)
	if err != nil {
		return nil, roundErr(r, err)
	}
	return proof, nil
}

// selfTest broadcasts this trustee's partial decryption of the self-test
// ciphertext and returns every trustee's, in index order.
func (s *session) selfTest(share *threshold.KeyShare, pp *threshold.PublicParams) ([]*threshold.PartialDecryption, error) {
	r := Round{Phase: PhaseSelfTest, Step: stepPartial}
	pd, err := share.DecryptSelfTest(s.random, pp, s.cfg.Ceremony)
	if err != nil {
		return nil, roundErr(r, err)
	}
	sh := flat(kindPartial, 3)
	if err := s.broadcast(r, sh, []*big.Int{pd.Ci, pd.Proof.E, pd.Proof.Z}); err != nil {
		return nil, err
	}
	in, err := s.receiveFlat(r, s.all, sh)
	if err != nil {
		return nil, err
	}
	out := make([]*threshold.PartialDecryption, len(in))
	for i, v := range in {
		out[i] = &threshold.PartialDecryption{Index: s.all[i], Ci: v[0], Proof: &threshold.EqualityProof{E: v[1], Z: v[2]}}
	}
	return out, nil
}
