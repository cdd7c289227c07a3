package votecode

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/layouts.json from the current implementation")

// layoutVector is one layout of testdata/layouts.json: the contests'
// shapes and M's bits in, every fact a ballot and a tally read from the
// layout out. The Python verifier checks its own layout against the file
// (verifier-py/tests/test_layout.py); integers are decimal strings.
type layoutVector struct {
	Bits     uint            `json:"bits"`
	Contests []contestVector `json:"contests"`
}

type contestVector struct {
	Options      int               `json:"options"`
	Min          int               `json:"min"`
	Max          int               `json:"max"`
	Blank        bool              `json:"blank"`
	Selections   int               `json:"selections"`
	Kind         string            `json:"kind"`
	Offset       int               `json:"offset"`
	Ciphertexts  int               `json:"ciphertexts"`
	TallyWeights []string          `json:"tallyWeights"`
	Statements   []statementVector `json:"statements"`
}

type statementVector struct {
	Slots    []int    `json:"slots"`
	Exps     []int64  `json:"exps"`
	Messages []string `json:"messages"`
}

// vectorLayouts are the layouts of the vector file: each shape of the cost
// table of docs/PROTOCOL.md 3.7 alone, edge shapes, and a ballot of several
// contests whose digits follow one another.
func vectorLayouts() [][]Shape {
	var out [][]Shape
	for _, s := range []Shape{
		{Options: 4, Min: 1, Max: 1},
		{Options: 4, Min: 1, Max: 1, Blank: true},
		{Options: 10, Min: 1, Max: 1},
		{Options: 5, Min: 2, Max: 2},
		{Options: 5, Min: 0, Max: 2, Blank: true},
		{Options: 9, Min: 3, Max: 3},
		{Options: 9, Min: 0, Max: 3},
		{Options: 9, Min: 1, Max: 3, Blank: true},
		{Options: 2, Min: 1, Max: 1},
		{Options: 2, Min: 1, Max: 1, Blank: true},
		{Options: 1, Min: 0, Max: 1},
		{Options: 6, Min: 0, Max: 6},
		{Options: 3, Min: 2, Max: 3},
	} {
		out = append(out, []Shape{s})
	}
	return append(out, []Shape{
		{Options: 4, Min: 1, Max: 1},
		{Options: 5, Min: 0, Max: 2, Blank: true},
		{Options: 9, Min: 0, Max: 3, Blank: true},
		{Options: 2, Min: 1, Max: 1},
	})
}

func makeVectors(t *testing.T) []layoutVector {
	var out []layoutVector
	for _, shapes := range vectorLayouts() {
		l, err := NewLayout(7, shapes)
		if err != nil {
			t.Fatal(err)
		}
		v := layoutVector{Bits: l.Bits}
		for i := range l.Contests {
			c := &l.Contests[i]
			cv := contestVector{Options: c.Options, Min: c.Min, Max: c.Max, Blank: c.Blank, Selections: c.Selections(),
				Kind: c.Kind.String(), Offset: c.Offset, Ciphertexts: c.Ciphertexts()}
			for _, w := range c.TallyWeights() {
				cv.TallyWeights = append(cv.TallyWeights, w.String())
			}
			for _, st := range c.Statements() {
				sv := statementVector{Slots: st.Slots, Exps: st.Exps}
				for _, m := range st.Messages {
					sv.Messages = append(sv.Messages, m.String())
				}
				cv.Statements = append(cv.Statements, sv)
			}
			v.Contests = append(v.Contests, cv)
		}
		out = append(out, v)
	}
	return out
}

// TestLayoutVectors pins the layouts: the statements' messages in their
// canonical order, the kinds, offsets and weights. A change to any is a
// change of the ballot format, and fails here until the file is rewritten
// (go test -run TestLayoutVectors -update) and the Python verifier agrees.
func TestLayoutVectors(t *testing.T) {
	got, err := json.MarshalIndent(makeVectors(t), "", " ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	const path = "testdata/layouts.json"
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs from the layouts the code makes (rewrite it with -update if the change is meant)", path)
	}
}
