package votecode

import (
	"fmt"
	"math/big"
	"slices"
)

// Layout places the contests of an election in one tally: contest i's
// digits follow contest i-1's, each digit M = 2^Bits wide, so that one
// decryption of the packed tally gives every count of every contest.
type Layout struct {
	Bits     uint
	Contests []ContestLayout
}

// ContestLayout is one contest's place in the tally and how its selection
// is encrypted and proved.
type ContestLayout struct {
	Shape
	Kind   Kind
	Offset int // the contest's first digit in the packed tally
	bits   uint
	stmts  []Statement
}

// NewLayout lays out the contests with base M = 2^bits, each in the kind
// its shape makes cheaper.
func NewLayout(bits uint, shapes []Shape) (*Layout, error) {
	return NewLayoutKinds(bits, shapes, nil)
}

// NewLayoutKinds is NewLayout with contest i laid out as kinds[i] (nil:
// the kind its shape makes cheaper). An election's manifest states each
// contest's kind, which its creator chose by Shape.Kind.
func NewLayoutKinds(bits uint, shapes []Shape, kinds []Kind) (*Layout, error) {
	if kinds != nil && len(kinds) != len(shapes) {
		return nil, fmt.Errorf("%w: %d kinds for %d contests", ErrInvalid, len(kinds), len(shapes))
	}
	if bits == 0 || bits > MaxBits {
		return nil, fmt.Errorf("%w: Bits = %d, want 1..%d", ErrInvalid, bits, MaxBits)
	}
	if len(shapes) == 0 {
		return nil, fmt.Errorf("%w: no contest", ErrInvalid)
	}
	l := &Layout{Bits: bits, Contests: make([]ContestLayout, len(shapes))}
	offset := 0
	for i, s := range shapes {
		if err := s.Validate(); err != nil {
			return nil, fmt.Errorf("contest %d: %w", i, err)
		}
		c := ContestLayout{Shape: s, Kind: s.Kind(), Offset: offset, bits: bits}
		if kinds != nil {
			c.Kind = kinds[i]
		}
		if c.Kind == Packed && s.Selections() > MaxPackedSelections {
			return nil, fmt.Errorf("%w: contest %d has more than %d valid selections to pack", ErrInvalid, i, MaxPackedSelections)
		}
		c.stmts = c.statements()
		l.Contests[i] = c
		offset += s.Digits()
	}
	return l, nil
}

// Digits is the number of digits of the packed tally.
func (l *Layout) Digits() int {
	last := l.Contests[len(l.Contests)-1]
	return last.Offset + last.Digits()
}

// FitsModulus reports an error unless every packed tally (< M^Digits) is
// below n, so that a tally is never reduced modulo the Paillier modulus.
func (l *Layout) FitsModulus(n *big.Int) error {
	if n == nil || new(big.Int).Lsh(one, l.Bits*uint(l.Digits())).Cmp(n) > 0 {
		return fmt.Errorf("%w: M^digits = 2^%d does not fit below the modulus", ErrInvalid, l.Bits*uint(l.Digits()))
	}
	return nil
}

// Decode splits a packed tally into every contest's counts: one per
// option, then the blank votes where the contest allows them.
func (l *Layout) Decode(t *big.Int) ([][]uint64, error) {
	total := uint(l.Digits())
	if t == nil || t.Sign() < 0 || t.BitLen() > int(l.Bits*total) {
		return nil, fmt.Errorf("%w: tally is missing, negative or not below M^%d = 2^%d", ErrInvalid, total, l.Bits*total)
	}
	mask := new(big.Int).Sub(new(big.Int).Lsh(one, l.Bits), one)
	x, d := new(big.Int).Set(t), new(big.Int)
	counts := make([][]uint64, len(l.Contests))
	for i, c := range l.Contests {
		counts[i] = make([]uint64, c.Digits())
		for j := range counts[i] {
			counts[i][j] = d.And(x, mask).Uint64()
			x.Rsh(x, l.Bits)
		}
	}
	return counts, nil
}

var one = big.NewInt(1)

// digit returns M^(Offset+j), the weight of the contest's digit j.
func (c *ContestLayout) digit(j int) *big.Int {
	return new(big.Int).Lsh(one, c.bits*uint(c.Offset+j))
}

// Ciphertexts is the number of ciphertexts a ballot carries for the contest.
func (c *ContestLayout) Ciphertexts() int {
	if c.Kind == Packed {
		return 1
	}
	return c.Digits()
}

