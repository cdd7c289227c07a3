package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/fabvote/fabvote/crypto/votecode"
	"github.com/fabvote/fabvote/election"
)

// choicesHeader heads a secret record of voters' choices: a voter's
// pseudonym (or voter id), then the voter's choices as --choice takes them.
const choicesHeader = "pseudonym,choices"

// expectedCounts is what a result must count, contest by contest: from
// the voters' recorded choices (ballots, counts and blank votes), or from
// --expect-counts (counts only: ballots nil).
type expectedCounts struct {
	m       *election.Manifest
	ballots []uint64 // per contest; nil: not known
	counts  [][]uint64
	blank   []uint64
}

func newExpectedCounts(m *election.Manifest) *expectedCounts {
	e := &expectedCounts{m: m, ballots: make([]uint64, len(m.Contests)), blank: make([]uint64, len(m.Contests))}
	for i := range m.Contests {
		e.counts = append(e.counts, make([]uint64, len(m.Contests[i].Options)))
	}
	return e
}

// add counts one voter of style with choices sels.
func (e *expectedCounts) add(style int, sels []votecode.Selection) {
	for i, ci := range e.m.StyleContests(style) {
		e.ballots[ci]++
		if sels[i].Blank {
			e.blank[ci]++
		}
		for _, j := range sels[i].Options {
			e.counts[ci][j]++
		}
	}
}

// print writes the counts, a line per contest.
func (e *expectedCounts) print(w io.Writer) {
	for ci := range e.m.Contests {
		c := &e.m.Contests[ci]
		fmt.Fprintf(w, "expected counts of %s (%d ballots):", c.ID, e.ballots[ci])
		for j, o := range c.Options {
			fmt.Fprintf(w, " %s=%d", o, e.counts[ci][j])
		}
		if c.Blank {
			fmt.Fprintf(w, " blank=%d", e.blank[ci])
		}
		fmt.Fprintln(w)
	}
}

// readChoicesFiles counts the choices recorded in files (choicesHeader
// lines: the first field is not read). A line's ballot style is the first
// of the election's whose contests its choices answer.
func readChoicesFiles(p *election.Prepared, files []string) (*expectedCounts, error) {
	e := newExpectedCounts(p.Manifest)
	for _, path := range files {
		if err := e.readChoices(p, path); err != nil {
			return nil, err
		}
	}
	return e, nil
}

func (e *expectedCounts) readChoices(p *election.Prepared, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || (n == 1 && line == choicesHeader) {
			continue
		}
		_, spec, ok := strings.Cut(line, ",")
		if !ok {
			return fmt.Errorf("%s:%d: want %q", path, n, choicesHeader)
		}
		style, sels, err := parseAnyStyle(p, spec)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
		e.add(style, sels)
	}
	return sc.Err()
}

// parseAnyStyle parses spec as the choices of the first style they fit.
func parseAnyStyle(p *election.Prepared, spec string) (int, []votecode.Selection, error) {
	var firstErr error
	for s := range p.Manifest.Styles {
		sels, err := parseChoices(p.Manifest, p.Layout, s, spec)
		if err == nil {
			return s, sels, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return 0, nil, firstErr
}

// parseExpectedCounts reads --expect-counts: the counts of every option,
// comma-separated, as "contest=counts" per contest separated by ";" (the
// counts alone in an election of one contest).
func parseExpectedCounts(m *election.Manifest, spec string) (*expectedCounts, error) {
	e := newExpectedCounts(m)
	e.ballots, e.blank = nil, nil
	all := make([]int, len(m.Contests))
	for i := range all {
		all[i] = i
	}
	texts, err := splitContests(m, contestScope{"the election", all, "counts"}, spec)
	if err != nil {
		return nil, err
	}
	for _, ci := range all {
		text, ok := texts[ci]
		if !ok {
			return nil, fmt.Errorf("contest %q has no counts", m.Contests[ci].ID)
		}
		items := splitList(text)
		if len(items) != len(m.Contests[ci].Options) {
			return nil, fmt.Errorf("contest %q: %d counts for %d options", m.Contests[ci].ID, len(items), len(m.Contests[ci].Options))
		}
		for j, s := range items {
			n, err := strconv.ParseUint(s, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("contest %q: %q is not a count", m.Contests[ci].ID, s)
			}
			e.counts[ci][j] = n
		}
	}
	return e, nil
}

// mismatches lists, in words, where r differs from the expected counts.
func (e *expectedCounts) mismatches(r *election.Result) []string {
	var out []string
	if len(r.Contests) != len(e.m.Contests) {
		return []string{fmt.Sprintf("the result has %d contests, the election %d", len(r.Contests), len(e.m.Contests))}
	}
	for ci := range e.m.Contests {
		c, cr := &e.m.Contests[ci], &r.Contests[ci]
		if e.ballots != nil && cr.Ballots != e.ballots[ci] {
			out = append(out, fmt.Sprintf("contest %s counts %d ballots, the voters' recorded choices give %d", c.ID, cr.Ballots, e.ballots[ci]))
		}
		if e.blank != nil && cr.Blank != e.blank[ci] {
			out = append(out, fmt.Sprintf("contest %s has %d blank votes, the voters' recorded choices give %d", c.ID, cr.Blank, e.blank[ci]))
		}
		for j, want := range e.counts[ci] {
			if j >= len(cr.Counts) || cr.Counts[j] != want {
				got := "no count"
				if j < len(cr.Counts) {
					got = fmt.Sprintf("%d votes", cr.Counts[j])
				}
				out = append(out, fmt.Sprintf("%s has %s in contest %s, the voters' recorded choices give %d", c.Options[j], got, c.ID, want))
			}
		}
	}
	return out
}
