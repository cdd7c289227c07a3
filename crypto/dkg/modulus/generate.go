package modulus

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"math/big"
	"time"

	"github.com/fabvote/fabvote/crypto/dkg/biprime"
	"github.com/fabvote/fabvote/crypto/dkg/sieve"
)

// Result is an accepted modulus with every trustee's state holding its own
// shares (Trustee.Share) and the work it took.
type Result struct {
	N        *big.Int
	Trustees []*Trustee // Trustees[i−1] is trustee i
	Stats    Stats
}

// Stats counts the work of one modulus generation.
type Stats struct {
	Candidates           int // candidate moduli N sieved
	TrialDivisionRejects int // candidates that trial division refused
	BiprimalityTests     int // candidates that it passed, each tested for biprimality
	// Rounds is the biprimality rounds evaluated over all tests: one per
	// test, plus biprime.Rounds−1 for each test whose first round passed.
	Rounds   int
	Duration time.Duration // wall time
}

// Summary is the report line of the measured counts next to the expected
// ones.
func (s Stats) Summary(e Expectation) string {
	return fmt.Sprintf("%d candidate moduli (expected ≈ %.0f), %d biprimality tests (expected ≈ %.0f), %d trial-division rejects, %d rounds, %s",
		s.Candidates, e.Candidates, s.BiprimalityTests, e.BiprimalityTests, s.TrialDivisionRejects, s.Rounds, s.Duration.Round(time.Millisecond))
}

// candidateLimit bounds a generation at this many times the expected number
// of candidates: the count is geometric, so an honest run exceeds it with
// probability about e^{-candidateLimit}; reaching it means a fault.
const candidateLimit = 50

// Generate runs n trustees in this process until they accept a modulus of
// bits bits for the ceremony. random nil means crypto/rand; with a fixed
// stream the run is reproducible. For tests and measurements: a real
// ceremony runs each Trustee (and its sieve parties) in its own process.
func Generate(n, bits int, ceremony []byte, random io.Reader) (*Result, error) {
	return generate(n, bits, ceremony, random, func(int, ...*big.Int) {})
}

// deliverer is told every value handed to trustee to, so tests can check
// what each trustee sees.
type deliverer func(to int, values ...*big.Int)

func generate(n, bits int, ceremony []byte, random io.Reader, deliver deliverer) (*Result, error) {
	start := time.Now()
	params, err := NewParams(n, bits, ceremony)
	if err != nil {
		return nil, err
	}
	if random == nil {
		random = rand.Reader
	}
	trustees := make([]*Trustee, n)
	for i := range trustees {
		if trustees[i], err = NewTrustee(params, i+1); err != nil {
			return nil, err
		}
	}
	var stats Stats
	limit := int(candidateLimit * params.Expect().Candidates)
	for stats.Candidates < limit {
		c, err := sieve.Run(params.sieve, random)
		if err != nil {
			return nil, fmt.Errorf("modulus: %w", err)
		}
		stats.Candidates++
		for to := 1; to <= n; to++ {
			deliver(to, c.N)
		}
		if biprime.TrialDivide(c.N, bits) != nil {
			stats.TrialDivisionRejects++
			continue
		}
		stats.BiprimalityTests++
		ok, rounds, err := test(trustees, c, deliver)
		stats.Rounds += rounds
		if err != nil {
			return nil, err
		}
		if ok {
			stats.Duration = time.Since(start)
			return &Result{N: c.N, Trustees: trustees, Stats: stats}, nil
		}
	}
	return nil, fmt.Errorf("modulus: no modulus accepted after %d candidates", stats.Candidates)
}

// test runs the biprimality test of candidate c: every trustee gets its own
// shares, and every broadcast goes to every trustee. It returns whether the
// trustees accepted c and how many rounds they evaluated.
func test(trustees []*Trustee, c *sieve.Candidate, deliver deliverer) (bool, int, error) {
	first := make([]Values, len(trustees))
	for i, t := range trustees {
		var err error
		if first[i], err = t.Start(c.N, c.P[i], c.Q[i]); err != nil {
			return false, 0, err
		}
	}
	broadcast(first, deliver)
	rest := make([]Values, len(trustees))
	passed, err := verdict(trustees, func(i int, t *Trustee) (err error) {
		rest[i], err = t.Continue(first)
		return err
	})
	if err != nil || !passed {
		return false, 1, err
	}
	broadcast(rest, deliver)
	passed, err = verdict(trustees, func(_ int, t *Trustee) error { return t.Finish(rest) })
	return passed, biprime.Rounds, err
}

// verdict runs step for every trustee and returns whether all passed. A
// failed round (biprime.ErrNotBiprime) is a verdict, not an error; the
// trustees must agree on it, since they check the same public values.
func verdict(trustees []*Trustee, step func(i int, t *Trustee) error) (bool, error) {
	rejects := 0
	for i, t := range trustees {
		err := step(i, t)
		switch {
		case errors.Is(err, biprime.ErrNotBiprime):
			rejects++
		case err != nil:
			return false, err
		}
	}
	if rejects != 0 && rejects != len(trustees) {
		return false, fmt.Errorf("modulus: %d of %d trustees rejected the candidate", rejects, len(trustees))
	}
	return rejects == 0, nil
}

func broadcast(all []Values, deliver deliverer) {
	for to := 1; to <= len(all); to++ {
		for _, v := range all {
			deliver(to, v.G...)
		}
	}
}
