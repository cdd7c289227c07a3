package protocol

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/fabvote/fabvote/crypto/dkg/biprime"
	"github.com/fabvote/fabvote/crypto/dkg/modulus"
	"github.com/fabvote/fabvote/crypto/dkg/sieve"
)

// candidateLimit bounds the sieve at this many times the expected number
// of candidates, as modulus.Generate does: an honest ceremony exceeds it
// with probability about e^{-candidateLimit}.
const candidateLimit = 50

// accepted is this trustee's part of the accepted modulus.
type accepted struct {
	n     *big.Int
	share modulus.Share
}

// findModulus runs sieve batches until one yields an accepted modulus.
func (s *session) findModulus() (*accepted, error) {
	params, err := modulus.NewParams(s.cfg.Trustees, s.cfg.Bits, s.cfg.Ceremony)
	if err != nil {
		return nil, fmt.Errorf("protocol: %w", err)
	}
	limit := int(candidateLimit*params.Expect().Candidates)/s.cfg.Batch + 1
	for batch := range limit {
		acc, err := s.sieveBatch(params, uint32(batch))
		if err != nil || acc != nil {
			return acc, err
		}
	}
	return nil, fmt.Errorf("protocol: no modulus accepted after %d batches of %d candidates", limit, s.cfg.Batch)
}

// sieveBatch sieves Batch candidates, computes their N, trial-divides
// them and tests the survivors. It returns the accepted candidate of
// lowest index, or nil; every other candidate's shares are wiped.
func (s *session) sieveBatch(params *modulus.Params, batch uint32) (*accepted, error) {
	s.stats.Batches++
	s.stats.Candidates += s.cfg.Batch
	primes, err := s.sievePrimes(params.Sieve(), batch)
	if err != nil {
		return nil, err
	}
	defer wipe(primes...) // an accepted candidate's shares live on in its modulus.Trustee
	ns, err := s.computeModuli(params.Sieve(), batch, primes)
	if err != nil {
		return nil, err
	}
	var survivors []int
	for c, n := range ns {
		if biprime.TrialDivide(n, s.cfg.Bits) != nil {
			s.stats.TrialDivisionRejects++
			continue
		}
		survivors = append(survivors, c)
	}
	return s.testBiprimality(params, batch, ns, primes, survivors)
}

// computeModuli computes N of every candidate of the batch from the
// trustees' shares in two rounds.
func (s *session) computeModuli(sp *sieve.Params, batch uint32, primes []*big.Int) ([]*big.Int, error) {
	count := s.cfg.Batch
	deal := Round{PhaseSieve, batch, stepModulusDeal}
	parties := make([]*sieve.ModulusParty, count)
	deals := make([][]sieve.ModulusDealt, count)
	for c := range parties {
		var err error
		if parties[c], deals[c], err = sieve.NewModulusParty(sp, s.me, primes[2*c], primes[2*c+1], s.random); err != nil {
			return nil, roundErr(deal, err)
		}
	}
	sh := flat(kindModulusDeal, 3*count)
	err := s.sendEach(deal, sh, func(k int) [][]*big.Int {
		vals := make([]*big.Int, 0, 3*count)
		for _, d := range deals {
			vals = append(vals, d[k-1].P, d[k-1].Q, d[k-1].Zero)
		}
		return [][]*big.Int{vals}
	})
	if err != nil {
		return nil, err
	}
	in, err := s.receiveFlat(deal, s.all, sh)
	if err != nil {
		return nil, err
	}
	ys := make([]*big.Int, count)
	for c, m := range parties {
		dealt := make([]sieve.ModulusDealt, len(in))
		for i, v := range in {
			dealt[i] = sieve.ModulusDealt{From: s.all[i], To: s.me, P: v[3*c], Q: v[3*c+1], Zero: v[3*c+2]}
		}
		o, err := m.Product(dealt)
		if err != nil {
			return nil, roundErr(deal, err)
		}
		ys[c] = o.Y
	}
	return s.openModuli(sp, batch, ys)
}

