package votecode

import (
	"errors"
	"math/big"
	"reflect"
	"testing"
)

func TestShapeValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    Shape
		ok   bool
	}{
		{"1-of-4", Shape{Options: 4, Min: 1, Max: 1}, true},
		{"yes/no", Shape{Options: 2, Min: 1, Max: 1}, true},
		{"single option, may skip", Shape{Options: 1, Min: 0, Max: 1}, true},
		{"single option, must select", Shape{Options: 1, Min: 1, Max: 1}, false},
		{"single option, must select, or blank", Shape{Options: 1, Min: 1, Max: 1, Blank: true}, true},
		{"all of 3", Shape{Options: 3, Min: 3, Max: 3}, false},
		{"no options", Shape{Options: 0, Min: 0, Max: 1}, false},
		{"too many options", Shape{Options: MaxOptions + 1, Min: 1, Max: 1}, false},
		{"max 0", Shape{Options: 3, Min: 0, Max: 0}, false},
		{"max above options", Shape{Options: 3, Min: 1, Max: 4}, false},
		{"min above max", Shape{Options: 3, Min: 2, Max: 1}, false},
		{"negative min", Shape{Options: 3, Min: -1, Max: 1}, false},
		{"64 options, up to 64", Shape{Options: 64, Min: 0, Max: 64}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.s.Validate()
			if (err == nil) != tc.ok {
				t.Fatalf("Validate() = %v, want ok=%v", err, tc.ok)
			}
			if err != nil && !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
		})
	}
}

// TestKindByCost pins the layout of the shapes docs/PROTOCOL.md's cost
// table lists, and that Kind picks the smaller cost.
func TestKindByCost(t *testing.T) {
	for _, tc := range []struct {
		name       string
		s          Shape
		selections int
		kind       Kind
	}{
		{"1-of-4", Shape{Options: 4, Min: 1, Max: 1}, 4, Packed},
		{"1-of-4+blank", Shape{Options: 4, Min: 1, Max: 1, Blank: true}, 5, Packed},
		{"1-of-10", Shape{Options: 10, Min: 1, Max: 1}, 10, Packed},
		{"2-of-5", Shape{Options: 5, Min: 2, Max: 2}, 10, Packed},
		{"2-of-5+blank", Shape{Options: 5, Min: 2, Max: 2, Blank: true}, 11, Packed},
		{"up to 2 of 5", Shape{Options: 5, Min: 0, Max: 2}, 16, Packed},
		{"up to 3 of 9", Shape{Options: 9, Min: 0, Max: 3}, 130, PerOption},
		{"up to 3 of 9+blank", Shape{Options: 9, Min: 0, Max: 3, Blank: true}, 131, PerOption},
		{"3-of-9", Shape{Options: 9, Min: 3, Max: 3}, 84, PerOption},
		{"yes/no", Shape{Options: 2, Min: 1, Max: 1}, 2, Packed},
		{"yes/no+blank", Shape{Options: 2, Min: 1, Max: 1, Blank: true}, 3, Packed},
		{"approval of 40", Shape{Options: 40, Min: 0, Max: 40}, MaxPackedSelections + 1, PerOption},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.s.Selections(); got != tc.selections {
				t.Errorf("Selections() = %d, want %d", got, tc.selections)
			}
			if got := tc.s.Kind(); got != tc.kind {
				t.Errorf("Kind() = %v, want %v (costs: packed %d, per-option %d)", got, tc.kind, tc.s.Cost(Packed), tc.s.Cost(PerOption))
			}
			if tc.s.Selections() <= MaxPackedSelections && tc.s.Cost(tc.s.Kind()) > min(tc.s.Cost(Packed), tc.s.Cost(PerOption)) {
				t.Errorf("Kind() = %v is not the cheaper layout", tc.s.Kind())
			}
		})
	}
}

// smallShapes are every shape of up to 5 options that Validate accepts.
func smallShapes() []Shape {
	var out []Shape
	for n := 1; n <= 5; n++ {
		for lo := 0; lo <= n; lo++ {
			for hi := max(lo, 1); hi <= n; hi++ {
				for _, blank := range []bool{false, true} {
					s := Shape{Options: n, Min: lo, Max: hi, Blank: blank}
					if s.Validate() == nil {
						out = append(out, s)
					}
				}
			}
		}
	}
	return out
}

// statementHolds reports whether plaintexts (one per ciphertext slot)
// satisfy st: Σ Exps[i]·x[Slots[i]] is one of st.Messages, and returns the
// message's index.
func statementHolds(st Statement, plaintexts []*big.Int) (int, bool) {
	x := new(big.Int)
	for i, slot := range st.Slots {
		x.Add(x, new(big.Int).Mul(big.NewInt(st.Exps[i]), plaintexts[slot]))
	}
	for k, m := range st.Messages {
		if m.Cmp(x) == 0 {
			return k, true
		}
	}
	return -1, false
}

