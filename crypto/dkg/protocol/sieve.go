package protocol

import (
	"fmt"
	"math/big"

	"github.com/fabvote/fabvote/crypto/dkg/sieve"
)

// roundErr names the round of a step's error.
func roundErr(r Round, err error) error {
	return fmt.Errorf("protocol: round %s: %w", r, err)
}

// sievePrimes runs the sieve of 2·Batch primes at once, every round
// carrying all of them in one body, and returns this trustee's additive
// shares: primes[2c] and primes[2c+1] are its p_i and q_i of candidate c.
// The sieve parties, which hold ρ_i and r_i, are dropped on return.
func (s *session) sievePrimes(sp *sieve.Params, batch uint32) ([]*big.Int, error) {
	count := 2 * s.cfg.Batch
	deal := Round{PhaseSieve, batch, stepSieveDeal}
	parties := make([]*sieve.Party, count)
	deals := make([][]sieve.Dealt, count)
	var es []*big.Int
	for c := range parties {
		p, out, shape, err := sieve.NewParty(sp, s.me, s.random)
		if err != nil {
			return nil, roundErr(deal, err)
		}
		parties[c], deals[c] = p, out
		if shape != nil {
			es = append(es, shape.E)
		}
	}
	sh := flat(kindSieveDeal, 3*count)
	err := s.sendEach(deal, sh, func(k int) [][]*big.Int {
		vals := make([]*big.Int, 0, 3*count)
		for _, d := range deals {
			vals = append(vals, d[k-1].A, d[k-1].Rho, d[k-1].Zero)
		}
		return [][]*big.Int{vals}
	})
	if err != nil {
		return nil, err
	}
	if s.me > 1 {
		if err := s.broadcast(Round{PhaseSieve, batch, stepSieveShape}, flat(kindSieveShape, count), es); err != nil {
			return nil, err
		}
	}
	in, err := s.receiveFlat(deal, s.all, sh)
	if err != nil {
		return nil, err
	}
	next := make([]sieve.Next, count)
	for c, p := range parties {
		dealt := make([]sieve.Dealt, len(in))
		for i, v := range in {
			dealt[i] = sieve.Dealt{From: s.all[i], To: s.me, A: v[3*c], Rho: v[3*c+1], Zero: v[3*c+2]}
		}
		if next[c], err = p.ReceiveDeals(dealt); err != nil {
			return nil, roundErr(deal, err)
		}
	}
	if next, err = s.reduce(batch, parties, next); err != nil {
		return nil, err
	}
	return s.lift(sp, batch, parties, next)
}

// reduce runs the degree reductions of the sieve's product trees (every
// prime's tree has the same shape) until every party has an opening.
func (s *session) reduce(batch uint32, parties []*sieve.Party, next []sieve.Next) ([]sieve.Next, error) {
	for step := stepReshare; next[0].Opening == nil; step++ {
		r := Round{PhaseSieve, batch, step}
		if step == stepSieveOpen {
			return nil, roundErr(r, fmt.Errorf("more than %d degree reductions", maxReductions))
		}
		width := len(next[0].Resharings[0].Subs)
		sh := flat(kindSieveReshare, width*len(parties))
		err := s.sendEach(r, sh, func(k int) [][]*big.Int {
			vals := make([]*big.Int, 0, width*len(parties))
			for _, nx := range next {
				vals = append(vals, nx.Resharings[k-1].Subs...)
			}
			return [][]*big.Int{vals}
		})
		if err != nil {
			return nil, err
		}
		in, err := s.receiveFlat(r, s.all, sh)
		if err != nil {
			return nil, err
		}
		for c, p := range parties {
			rs := make([]sieve.Resharing, len(in))
			for i, v := range in {
				rs[i] = sieve.Resharing{From: s.all[i], To: s.me, Subs: v[c*width : (c+1)*width]}
			}
			if next[c], err = p.ReceiveResharings(rs); err != nil {
				return nil, roundErr(r, err)
			}
		}
	}
	return next, nil
}

// lift broadcasts the openings of y, opens every prime's y and lifts this
// trustee's shares; trustee 1 takes the others' e_j for it.
func (s *session) lift(sp *sieve.Params, batch uint32, parties []*sieve.Party, next []sieve.Next) ([]*big.Int, error) {
	count := len(parties)
	r := Round{PhaseSieve, batch, stepSieveOpen}
	ys := make([]*big.Int, count)
	for c, nx := range next {
		ys[c] = nx.Opening.Y
	}
	sh := flat(kindSieveOpen, count)
	if err := s.broadcast(r, sh, ys); err != nil {
		return nil, err
	}
	in, err := s.receiveFlat(r, s.all, sh)
	if err != nil {
		return nil, err
	}
	var es [][]*big.Int // es[i][c] is trustee i+2's e for prime c
	if s.me == 1 {
		if es, err = s.receiveFlat(Round{PhaseSieve, batch, stepSieveShape}, s.all[1:], flat(kindSieveShape, count)); err != nil {
			return nil, err
		}
	}
	out := make([]*big.Int, count)
	for c, p := range parties {
		openings := make([]sieve.Opening, len(in))
		for i, v := range in {
			openings[i] = sieve.Opening{From: s.all[i], Y: v[c]}
		}
		y, err := sieve.OpenY(sp, openings)
		if err != nil {
			return nil, roundErr(r, err)
		}
		shapes := make([]sieve.Shape, len(es))
		for i, v := range es {
			shapes[i] = sieve.Shape{From: i + 2, E: v[c]}
		}
		if out[c], err = p.Lift(y, shapes); err != nil {
			return nil, roundErr(r, err)
		}
	}
	return out, nil
}
