package main

import (
	"crypto/rand"
	"fmt"
	"io"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/fabvote/fabvote/crypto/votecode"
	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/registrar"
)

// A voter's choices as text (ballot --choice, the bulk --choices file and
// the secret choices record): "contest=selection" for each contest of the
// voter's style, separated by ";". A selection is the selected options,
// by name or 0-based index, separated by ","; "blank" for a blank vote;
// nothing for an undervote of no option. In an election of one contest,
// the selection alone will do ("Alice" for "main=Alice").
const blankWord = "blank"

// parseChoices reads spec as the choices of a voter of style: one
// selection per contest of the style, in the style's order. Every error
// names the contest and what is wrong with its selection.
func parseChoices(m *election.Manifest, l *votecode.Layout, style int, spec string) ([]votecode.Selection, error) {
	contests := m.StyleContests(style)
	texts, err := splitContests(m, contestScope{fmt.Sprintf("ballot style %q", m.Styles[style].ID), contests, "selection"}, spec)
	if err != nil {
		return nil, err
	}
	sels := make([]votecode.Selection, len(contests))
	for i, ci := range contests {
		text, ok := texts[ci]
		if !ok {
			return nil, fmt.Errorf("contest %q of ballot style %q has no choice (give %s= for none)", m.Contests[ci].ID, m.Styles[style].ID, m.Contests[ci].ID)
		}
		sel, err := parseSelection(&m.Contests[ci], text)
		if err == nil {
			err = l.Contests[ci].Check(sel)
		}
		if err != nil {
			return nil, fmt.Errorf("contest %q: %w", m.Contests[ci].ID, err)
		}
		sels[i] = sel
	}
	return sels, nil
}

// contestScope is what a text of contest=… parts may name: the contests
// (indexes, in order) of a ballot style or of the election, and, for
// errors, its name and what a part gives.
type contestScope struct {
	name     string // `ballot style "north"`, "the election"
	contests []int
	item     string // "selection", "counts"
}

// splitContests reads the framing --choice and --expect-counts share:
// "contest=text" parts separated by ";", or the text alone where sc has
// one contest. It returns each named contest's text, trimmed; a contest
// of sc that spec does not name has none.
func splitContests(m *election.Manifest, sc contestScope, spec string) (map[int]string, error) {
	texts := make(map[int]string, len(sc.contests))
	for _, part := range strings.Split(spec, ";") {
		name, text, named := strings.Cut(strings.TrimSpace(part), "=")
		ci := sc.contests[0]
		switch {
		case named:
			name = strings.TrimSpace(name)
			if ci = m.ContestIndex(name); ci < 0 || !slices.Contains(sc.contests, ci) {
				return nil, fmt.Errorf("%q is no contest of %s (its contests: %s)", name, sc.name, contestIDs(m, sc.contests))
			}
		case len(sc.contests) > 1:
			return nil, fmt.Errorf("%q names no contest: %s has %d, give contest=%s for each", part, sc.name, len(sc.contests), sc.item)
		default:
			text = name
		}
		if _, dup := texts[ci]; dup {
			return nil, fmt.Errorf("contest %q is chosen twice", m.Contests[ci].ID)
		}
		texts[ci] = strings.TrimSpace(text)
	}
	return texts, nil
}

// contestIDs lists the ids of contests, comma-separated.
func contestIDs(m *election.Manifest, contests []int) string {
	ids := make([]string, len(contests))
	for i, ci := range contests {
		ids[i] = m.Contests[ci].ID
	}
	return strings.Join(ids, ", ")
}

// parseSelection reads one contest's selection: options by name or index,
// "blank", or nothing. The options come out in ascending order; one
// named twice stays twice, for the contest's check to refuse.
func parseSelection(c *election.Contest, text string) (votecode.Selection, error) {
	if text == "" {
		return votecode.Selection{}, nil
	}
	if text == blankWord && !slices.Contains(c.Options, blankWord) {
		return votecode.Selection{Blank: true}, nil
	}
	var sel votecode.Selection
	for _, item := range strings.Split(text, ",") {
		j, err := optionIndex(c, strings.TrimSpace(item))
		if err != nil {
			return sel, err
		}
		sel.Options = append(sel.Options, j)
	}
	slices.Sort(sel.Options)
	return sel, nil
}

// optionIndex accepts an exact option name or else a 0-based index: an
// option named "2" is that option, not the third. (An option whose name
// holds ",", ";" or "=" is chosen by its index.)
func optionIndex(c *election.Contest, s string) (int, error) {
	if j := slices.Index(c.Options, s); j >= 0 {
		return j, nil
	}
	if j, err := strconv.Atoi(s); err == nil {
		if j < 0 || j >= len(c.Options) {
			return 0, fmt.Errorf("%d is not an option index 0..%d", j, len(c.Options)-1)
		}
		return j, nil
	}
	return 0, fmt.Errorf("%q is neither an index nor an option (%s)", s, strings.Join(c.Options, ", "))
}

// formatChoices writes sels (one per contest of style) as parseChoices
// reads them, options by index: the selection alone in an election of
// one contest, else contest=selection for each.
func formatChoices(m *election.Manifest, style int, sels []votecode.Selection) string {
	contests := m.StyleContests(style)
	parts := make([]string, len(contests))
	for i, ci := range contests {
		text := blankWord
		if !sels[i].Blank {
			idx := make([]string, len(sels[i].Options))
			for k, j := range sels[i].Options {
				idx[k] = strconv.Itoa(j)
			}
			text = strings.Join(idx, ",")
		}
		if len(m.Contests) > 1 {
			text = m.Contests[ci].ID + "=" + text
		}
		parts[i] = text
	}
	return strings.Join(parts, ";")
}

// randomChoices draws a valid selection for each contest of style: a
// blank vote one time in (options + 2) where allowed, else a number of
// options uniform in min..max, then that many options uniformly.
func randomChoices(random io.Reader, m *election.Manifest, style int) ([]votecode.Selection, error) {
	var sels []votecode.Selection
	for _, ci := range m.StyleContests(style) {
		c := &m.Contests[ci]
		if c.Blank {
			r, err := randInt(random, len(c.Options)+2)
			if err != nil {
				return nil, err
			}
			if r == 0 {
				sels = append(sels, votecode.Selection{Blank: true})
				continue
			}
		}
		k, err := randInt(random, c.Max-c.Min+1)
		if err != nil {
			return nil, err
		}
		perm := make([]int, len(c.Options))
		for i := range perm {
			perm[i] = i
		}
		for i := len(perm) - 1; i > 0; i-- { // Fisher–Yates
			j, err := randInt(random, i+1)
			if err != nil {
				return nil, err
			}
			perm[i], perm[j] = perm[j], perm[i]
		}
		opts := slices.Clone(perm[:c.Min+k])
		slices.Sort(opts)
		sels = append(sels, votecode.Selection{Options: opts})
	}
	return sels, nil
}

func randInt(random io.Reader, n int) (int, error) {
	if random == nil {
		random = rand.Reader
	}
	v, err := rand.Int(random, big.NewInt(int64(n)))
	if err != nil {
		return 0, err
	}
	return int(v.Int64()), nil
}

// offlineStyles gives offline voter i (1-based, offlineVoterID) the
// election's style (i−1) mod (number of styles): every style has voters,
// in turn.
func offlineStyles(m *election.Manifest, ids []string) map[string]string {
	styles := make([]string, len(m.Styles))
	for i := range m.Styles {
		styles[i] = m.Styles[i].ID
	}
	out := make(map[string]string, len(ids))
	for i, id := range ids {
		out[id] = registrar.StyleInTurn(styles, i)
	}
	return out
}