// TestStatementsAreSound checks, for every small shape in both layouts,
// that the statements hold for exactly the valid selections: every vector
// of 0/1 digits (options, then blank) passes all of them iff it is a valid
// selection, and Encode's choices name the messages that hold. It is the
// soundness of the layout, blank's weight Options+1 included; the proofs then
// show the statements.
func TestStatementsAreSound(t *testing.T) {
	for _, s := range smallShapes() {
		for _, kind := range []Kind{Packed, PerOption} {
			c := ContestLayout{Shape: s, Kind: kind, Offset: 1, bits: 3}
			c.stmts = c.statements()
			valid := 0
			for v := 0; v < 1<<s.Digits(); v++ {
				sel := selectionOf(v, s)
				digitsOK := c.Check(sel) == nil
				if digitsOK {
					valid++
				}
				plaintexts := c.plaintextsOf(v)
				all := true
				for _, st := range c.stmts {
					if _, ok := statementHolds(st, plaintexts); !ok {
						all = false
					}
				}
				if all != digitsOK {
					t.Fatalf("%+v %v: digits %b: statements hold = %v, valid selection = %v", s, kind, v, all, digitsOK)
				}
				if digitsOK {
					checkEncode(t, &c, sel, plaintexts)
				}
			}
			if valid != s.Selections() {
				t.Fatalf("%+v: %d valid digit vectors, Selections() = %d", s, valid, s.Selections())
			}
		}
	}
}

// selectionOf reads digit vector v (bit j = digit j) as a selection.
func selectionOf(v int, s Shape) Selection {
	var sel Selection
	for j := 0; j < s.Options; j++ {
		if v>>j&1 == 1 {
			sel.Options = append(sel.Options, j)
		}
	}
	sel.Blank = s.Blank && v>>s.Options&1 == 1
	return sel
}

// plaintextsOf is the layout's ciphertext plaintexts for digit vector v,
// built from the digits directly (not by Encode, which refuses invalid
// selections).
func (c *ContestLayout) plaintextsOf(v int) []*big.Int {
	if c.Kind == Packed {
		x := new(big.Int)
		for j := 0; j < c.Digits(); j++ {
			if v>>j&1 == 1 {
				x.Add(x, c.digit(j))
			}
		}
		return []*big.Int{x}
	}
	out := make([]*big.Int, c.Digits())
	for j := range out {
		out[j] = big.NewInt(int64(v >> j & 1))
	}
	return out
}

func checkEncode(t *testing.T, c *ContestLayout, sel Selection, want []*big.Int) {
	t.Helper()
	plaintexts, choices, err := c.Encode(sel)
	if err != nil {
		t.Fatalf("%+v: Encode(%+v): %v", c.Shape, sel, err)
	}
	if len(plaintexts) != c.Ciphertexts() || len(choices) != len(c.stmts) {
		t.Fatalf("Encode gives %d plaintexts and %d choices, want %d and %d", len(plaintexts), len(choices), c.Ciphertexts(), len(c.stmts))
	}
	for i := range want {
		if plaintexts[i].Cmp(want[i]) != 0 {
			t.Fatalf("%+v: Encode(%+v) plaintext %d = %v, want %v", c.Shape, sel, i, plaintexts[i], want[i])
		}
	}
	for i, st := range c.stmts {
		if k, _ := statementHolds(st, plaintexts); k != choices[i] {
			t.Fatalf("%+v: Encode(%+v) statement %d: choice %d, the message that holds is %d", c.Shape, sel, i, choices[i], k)
		}
	}
}

func TestSelectionErrors(t *testing.T) {
	l, err := NewLayout(4, []Shape{{Options: 5, Min: 1, Max: 2}, {Options: 3, Min: 1, Max: 1, Blank: true}})
	if err != nil {
		t.Fatal(err)
	}
	two, one := &l.Contests[0], &l.Contests[1]
	for _, tc := range []struct {
		name string
		c    *ContestLayout
		sel  Selection
		want error
	}{
		{"too few", two, Selection{}, ErrTooFew},
		{"too many", two, Selection{Options: []int{0, 1, 2}}, ErrTooMany},
		{"index above range", two, Selection{Options: []int{5}}, ErrOptionRange},
		{"negative index", two, Selection{Options: []int{-1}}, ErrOptionRange},
		{"repeated option", two, Selection{Options: []int{1, 1}}, ErrOptionRepeat},
		{"descending options", two, Selection{Options: []int{3, 1}}, ErrOptionRepeat},
		{"blank where none is allowed", two, Selection{Blank: true}, ErrBlank},
		{"blank with an option", one, Selection{Options: []int{0}, Blank: true}, ErrBlank},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, err := tc.c.Encode(tc.sel); !errors.Is(err, tc.want) {
				t.Fatalf("Encode(%+v) = %v, want %v", tc.sel, err, tc.want)
			}
		})
	}
}

