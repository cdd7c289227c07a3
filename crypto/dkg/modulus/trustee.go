package modulus

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/fabvote/fabvote/crypto/dkg/biprime"
	"github.com/fabvote/fabvote/crypto/dkg/phi"
)

// stage is where a trustee is in the test of its current candidate.
type stage int

const (
	idle       stage = iota // no candidate: before the first or after a rejection
	firstRound              // round-1 value published, waiting for everyone's
	lastRounds              // rounds 2..Rounds published, waiting for everyone's
	accepted                // the modulus is kept; no further candidate
)

// Trustee is one trustee's side of the modulus generation. It holds only
// the public parameters, the public candidate N and bases, and this
// trustee's own shares.
type Trustee struct {
	params *Params
	id     int
	stage  stage
	n      *big.Int   // the candidate N
	p, q   *big.Int   // this trustee's shares p_i, q_i of N's primes
	m      *big.Int   // its share m_i of φ(N)/4
	bases  []*big.Int // bases[r−1] is the base of round r, for the rounds computed
}

// Share is a trustee's secret part of the accepted modulus: its additive
// shares of p, q and m = φ(N)/4 (crypto/dkg/phi).
type Share struct {
	P, Q, M *big.Int
}

// NewTrustee returns trustee id (1..n) without a candidate.
func NewTrustee(params *Params, id int) (*Trustee, error) {
	if params == nil {
		return nil, fmt.Errorf("modulus: trustee %d has no parameters", id)
	}
	if id < 1 || id > params.Trustees() {
		return nil, fmt.Errorf("modulus: trustee %d outside 1..%d", id, params.Trustees())
	}
	return &Trustee{params: params, id: id}, nil
}

// ID is the trustee's index, 1..n.
func (t *Trustee) ID() int { return t.id }

// Start takes a candidate N that passed trial division and this trustee's
// own shares p_i, q_i of its primes (from the sieve), and returns the
// trustee's value for round 1 of the biprimality test.
func (t *Trustee) Start(n, p, q *big.Int) (Values, error) {
	if t.stage != idle {
		return Values{}, fmt.Errorf("modulus: trustee %d cannot take a candidate: %s", t.id, t.stage)
	}
	if n == nil || n.BitLen() != t.params.Bits() {
		return Values{}, fmt.Errorf("modulus: trustee %d: the candidate N is missing or not of %d bits", t.id, t.params.Bits())
	}
	m, err := phi.MShare(t.id, n, p, q)
	if err != nil {
		return Values{}, fmt.Errorf("modulus: %w", err)
	}
	t.n, t.p, t.q, t.m = new(big.Int).Set(n), new(big.Int).Set(p), new(big.Int).Set(q), m
	values, err := t.values(1, 1)
	if err != nil {
		t.drop()
		return Values{}, err
	}
	t.stage = firstRound
	return values, nil
}

// Continue takes every trustee's round-1 values (its own included). If the
// round fails, the trustee drops the candidate and returns an error
// wrapping biprime.ErrNotBiprime; otherwise it returns its values for
// rounds 2..biprime.Rounds. Malformed messages leave the state unchanged.
func (t *Trustee) Continue(first []Values) (Values, error) {
	if t.stage != firstRound {
		return Values{}, fmt.Errorf("modulus: trustee %d expects no round-1 values: %s", t.id, t.stage)
	}
	if err := t.check(first, 1, 1); err != nil {
		return Values{}, t.reject(err)
	}
	values, err := t.values(2, biprime.Rounds-1)
	if err != nil {
		return Values{}, err
	}
	t.stage = lastRounds
	return values, nil
}

// Finish takes every trustee's values for rounds 2..biprime.Rounds. If
// every round passes, the trustee keeps the modulus; otherwise it drops the
// candidate and returns an error wrapping biprime.ErrNotBiprime.
func (t *Trustee) Finish(rest []Values) error {
	if t.stage != lastRounds {
		return fmt.Errorf("modulus: trustee %d expects no values of rounds 2..%d: %s", t.id, biprime.Rounds, t.stage)
	}
	if err := t.check(rest, 2, biprime.Rounds-1); err != nil {
		return t.reject(err)
	}
	t.stage = accepted
	return nil
}

// Modulus returns the accepted N, or nil before acceptance.
func (t *Trustee) Modulus() *big.Int {
	if t.stage != accepted {
		return nil
	}
	return new(big.Int).Set(t.n)
}

// Share returns copies of the trustee's shares of the accepted modulus.
func (t *Trustee) Share() (Share, error) {
	if t.stage != accepted {
		return Share{}, fmt.Errorf("modulus: trustee %d has no accepted modulus", t.id)
	}
	return Share{P: new(big.Int).Set(t.p), Q: new(big.Int).Set(t.q), M: new(big.Int).Set(t.m)}, nil
}

// values derives the bases of rounds first..first+count−1 and returns this
// trustee's values for them.
func (t *Trustee) values(first, count int) (Values, error) {
	out := Values{From: t.id, First: first, G: make([]*big.Int, count)}
	bases := make([]*big.Int, count)
	for k := range count {
		var err error
		if bases[k], err = biprime.Base(t.n, t.params.ceremony, first+k); err != nil {
			return Values{}, fmt.Errorf("modulus: %w", err)
		}
		if out.G[k], err = biprime.PartyValue(t.n, bases[k], t.m); err != nil {
			return Values{}, fmt.Errorf("modulus: %w", err)
		}
	}
	t.bases = append(t.bases, bases...)
	return out, nil
}

// reject drops the candidate when err is a failed round and returns err.
func (t *Trustee) reject(err error) error {
	if errors.Is(err, biprime.ErrNotBiprime) {
		t.drop()
	}
	return err
}

// drop forgets the candidate, wiping the words of the secret shares (best
// effort: math/big may have left copies).
func (t *Trustee) drop() {
	for _, x := range []*big.Int{t.p, t.q, t.m} {
		if x != nil {
			clear(x.Bits())
		}
	}
	t.n, t.p, t.q, t.m, t.bases = nil, nil, nil, nil, nil
	t.stage = idle
}

func (s stage) String() string {
	switch s {
	case idle:
		return "it has no candidate"
	case firstRound:
		return "it waits for the round-1 values"
	case lastRounds:
		return "it waits for the values of the last rounds"
	default:
		return "it has accepted a modulus"
	}
}
