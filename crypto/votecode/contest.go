package votecode

import (
	"fmt"
	"math/big"
)

// Contest limits.
const (
	// MaxOptions bounds a contest's options.
	MaxOptions = 64
	// MaxPackedSelections bounds the valid selections of a packed contest:
	// its validity proof has one branch per valid selection.
	MaxPackedSelections = 1024
	// StatementCost is the verification cost of one proved ciphertext in
	// units of one proof branch, as the batch verifier pays them: a branch
	// adds two bases with 64-bit weights to the combined check, a ciphertext
	// one base with a (t+64)-bit exponent, its gcd and its hashing. Measured
	// by BenchmarkContestLayouts (crypto/zkp), which docs/PROTOCOL.md quotes.
	StatementCost = 3
)

// Shape is what a contest's encryption depends on: how many options it
// has, the least and the most a voter may select, and whether a voter may
// vote blank. A blank vote selects no option and counts in a digit of its
// own; selecting fewer than Max options is an undervote.
type Shape struct {
	Options int
	Min     int
	Max     int
	Blank   bool
}

// Validate checks 1 ≤ Options ≤ MaxOptions, 0 ≤ Min ≤ Max ≤ Options,
// Max ≥ 1, and that the contest offers at least two valid selections (a
// contest with one has nothing to ask).
func (s Shape) Validate() error {
	switch {
	case s.Options < 1 || s.Options > MaxOptions:
		return fmt.Errorf("%w: %d options, want 1..%d", ErrInvalid, s.Options, MaxOptions)
	case s.Max < 1 || s.Max > s.Options:
		return fmt.Errorf("%w: at most %d selections, want 1..%d (the options)", ErrInvalid, s.Max, s.Options)
	case s.Min < 0 || s.Min > s.Max:
		return fmt.Errorf("%w: at least %d selections, want 0..%d (the most)", ErrInvalid, s.Min, s.Max)
	case s.Selections() < 2:
		return fmt.Errorf("%w: the contest offers a single valid selection", ErrInvalid)
	}
	return nil
}

// Digits is the number of base-M digits the contest's counts take in a
// tally: one per option, and one for blank votes if they are allowed.
func (s Shape) Digits() int {
	if s.Blank {
		return s.Options + 1
	}
	return s.Options
}

// Selections is the number of valid selections, Σ_{k=Min..Max} C(Options, k)
// (+1 for blank), saturated at MaxPackedSelections+1: beyond that the exact
// number does not matter to anything here.
func (s Shape) Selections() int {
	total := new(big.Int)
	if s.Blank {
		total.SetInt64(1)
	}
	for k := max(s.Min, 0); k <= s.Max && k <= s.Options; k++ {
		total.Add(total, new(big.Int).Binomial(int64(s.Options), int64(k)))
	}
	if total.Cmp(big.NewInt(MaxPackedSelections)) > 0 {
		return MaxPackedSelections + 1
	}
	return int(total.Int64())
}

// sumValues is the number of values the per-option layout's sum statement
// allows: Min..Max, and Options+1 for a blank vote. It is 0 when the statement
// is left out because every count is allowed (Min = 0, Max = Options, no
// blank: approval voting).
func (s Shape) sumValues() int {
	if s.Min == 0 && s.Max == s.Options && !s.Blank {
		return 0
	}
	n := s.Max - s.Min + 1
	if s.Blank {
		n++
	}
	return n
}

// Kind is how a contest's selection is encrypted and proved.
type Kind int

const (
	// Packed: one ciphertext of Σ_j x_j·M^(offset+j) over the contest's
	// digits, with one membership proof over every valid selection.
	Packed Kind = iota
	// PerOption: one ciphertext of x_j ∈ {0, 1} per digit, each with a 0/1
	// proof, and a proof that the selection count lies in [Min, Max] (or
	// is a blank vote) on the ciphertexts' product.
	PerOption
)

func (k Kind) String() string {
	switch k {
	case Packed:
		return "packed"
	case PerOption:
		return "per-option"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Cost is the verification cost of the contest's proofs under kind k, in
// branches (see StatementCost): the branches plus StatementCost per
// ciphertext proved.
func (s Shape) Cost(k Kind) int {
	if k == Packed {
		return s.Selections() + StatementCost
	}
	cost := s.Digits() * (2 + StatementCost)
	if r := s.sumValues(); r > 0 {
		cost += r + StatementCost
	}
	return cost
}

// Kind is the cheaper layout for s, Packed on a tie (fewer ciphertexts to
// store and to multiply into the tally). A contest with more valid
// selections than MaxPackedSelections is always PerOption. A 1-of-p
// contest, the one contest a manifest carries, is always Packed
// (p+3 < 5p+4), whatever StatementCost is: re-measuring the constant does
// not change its ballots.
func (s Shape) Kind() Kind {
	if s.Selections() > MaxPackedSelections || s.Cost(PerOption) < s.Cost(Packed) {
		return PerOption
	}
	return Packed
}