// TestLayoutTallyRoundTrip adds ballots' plaintexts, each slot weighted by
// TallyWeights as the tally is, and checks that Decode gives every
// contest's counts.
func TestLayoutTallyRoundTrip(t *testing.T) {
	shapes := []Shape{
		{Options: 4, Min: 1, Max: 1},
		{Options: 9, Min: 0, Max: 3, Blank: true},
		{Options: 2, Min: 1, Max: 1, Blank: true},
	}
	l, err := NewLayout(5, shapes)
	if err != nil {
		t.Fatal(err)
	}
	if l.Contests[1].Kind != PerOption || l.Contests[0].Kind != Packed {
		t.Fatalf("kinds %v, %v: the test wants one contest of each", l.Contests[0].Kind, l.Contests[1].Kind)
	}
	ballots := [][]Selection{
		{{Options: []int{2}}, {Options: []int{0, 4, 8}}, {Blank: true}},
		{{Options: []int{2}}, {Blank: true}, {Options: []int{1}}},
		{{Options: []int{0}}, {}, {Options: []int{1}}},
		{{Options: []int{3}}, {Options: []int{4}}, {Options: []int{0}}},
	}
	want := [][]uint64{{1, 0, 2, 1}, {1, 0, 0, 0, 2, 0, 0, 0, 1, 1}, {1, 2, 1}}
	tally := new(big.Int)
	for _, b := range ballots {
		for i, sel := range b {
			c := &l.Contests[i]
			plaintexts, _, err := c.Encode(sel)
			if err != nil {
				t.Fatal(err)
			}
			for slot, w := range c.TallyWeights() {
				tally.Add(tally, new(big.Int).Mul(w, plaintexts[slot]))
			}
		}
	}
	got, err := l.Decode(tally)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		for j := range want[i] {
			if got[i][j] != want[i][j] {
				t.Fatalf("contest %d counts %v, want %v", i, got[i], want[i])
			}
		}
	}
	if l.Digits() != 4+10+3 {
		t.Fatalf("Digits() = %d, want 17", l.Digits())
	}
	if err := l.FitsModulus(new(big.Int).Lsh(one, 5*17)); err != nil {
		t.Fatalf("FitsModulus(2^85) = %v", err)
	}
	if err := l.FitsModulus(new(big.Int).Lsh(one, 5*17-1)); err == nil {
		t.Fatal("FitsModulus(2^84) accepted a layout of 85 bits")
	}
}

func TestNewLayoutRefuses(t *testing.T) {
	for _, tc := range []struct {
		name   string
		bits   uint
		shapes []Shape
	}{
		{"no contest", 8, nil},
		{"bits 0", 0, []Shape{{Options: 2, Min: 1, Max: 1}}},
		{"bits above MaxBits", MaxBits + 1, []Shape{{Options: 2, Min: 1, Max: 1}}},
		{"invalid shape", 8, []Shape{{Options: 2, Min: 1, Max: 1}, {Options: 2, Min: 2, Max: 2}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := NewLayout(tc.bits, tc.shapes); !errors.Is(err, ErrInvalid) {
				t.Fatalf("NewLayout = %v, want ErrInvalid", err)
			}
		})
	}
}

// TestSingleContestIsEncoding: the packed layout of one 1-of-p contest is
// the encoding of a single-question election, message for message, and
// its tally decodes to the same counts.
func TestSingleContestIsEncoding(t *testing.T) {
	for _, p := range []int{2, 4, 64} {
		enc := Encoding{Bits: 7, Candidates: p}
		l, err := NewLayout(7, []Shape{{Options: p, Min: 1, Max: 1}})
		if err != nil {
			t.Fatal(err)
		}
		c := &l.Contests[0]
		if c.Kind != Packed || len(c.Statements()) != 1 {
			t.Fatalf("p = %d: kind %v with %d statements, want one packed statement", p, c.Kind, len(c.Statements()))
		}
		want, got := enc.Messages(), c.Statements()[0].Messages
		if len(got) != len(want) {
			t.Fatalf("p = %d: %d messages, want %d", p, len(got), len(want))
		}
		for j := range want {
			plaintexts, choices, err := c.Encode(Selection{Options: []int{j}})
			if err != nil {
				t.Fatal(err)
			}
			if got[j].Cmp(want[j]) != 0 || plaintexts[0].Cmp(want[j]) != 0 || choices[0] != j {
				t.Fatalf("p = %d, candidate %d: message %v, plaintext %v, choice %d; want M^%d = %v", p, j, got[j], plaintexts[0], choices[0], j, want[j])
			}
		}
	}
}