// TallyWeights are the exponents of the contest's ciphertexts in the packed
// tally: the tally of ciphertext slot i, raised to weight i, adds its counts
// at their digits. A packed ciphertext is at its digits already (weight 1);
// per-option ciphertext j counts in digit Offset+j.
func (c *ContestLayout) TallyWeights() []*big.Int {
	if c.Kind == Packed {
		return []*big.Int{big.NewInt(1)}
	}
	w := make([]*big.Int, c.Digits())
	for j := range w {
		w[j] = c.digit(j)
	}
	return w
}

// Statement is one proved claim about a contest's ciphertexts: that the
// ciphertext Π_i c[Slots[i]]^Exps[i] encrypts one of Messages.
type Statement struct {
	Slots    []int
	Exps     []int64
	Messages []*big.Int // read-only, shared by every ballot
}

// Statements are the claims a ballot proves for the contest, in order.
func (c *ContestLayout) Statements() []Statement { return c.stmts }

func (c *ContestLayout) statements() []Statement {
	if c.Kind == Packed {
		ms := make([]*big.Int, 0, c.Selections())
		for _, sel := range c.validSelections() {
			ms = append(ms, c.packed(sel))
		}
		return []Statement{{Slots: []int{0}, Exps: []int64{1}, Messages: ms}}
	}
	bit := []*big.Int{big.NewInt(0), big.NewInt(1)}
	var stmts []Statement
	for j := 0; j < c.Digits(); j++ {
		stmts = append(stmts, Statement{Slots: []int{j}, Exps: []int64{1}, Messages: bit})
	}
	if c.sumValues() == 0 {
		return stmts
	}
	sum := Statement{}
	for j := 0; j < c.Options; j++ {
		sum.Slots, sum.Exps = append(sum.Slots, j), append(sum.Exps, 1)
	}
	for k := c.Min; k <= c.Max; k++ {
		sum.Messages = append(sum.Messages, big.NewInt(int64(k)))
	}
	if c.Blank {
		// The blank digit weighs Options+1, more than any sum of option
		// digits: blank alone sums to exactly Options+1, blank with any
		// option to more, and no blank to at most Options. (Max+1 would
		// not do: Max+1 options sum to it too.)
		w := int64(c.Options) + 1
		sum.Slots, sum.Exps = append(sum.Slots, c.Options), append(sum.Exps, w)
		sum.Messages = append(sum.Messages, big.NewInt(w))
	}
	return append(stmts, sum)
}

// Selection is a voter's choice in one contest: the options selected (by
// index, ascending), or a blank vote.
type Selection struct {
	Options []int
	Blank   bool
}

// validSelections lists every valid selection in the canonical order of the
// packed proof's branches: by the number of options selected, ascending,
// each size in lexicographic order, then blank.
func (c *ContestLayout) validSelections() []Selection {
	var out []Selection
	for k := c.Min; k <= c.Max; k++ {
		idx := make([]int, k)
		for i := range idx {
			idx[i] = i
		}
		for {
			out = append(out, Selection{Options: slices.Clone(idx)})
			if !nextCombination(idx, c.Options) {
				break
			}
		}
	}
	if c.Blank {
		out = append(out, Selection{Blank: true})
	}
	return out
}

// nextCombination advances idx to the next k-subset of 0..n-1 in
// lexicographic order; false after the last.
func nextCombination(idx []int, n int) bool {
	k := len(idx)
	i := k - 1
	for i >= 0 && idx[i] == n-k+i {
		i--
	}
	if i < 0 {
		return false
	}
	idx[i]++
	for j := i + 1; j < k; j++ {
		idx[j] = idx[j-1] + 1
	}
	return true
}

// packed is the plaintext of a packed contest's ciphertext for sel.
func (c *ContestLayout) packed(sel Selection) *big.Int {
	x := new(big.Int)
	for _, j := range sel.Options {
		x.Add(x, c.digit(j))
	}
	if sel.Blank {
		x.Add(x, c.digit(c.Options))
	}
	return x
}

// Errors of a selection, each wrapping ErrInvalid.
var (
	ErrTooFew       = fmt.Errorf("%w: too few selections", ErrInvalid)
	ErrTooMany      = fmt.Errorf("%w: too many selections", ErrInvalid)
	ErrOptionRange  = fmt.Errorf("%w: option index out of range", ErrInvalid)
	ErrOptionRepeat = fmt.Errorf("%w: option selected twice or out of order", ErrInvalid)
	ErrBlank        = fmt.Errorf("%w: blank vote not allowed here", ErrInvalid)
)

