// Package votecode maps a vote for candidate j to the integer M^j (M = 2^Bits)
// and a tally T = Σ M^(j_i) back to per-candidate counts.
//
// It exists so that the CLI (which encrypts M^j), the validity proof (which
// proves c encrypts one of M^0 … M^(p-1)) and the tally decoder agree on one
// encoding. Because M > maxVoters, a count can never carry into the next
// base-M digit, so the digits of T are exactly the counts.
package votecode

import (
	"errors"
	"fmt"
	"math/big"
)

// MaxBits bounds the per-candidate digit size (2^64 voters is plenty).
const MaxBits = 64

// ErrInvalid is wrapped by every error of this package.
var ErrInvalid = errors.New("votecode: invalid")

// Encoding is the vote encoding of one election: M = 2^Bits, p = Candidates.
type Encoding struct {
	Bits       uint
	Candidates int
}

// New returns the encoding for at most maxVoters ballots and the given number
// of candidates, using the smallest b with 2^b > maxVoters.
func New(maxVoters uint64, candidates int) (Encoding, error) {
	if maxVoters == 0 {
		return Encoding{}, fmt.Errorf("%w: maxVoters must be at least 1", ErrInvalid)
	}
	var b uint
	for b < MaxBits && uint64(1)<<b <= maxVoters {
		b++
	}
	// The loop stops at b = 64 at the latest: 2^64 exceeds every uint64.
	e := Encoding{Bits: b, Candidates: candidates}
	if err := e.Validate(); err != nil {
		return Encoding{}, err
	}
	return e, nil
}

// Validate checks the encoding parameters.
func (e Encoding) Validate() error {
	switch {
	case e.Bits == 0 || e.Bits > MaxBits:
		return fmt.Errorf("%w: Bits = %d, want 1..%d", ErrInvalid, e.Bits, MaxBits)
	case e.Candidates < 2:
		return fmt.Errorf("%w: Candidates = %d, want at least 2", ErrInvalid, e.Candidates)
	case e.Candidates > 1<<16:
		return fmt.Errorf("%w: Candidates = %d, too many", ErrInvalid, e.Candidates)
	}
	return nil
}

// Base returns M = 2^Bits.
func (e Encoding) Base() *big.Int { return new(big.Int).Lsh(big.NewInt(1), e.Bits) }

// MaxVoters is the largest number of ballots the encoding can count: 2^Bits - 1.
func (e Encoding) MaxVoters() *big.Int {
	return new(big.Int).Sub(e.Base(), big.NewInt(1))
}

// Bound returns M^p: every valid tally is below it.
func (e Encoding) Bound() *big.Int {
	return new(big.Int).Lsh(big.NewInt(1), e.Bits*uint(e.Candidates))
}

// FitsModulus reports an error unless every tally (< M^p) is below n, so that
// tallies are never reduced modulo the Paillier modulus.
func (e Encoding) FitsModulus(n *big.Int) error {
	if err := e.Validate(); err != nil {
		return err
	}
	if n == nil || e.Bound().Cmp(n) > 0 {
		return fmt.Errorf("%w: M^p = 2^%d does not fit below the modulus", ErrInvalid, e.Bits*uint(e.Candidates))
	}
	return nil
}

// Encode returns M^j for candidate 0 ≤ j < Candidates.
func (e Encoding) Encode(j int) (*big.Int, error) {
	if err := e.Validate(); err != nil {
		return nil, err
	}
	if j < 0 || j >= e.Candidates {
		return nil, fmt.Errorf("%w: candidate index %d, want 0..%d", ErrInvalid, j, e.Candidates-1)
	}
	return new(big.Int).Lsh(big.NewInt(1), e.Bits*uint(j)), nil
}

// Messages returns [M^0, …, M^(p-1)], the plaintexts a valid ballot may encrypt.
// It returns nil for an invalid encoding.
func (e Encoding) Messages() []*big.Int {
	if e.Validate() != nil {
		return nil
	}
	ms := make([]*big.Int, e.Candidates)
	for j := range ms {
		ms[j] = new(big.Int).Lsh(big.NewInt(1), e.Bits*uint(j))
	}
	return ms
}

// Decode splits a tally 0 ≤ t < M^p into its base-M digits: the count of each candidate.
func (e Encoding) Decode(t *big.Int) ([]uint64, error) {
	if err := e.Validate(); err != nil {
		return nil, err
	}
	if t == nil || t.Sign() < 0 {
		return nil, fmt.Errorf("%w: tally is negative or missing", ErrInvalid)
	}
	if t.Cmp(e.Bound()) >= 0 {
		return nil, fmt.Errorf("%w: tally is not below M^p = 2^%d", ErrInvalid, e.Bits*uint(e.Candidates))
	}
	counts := make([]uint64, e.Candidates)
	mask := e.MaxVoters()
	x := new(big.Int).Set(t)
	d := new(big.Int)
	for j := range counts {
		d.And(x, mask)
		counts[j] = d.Uint64()
		x.Rsh(x, e.Bits)
	}
	return counts, nil
}
