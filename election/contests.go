package election

import (
	"fmt"

	"github.com/fabvote/fabvote/crypto/votecode"
)

// Contest and style limits.
const (
	MaxContests = 32
	MaxStyles   = 64
	MaxIDLen    = 64 // contest and style ids
)

// Contest is one question on a ballot: its options, how many of them a
// voter selects (Min to Max), and whether a voter may vote blank instead.
type Contest struct {
	ID      string   `json:"id"`
	Title   string   `json:"title"`
	Options []string `json:"options"`
	Min     int      `json:"minSelections"`
	Max     int      `json:"maxSelections"`
	Blank   bool     `json:"blank"`
	// Encoding is how ballots encrypt and prove the contest: "packed" or
	// "per-option" (docs/PROTOCOL.md section 3.7). The manifest states it,
	// so that a verifier needs no cost rule; NewContest writes the kind
	// the rule makes cheaper.
	Encoding string `json:"encoding"`
}

// NewContest is a contest with the encoding its shape makes cheaper.
func NewContest(id, title string, options []string, min, max int, blank bool) Contest {
	c := Contest{ID: id, Title: title, Options: options, Min: min, Max: max, Blank: blank}
	c.Encoding = c.Shape().Kind().String()
	return c
}

// kind parses Encoding.
func (c *Contest) kind() (votecode.Kind, error) {
	for _, k := range []votecode.Kind{votecode.Packed, votecode.PerOption} {
		if c.Encoding == k.String() {
			return k, nil
		}
	}
	return 0, fmt.Errorf("encoding %q is neither %q nor %q", truncate(c.Encoding, 40), votecode.Packed, votecode.PerOption)
}

// Shape is what the contest's encryption depends on.
func (c *Contest) Shape() votecode.Shape {
	return votecode.Shape{Options: len(c.Options), Min: c.Min, Max: c.Max, Blank: c.Blank}
}

// Style is a set of contests that voters get together: a district's
// ballot, say. Its contests are listed by id, in the order of the
// election's contests.
type Style struct {
	ID       string   `json:"id"`
	Contests []string `json:"contests"`
}

// checkContests checks 1..MaxContests contests with distinct well-formed
// ids, named titles and options, and shapes the layout accepts. It returns
// each id's index.
func checkContests(cs []Contest) (map[string]int, error) {
	if len(cs) < 1 || len(cs) > MaxContests {
		return nil, manifestErr("contests: %d, want 1..%d", len(cs), MaxContests)
	}
	index := make(map[string]int, len(cs))
	for i := range cs {
		c := &cs[i]
		field := fmt.Sprintf("contests[%d]", i)
		if err := checkID(field+".id", c.ID); err != nil {
			return nil, err
		}
		if j, dup := index[c.ID]; dup {
			return nil, manifestErr("%s.id %q repeats contests[%d]", field, c.ID, j)
		}
		index[c.ID] = i
		if err := checkName(field+".title", c.Title); err != nil {
			return nil, err
		}
		if err := checkOptions(field, c.Options); err != nil {
			return nil, err
		}
		if err := c.Shape().Validate(); err != nil {
			return nil, manifestErr("%s: %v", field, err)
		}
		if _, err := c.kind(); err != nil {
			return nil, manifestErr("%s: %v", field, err)
		}
	}
	return index, nil
}

// checkOptions checks a contest's option names: each well formed, none
// listed twice. (How many there may be is the shape's rule.)
func checkOptions(field string, options []string) error {
	seen := make(map[string]int, len(options))
	for j, o := range options {
		name := fmt.Sprintf("%s.options[%d]", field, j)
		if err := checkName(name, o); err != nil {
			return err
		}
		if k, dup := seen[o]; dup {
			return manifestErr("%s %q repeats %s.options[%d]", name, truncate(o, 40), field, k)
		}
		seen[o] = j
	}
	return nil
}

// StyleIndex is the index of the style with id, or -1.
func (m *Manifest) StyleIndex(id string) int {
	for i := range m.Styles {
		if m.Styles[i].ID == id {
			return i
		}
	}
	return -1
}

// ContestIndex is the index of the contest with id, or -1.
func (m *Manifest) ContestIndex(id string) int {
	for i := range m.Contests {
		if m.Contests[i].ID == id {
			return i
		}
	}
	return -1
}

// StyleContests are the indexes of style's contests in the manifest's
// contests, in order: what a ballot of the style lists.
func (m *Manifest) StyleContests(style int) []int {
	out := make([]int, len(m.Styles[style].Contests))
	for i, id := range m.Styles[style].Contests {
		out[i] = m.ContestIndex(id)
	}
	return out
}

// checkStyles checks 1..MaxStyles styles with distinct well-formed ids,
// each listing at least one contest, each contest known and at most once,
// in the order of the contests (so that a style has one encoding), and
// every contest in some style.
func checkStyles(styles []Style, cs []Contest, index map[string]int) error {
	if len(styles) < 1 || len(styles) > MaxStyles {
		return manifestErr("styles: %d, want 1..%d", len(styles), MaxStyles)
	}
	seen := make(map[string]int, len(styles))
	used := make([]bool, len(index))
	for i, s := range styles {
		field := fmt.Sprintf("styles[%d]", i)
		if err := checkID(field+".id", s.ID); err != nil {
			return err
		}
		if j, dup := seen[s.ID]; dup {
			return manifestErr("%s.id %q repeats styles[%d]", field, s.ID, j)
		}
		seen[s.ID] = i
		if len(s.Contests) == 0 {
			return manifestErr("%s lists no contest", field)
		}
		last := -1
		for k, id := range s.Contests {
			ci, ok := index[id]
			switch {
			case !ok:
				return manifestErr("%s.contests[%d] %q is no contest of the election", field, k, truncate(id, 80))
			case ci <= last:
				return manifestErr("%s.contests[%d] %q is listed twice or out of the contests' order", field, k, id)
			}
			last, used[ci] = ci, true
		}
	}
	for ci, ok := range used {
		if !ok {
			return manifestErr("contests[%d] %q is in no style", ci, cs[ci].ID)
		}
	}
	return nil
}

// checkID allows 1..MaxIDLen characters of [A-Za-z0-9._-], starting with a
// letter or digit, like election ids.
func checkID(field, id string) error {
	if id == "" || len(id) > MaxIDLen || !electionIDRE.MatchString(id) {
		return manifestErr("%s %q must be 1..%d characters of [A-Za-z0-9._-] starting with a letter or digit", field, truncate(id, 80), MaxIDLen)
	}
	return nil
}

// canonContests is cs with nil lists as empty, as the canonical encoding
// writes them (a copy when it changes anything).
func canonContests(cs []Contest) []Contest {
	out := make([]Contest, len(cs))
	for i, c := range cs {
		if c.Options == nil {
			c.Options = []string{}
		}
		out[i] = c
	}
	return out
}

// canonStyles is canonContests for styles.
func canonStyles(ss []Style) []Style {
	out := make([]Style, len(ss))
	for i, s := range ss {
		if s.Contests == nil {
			s.Contests = []string{}
		}
		out[i] = s
	}
	return out
}

// The ids of the contest and the style of an election of one question.
const (
	OneContestID = "main"
	OneStyleID   = "default"
)

// OneContest is the contests and styles of an election of one question:
// choose one of options, in one style.
func OneContest(title string, options []string) ([]Contest, []Style) {
	c := NewContest(OneContestID, title, append([]string(nil), options...), 1, 1, false)
	return []Contest{c}, []Style{{ID: OneStyleID, Contests: []string{OneContestID}}}
}
