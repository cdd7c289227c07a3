package election

import (
	"strings"
	"testing"
)

func validContests() ([]Contest, []Style) {
	return []Contest{
			NewContest("mayor", "Mayor", []string{"Ada", "Bo", "Cy"}, 1, 1, false),
			NewContest("council-1", "Council, district 1", []string{"D", "E", "F", "G", "H"}, 0, 2, true),
			NewContest("council-2", "Council, district 2", []string{"I", "J", "K"}, 0, 2, false),
			NewContest("referendum", "Referendum", []string{"Yes", "No"}, 1, 1, false),
		}, []Style{
			{ID: "district-1", Contests: []string{"mayor", "council-1", "referendum"}},
			{ID: "district-2", Contests: []string{"mayor", "council-2", "referendum"}},
		}
}

func TestContestsAndStyles(t *testing.T) {
	cs, ss := validContests()
	index, err := checkContests(cs)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkStyles(ss, cs, index); err != nil {
		t.Fatal(err)
	}
}

// TestContestsRefused: one case per rule, each refused as MANIFEST with a
// message naming the field.
func TestContestsRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(cs *[]Contest, ss *[]Style)
		want string
	}{
		{"no contest", func(cs *[]Contest, ss *[]Style) { *cs = nil }, "contests: 0"},
		{"too many contests", func(cs *[]Contest, ss *[]Style) {
			for len(*cs) <= MaxContests {
				c := (*cs)[0]
				c.ID = c.ID + "x"
				*cs = append(*cs, c)
			}
		}, "contests: 33"},
		{"bad contest id", func(cs *[]Contest, ss *[]Style) { (*cs)[1].ID = "council 1" }, "contests[1].id"},
		{"repeated contest id", func(cs *[]Contest, ss *[]Style) { (*cs)[2].ID = "council-1" }, "repeats contests[1]"},
		{"empty title", func(cs *[]Contest, ss *[]Style) { (*cs)[0].Title = "" }, "contests[0].title is empty"},
		{"control character in an option", func(cs *[]Contest, ss *[]Style) { (*cs)[0].Options[1] = "B\no" }, "contests[0].options[1] contains a control character"},
		{"repeated option", func(cs *[]Contest, ss *[]Style) { (*cs)[3].Options[1] = "Yes" }, "contests[3].options[1] \"Yes\" repeats contests[3].options[0]"},
		{"max above options", func(cs *[]Contest, ss *[]Style) { (*cs)[3].Max = 3 }, "contests[3]: votecode: invalid: at most 3 selections"},
		{"min above max", func(cs *[]Contest, ss *[]Style) { (*cs)[1].Min = 3 }, "contests[1]: votecode: invalid: at least 3 selections"},
		{"one valid selection", func(cs *[]Contest, ss *[]Style) { (*cs)[3].Options = []string{"Yes"} }, "contests[3]: votecode: invalid: the contest offers a single valid selection"},
		{"no encoding", func(cs *[]Contest, ss *[]Style) { (*cs)[2].Encoding = "" }, `contests[2]: encoding "" is neither "packed" nor "per-option"`},
		{"unknown encoding", func(cs *[]Contest, ss *[]Style) { (*cs)[1].Encoding = "Packed" }, `contests[1]: encoding "Packed" is neither`},
		{"no style", func(cs *[]Contest, ss *[]Style) { *ss = nil }, "styles: 0"},
		{"bad style id", func(cs *[]Contest, ss *[]Style) { (*ss)[0].ID = "" }, "styles[0].id"},
		{"repeated style id", func(cs *[]Contest, ss *[]Style) { (*ss)[1].ID = "district-1" }, "styles[1].id \"district-1\" repeats styles[0]"},
		{"empty style", func(cs *[]Contest, ss *[]Style) { (*ss)[1].Contests = nil }, "styles[1] lists no contest"},
		{"unknown contest", func(cs *[]Contest, ss *[]Style) { (*ss)[0].Contests[1] = "council-9" }, "styles[0].contests[1] \"council-9\" is no contest"},
		{"contest twice in a style", func(cs *[]Contest, ss *[]Style) { (*ss)[0].Contests[2] = "council-1" }, "styles[0].contests[2] \"council-1\" is listed twice or out of the contests' order"},
		{"contests out of order", func(cs *[]Contest, ss *[]Style) {
			(*ss)[0].Contests = []string{"council-1", "mayor", "referendum"}
		}, "styles[0].contests[1] \"mayor\" is listed twice or out of the contests' order"},
		{"contest in no style", func(cs *[]Contest, ss *[]Style) { (*ss)[1].Contests = []string{"mayor", "referendum"} }, "contests[2] \"council-2\" is in no style"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs, ss := validContests()
			tc.edit(&cs, &ss)
			index, err := checkContests(cs)
			if err == nil {
				err = checkStyles(ss, cs, index)
			}
			if CodeOf(err) != CodeManifest || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want MANIFEST containing %q", err, tc.want)
			}
		})
	}
}
