package sieve

import (
	"crypto/rand"
	"io"
	"iter"
	"math/big"
)

// Candidate is one candidate modulus with the trustees' additive shares of
// its factors: P[i−1] and Q[i−1] are trustee i's p_i and q_i.
type Candidate struct {
	N    *big.Int
	P, Q []*big.Int
}

// Candidates runs n trustees in this process and yields candidate moduli of
// bits bits, one full protocol run each, until the caller stops or an error
// is yielded. random nil means crypto/rand. For tests and measurements: a
// real ceremony runs each Party in its own process.
func Candidates(n, bits int, random io.Reader) iter.Seq2[*Candidate, error] {
	return func(yield func(*Candidate, error) bool) {
		params, err := NewParams(n, bits)
		if err != nil {
			yield(nil, err)
			return
		}
		if random == nil {
			random = rand.Reader
		}
		for {
			c, err := Run(params, random)
			if !yield(c, err) || err != nil {
				return
			}
		}
	}
}

// Run produces one candidate with all trustees in this process.
func Run(params *Params, random io.Reader) (*Candidate, error) {
	return run(params, random, func(int, ...*big.Int) {})
}

// deliverer is told every value handed to a trustee (to), so tests can
// check what each trustee sees.
type deliverer func(to int, values ...*big.Int)

func run(params *Params, random io.Reader, deliver deliverer) (*Candidate, error) {
	ps, err := sievePrime(params, random, deliver)
	if err != nil {
		return nil, err
	}
	qs, err := sievePrime(params, random, deliver)
	if err != nil {
		return nil, err
	}
	n, err := computeModulus(params, ps, qs, random, deliver)
	if err != nil {
		return nil, err
	}
	return &Candidate{N: n, P: ps, Q: qs}, nil
}

// sievePrime runs the sieve of one prime and returns the trustees' p_i.
func sievePrime(params *Params, random io.Reader, deliver deliverer) ([]*big.Int, error) {
	parties := make([]*Party, params.N)
	inbox := make([][]Dealt, params.N)
	var shapes []Shape
	for i := range parties {
		p, out, shape, err := NewParty(params, i+1, random)
		if err != nil {
			return nil, err
		}
		parties[i] = p
		for _, d := range out {
			inbox[d.To-1] = append(inbox[d.To-1], d)
			deliver(d.To, d.A, d.Rho, d.Zero)
		}
		if shape != nil {
			shapes = append(shapes, *shape)
		}
	}
	next := make([]Next, params.N)
	for i, p := range parties {
		var err error
		if next[i], err = p.ReceiveDeals(inbox[i]); err != nil {
			return nil, err
		}
	}
	next, err := reduce(parties, next, deliver)
	if err != nil {
		return nil, err
	}
	return open(params, parties, next, shapes, deliver)
}

// reduce runs degree-reduction rounds until every trustee has an opening.
func reduce(parties []*Party, next []Next, deliver deliverer) ([]Next, error) {
	for next[0].Opening == nil {
		inbox := make([][]Resharing, len(parties))
		for _, nx := range next {
			for _, r := range nx.Resharings {
				inbox[r.To-1] = append(inbox[r.To-1], r)
				deliver(r.To, r.Subs...)
			}
		}
		for i, p := range parties {
			var err error
			if next[i], err = p.ReceiveResharings(inbox[i]); err != nil {
				return nil, err
			}
		}
	}
	return next, nil
}

// open broadcasts the openings and shapes, opens y and lifts every
// trustee's share.
func open(params *Params, parties []*Party, next []Next, shapes []Shape, deliver deliverer) ([]*big.Int, error) {
	openings := make([]Opening, len(next))
	for i, nx := range next {
		openings[i] = *nx.Opening
	}
	for to := 1; to <= params.N; to++ {
		for i := range openings {
			deliver(to, openings[i].Y)
		}
		for _, sh := range shapes {
			deliver(to, sh.E)
		}
	}
	y, err := OpenY(params, openings)
	if err != nil {
		return nil, err
	}
	shares := make([]*big.Int, len(parties))
	for i, p := range parties {
		if shares[i], err = p.Lift(y, shapes); err != nil {
			return nil, err
		}
	}
	return shares, nil
}

// computeModulus runs the computation of N from the trustees' p_i and q_i.
func computeModulus(params *Params, ps, qs []*big.Int, random io.Reader, deliver deliverer) (*big.Int, error) {
	parties := make([]*ModulusParty, params.N)
	inbox := make([][]ModulusDealt, params.N)
	for i := range parties {
		m, out, err := NewModulusParty(params, i+1, ps[i], qs[i], random)
		if err != nil {
			return nil, err
		}
		parties[i] = m
		for _, d := range out {
			inbox[d.To-1] = append(inbox[d.To-1], d)
			deliver(d.To, d.P, d.Q, d.Zero)
		}
	}
	openings := make([]ModulusOpening, params.N)
	for i, m := range parties {
		var err error
		if openings[i], err = m.Product(inbox[i]); err != nil {
			return nil, err
		}
	}
	for to := 1; to <= params.N; to++ {
		for _, o := range openings {
			deliver(to, o.Y)
		}
	}
	return OpenModulus(params, openings)
}