// TestDecodeBounds: a tally at M^digits or above, or negative, is refused
// (a one-digit layout too), and each contest's counts are its own slice.
func TestDecodeBounds(t *testing.T) {
	l, err := NewLayout(4, []Shape{{Options: 1, Min: 0, Max: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if c, err := l.Decode(big.NewInt(15)); err != nil || c[0][0] != 15 {
		t.Fatalf("Decode(15) = %v, %v; want [[15]]", c, err)
	}
	for _, bad := range []*big.Int{big.NewInt(16), big.NewInt(16 + 3), big.NewInt(-1), nil} {
		if _, err := l.Decode(bad); !errors.Is(err, ErrInvalid) {
			t.Fatalf("Decode(%v) = %v, want ErrInvalid", bad, err)
		}
	}
	two, err := NewLayout(4, []Shape{{Options: 2, Min: 1, Max: 1}, {Options: 2, Min: 1, Max: 1}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := two.Decode(big.NewInt(0x4321))
	if err != nil {
		t.Fatal(err)
	}
	c[0] = append(c[0], 9)
	if c[1][0] != 3 || c[1][1] != 4 || c[0][0] != 1 || c[0][1] != 2 {
		t.Fatalf("Decode(0x4321) = %v, want [[1 2 9] [3 4]] after appending to the first", c)
	}
}

// TestDecodeSelectionInvertsEncode decodes every digit vector of every
// small shape in both layouts: a valid selection's plaintexts decode to it,
// any other vector is refused.
func TestDecodeSelectionInvertsEncode(t *testing.T) {
	for _, s := range smallShapes() {
		for _, kind := range []Kind{Packed, PerOption} {
			c := ContestLayout{Shape: s, Kind: kind, Offset: 1, bits: 3}
			c.stmts = c.statements()
			for v := 0; v < 1<<s.Digits(); v++ {
				sel := selectionOf(v, s)
				got, err := c.DecodeSelection(c.plaintextsOf(v))
				if valid := c.Check(sel) == nil; valid != (err == nil) {
					t.Fatalf("%+v %v: digits %b: DecodeSelection error %v, valid selection = %v", s, kind, v, err, valid)
				}
				if err == nil && !reflect.DeepEqual(got, sel) {
					t.Fatalf("%+v %v: digits %b: DecodeSelection = %+v, want %+v", s, kind, v, got, sel)
				}
			}
		}
	}
}

// TestDecodeSelectionRefuses: one case per kind of plaintext that is no
// valid selection.
func TestDecodeSelectionRefuses(t *testing.T) {
	l, err := NewLayoutKinds(4, []Shape{{Options: 3, Min: 1, Max: 2, Blank: true}, {Options: 3, Min: 1, Max: 1, Blank: true}}, []Kind{PerOption, Packed})
	if err != nil {
		t.Fatal(err)
	}
	perOption, packed := &l.Contests[0], &l.Contests[1] // packed's digits above perOption's
	ints := func(xs ...int64) []*big.Int {
		out := make([]*big.Int, len(xs))
		for i, x := range xs {
			out[i] = big.NewInt(x)
		}
		return out
	}
	for _, tc := range []struct {
		name       string
		c          *ContestLayout
		plaintexts []*big.Int
		want       error
	}{
		{"packed: over max", packed, []*big.Int{new(big.Int).Add(packed.digit(0), packed.digit(1))}, ErrTooMany},
		{"packed: under min", packed, ints(0), ErrTooFew},
		{"packed: blank with an option", packed, []*big.Int{new(big.Int).Add(packed.digit(0), packed.digit(3))}, ErrBlank},
		{"packed: digit 2", packed, []*big.Int{new(big.Int).Lsh(packed.digit(0), 1)}, ErrPlaintext},
		{"packed: bits below the contest", packed, []*big.Int{new(big.Int).Add(packed.digit(0), big.NewInt(1))}, ErrPlaintext},
		{"packed: bits above the contest", packed, []*big.Int{new(big.Int).Add(packed.digit(0), packed.digit(4))}, ErrPlaintext},
		{"packed: two plaintexts", packed, ints(1, 1), ErrPlaintext},
		{"per-option: over max", perOption, ints(1, 1, 1, 0), ErrTooMany},
		{"per-option: under min", perOption, ints(0, 0, 0, 0), ErrTooFew},
		{"per-option: blank with an option", perOption, ints(1, 0, 0, 1), ErrBlank},
		{"per-option: digit 2", perOption, ints(2, 0, 0, 0), ErrPlaintext},
		{"per-option: missing plaintext", perOption, ints(1, 0, 0), ErrPlaintext},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if sel, err := tc.c.DecodeSelection(tc.plaintexts); !errors.Is(err, tc.want) {
				t.Fatalf("DecodeSelection = %+v, %v; want %v", sel, err, tc.want)
			}
		})
	}
}