// openModuli broadcasts this trustee's shares of every N and opens them.
func (s *session) openModuli(sp *sieve.Params, batch uint32, ys []*big.Int) ([]*big.Int, error) {
	r := Round{PhaseSieve, batch, stepModulusOpen}
	sh := flat(kindModulusOpen, len(ys))
	if err := s.broadcast(r, sh, ys); err != nil {
		return nil, err
	}
	in, err := s.receiveFlat(r, s.all, sh)
	if err != nil {
		return nil, err
	}
	ns := make([]*big.Int, len(ys))
	for c := range ns {
		openings := make([]sieve.ModulusOpening, len(in))
		for i, v := range in {
			openings[i] = sieve.ModulusOpening{From: s.all[i], Y: v[c]}
		}
		if ns[c], err = sieve.OpenModulus(sp, openings); err != nil {
			return nil, roundErr(r, err)
		}
	}
	return ns, nil
}

// testBiprimality runs round 1 of the biprimality test for every survivor
// in one message round, then rounds 2..80 for those that passed in
// another, and returns the passing candidate of lowest index. Every
// trustee checks the same public values, so all agree on it.
func (s *session) testBiprimality(params *modulus.Params, batch uint32, ns, primes []*big.Int, survivors []int) (*accepted, error) {
	if len(survivors) == 0 {
		return nil, nil
	}
	s.stats.BiprimalityTests += len(survivors)
	r := Round{PhaseSieve, batch, stepBiprimeFirst}
	trustees := make([]*modulus.Trustee, len(survivors))
	first := make([]*big.Int, len(survivors))
	for k, c := range survivors {
		t, err := modulus.NewTrustee(params, s.me)
		if err != nil {
			return nil, roundErr(r, err)
		}
		v, err := t.Start(ns[c], primes[2*c], primes[2*c+1])
		if err != nil {
			return nil, roundErr(r, err)
		}
		trustees[k], first[k] = t, v.G[0]
	}
	sh := flat(kindBiprimeFirst, len(survivors))
	if err := s.broadcast(r, sh, first); err != nil {
		return nil, err
	}
	in, err := s.receiveFlat(r, s.all, sh)
	if err != nil {
		return nil, err
	}
	var passed []int // indices into survivors
	var rest [][]*big.Int
	for k, t := range trustees {
		v, err := t.Continue(s.values(1, in, k, 1))
		switch {
		case errors.Is(err, biprime.ErrNotBiprime):
			continue
		case err != nil:
			return nil, roundErr(r, err)
		}
		passed, rest = append(passed, k), append(rest, v.G)
	}
	if len(passed) == 0 {
		return nil, nil
	}
	return s.finishBiprimality(batch, ns, survivors, trustees, passed, rest)
}

// finishBiprimality exchanges rounds 2..80 of the candidates that passed
// round 1, one list per candidate, and returns the first that passes all.
func (s *session) finishBiprimality(batch uint32, ns []*big.Int, survivors []int, trustees []*modulus.Trustee, passed []int, rest [][]*big.Int) (*accepted, error) {
	r := Round{PhaseSieve, batch, stepBiprimeRest}
	sh := shape{kind: kindBiprimeRest, lists: len(passed), width: biprime.Rounds - 1}
	if err := s.broadcast(r, sh, rest...); err != nil {
		return nil, err
	}
	lists, err := s.receive(r, s.all, sh)
	if err != nil {
		return nil, err
	}
	in := make([][][]*big.Int, len(passed)) // in[j][i]: trustee i+1's values for passed[j]
	for j := range in {
		for _, l := range lists {
			in[j] = append(in[j], l[j])
		}
	}
	for j, k := range passed {
		err := trustees[k].Finish(s.values(2, in[j], 0, biprime.Rounds-1))
		switch {
		case errors.Is(err, biprime.ErrNotBiprime):
			continue
		case err != nil:
			return nil, roundErr(r, err)
		}
		share, err := trustees[k].Share()
		if err != nil {
			return nil, roundErr(r, err)
		}
		return &accepted{n: ns[survivors[k]], share: share}, nil
	}
	return nil, nil
}

// values turns every trustee's received values in[i][at:at+count] into
// the modulus.Values of rounds first..first+count−1.
func (s *session) values(first int, in [][]*big.Int, at, count int) []modulus.Values {
	out := make([]modulus.Values, len(in))
	for i, v := range in {
		out[i] = modulus.Values{From: s.all[i], First: first, G: v[at : at+count]}
	}
	return out
}