// Check reports why sel is not a valid selection in the contest, or nil.
func (c *ContestLayout) Check(sel Selection) error {
	if sel.Blank {
		switch {
		case !c.Blank:
			return fmt.Errorf("%w: the contest allows no blank vote", ErrBlank)
		case len(sel.Options) > 0:
			return fmt.Errorf("%w: a blank vote selects no option, this one selects %d", ErrBlank, len(sel.Options))
		}
		return nil
	}
	for i, j := range sel.Options {
		if j < 0 || j >= c.Options {
			return fmt.Errorf("%w: option %d, want 0..%d", ErrOptionRange, j, c.Options-1)
		}
		if i > 0 && j <= sel.Options[i-1] {
			return fmt.Errorf("%w: option %d after option %d", ErrOptionRepeat, j, sel.Options[i-1])
		}
	}
	switch n := len(sel.Options); {
	case n < c.Min:
		return fmt.Errorf("%w: %d selected, the contest needs at least %d", ErrTooFew, n, c.Min)
	case n > c.Max:
		return fmt.Errorf("%w: %d selected, the contest allows at most %d", ErrTooMany, n, c.Max)
	}
	return nil
}

// Encode returns the plaintext of each of the contest's ciphertexts for
// sel, and for each statement the index of the message it proves (the
// prover's witness).
func (c *ContestLayout) Encode(sel Selection) (plaintexts []*big.Int, choices []int, err error) {
	if err := c.Check(sel); err != nil {
		return nil, nil, err
	}
	if c.Kind == Packed {
		x := c.packed(sel)
		i := slices.IndexFunc(c.stmts[0].Messages, func(m *big.Int) bool { return m.Cmp(x) == 0 })
		return []*big.Int{x}, []int{i}, nil
	}
	bits := make([]int, c.Digits())
	for _, j := range sel.Options {
		bits[j] = 1
	}
	if sel.Blank {
		bits[c.Options] = 1
	}
	for _, b := range bits {
		plaintexts = append(plaintexts, big.NewInt(int64(b)))
	}
	choices = slices.Clone(bits)
	if c.sumValues() > 0 {
		k := len(sel.Options) - c.Min
		if sel.Blank {
			k = c.Max - c.Min + 1
		}
		choices = append(choices, k)
	}
	return plaintexts, choices, nil
}

// ErrPlaintext: a plaintext that encodes no selection of the contest at all
// (a digit other than 0 or 1, bits outside the contest's digits, the wrong
// number of plaintexts). Wraps ErrInvalid.
var ErrPlaintext = fmt.Errorf("%w: plaintext encodes no selection", ErrInvalid)

// DecodeSelection is Encode's inverse on the contest's plaintexts (one per
// ciphertext, as Encode returns them): the selection they encode, checked
// against the contest's rules. It is what an opened (audited) ballot
// reveals. Errors: ErrPlaintext, or Check's error for a selection outside
// the contest's limits.
func (c *ContestLayout) DecodeSelection(plaintexts []*big.Int) (Selection, error) {
	if len(plaintexts) != c.Ciphertexts() {
		return Selection{}, fmt.Errorf("%w: %d plaintexts, the contest has %d ciphertexts", ErrPlaintext, len(plaintexts), c.Ciphertexts())
	}
	bits, err := c.plaintextDigits(plaintexts)
	if err != nil {
		return Selection{}, err
	}
	var sel Selection
	for j, b := range bits {
		switch {
		case b == 0:
		case j == c.Options:
			sel.Blank = true
		default:
			sel.Options = append(sel.Options, j)
		}
	}
	if err := c.Check(sel); err != nil {
		return Selection{}, err
	}
	return sel, nil
}

// plaintextDigits splits the contest's plaintexts into its digits, each 0
// or 1: a packed plaintext must be exactly Σ digit_j·M^(Offset+j), a
// per-option plaintext one digit.
func (c *ContestLayout) plaintextDigits(plaintexts []*big.Int) ([]int, error) {
	bits := make([]int, c.Digits())
	for j := range bits {
		var d *big.Int
		if c.Kind == Packed {
			d = new(big.Int).Rsh(plaintexts[0], c.bits*uint(c.Offset+j))
			d.And(d, new(big.Int).Sub(new(big.Int).Lsh(one, c.bits), one))
		} else {
			d = plaintexts[j]
		}
		if d == nil || (d.Sign() != 0 && d.Cmp(one) != 0) {
			return nil, fmt.Errorf("%w: digit %d is neither 0 nor 1", ErrPlaintext, j)
		}
		bits[j] = int(d.Int64())
	}
	if c.Kind == Packed {
		x := new(big.Int)
		for j, b := range bits {
			if b == 1 {
				x.Add(x, c.digit(j))
			}
		}
		if x.Cmp(plaintexts[0]) != 0 {
			return nil, fmt.Errorf("%w: bits outside the contest's digits", ErrPlaintext)
		}
	}
	return bits, nil
}
