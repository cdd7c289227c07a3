package bboard

import (
	"context"
	"fmt"
	"strings"

	"github.com/fabvote/fabvote/crypto/votecode"
	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/record"
)

// spoiledView is one audited ballot: published with its opening, so its
// choice is public, and never counted (docs/RECORD.md 4.1).
type spoiledView struct {
	Tracker, TxID string
	Block         uint64
	Index         int
	Choices       []choiceView // empty when the opening does not check
	Status        string       // "audited, not counted", or why it is invalid
	Bad           bool
}

// choiceView is the revealed choice in one contest.
type choiceView struct{ Contest, Choice string }

// spoiledLabel is an audited ballot's status on the board and in the search.
const spoiledLabel = "audited, not counted"

// readTrackers reads the trackers from the record's blocks. A record whose
// blocks cannot be read still gets a board, which says so: its report
// already fails.
func (in *input) readTrackers() {
	t, err := record.ReadTrackers(context.Background(), in.dir)
	if err != nil {
		// Without the record's path, which differs between two builds of
		// the same board.
		in.trackersErr = strings.ReplaceAll(err.Error(), in.dir, "RECORD")
		t = &record.Trackers{Cast: map[string]string{}}
	}
	in.trackers = t
}

// spoiled shows each spoiled ballot with its revealed choice: the status
// is the report's (a failure whose subject is its tracker key), the choice
// what its opening decodes to, option titles from the manifest.
func spoiled(in *input) []spoiledView {
	p, perr := election.Prepare(in.manifest)
	reasons := map[string]string{}
	for _, f := range in.report.Failures {
		if k, ok := strings.CutPrefix(f.Subject, "tracker "); ok {
			k, _, _ = strings.Cut(k, " ")
			if _, seen := reasons[k]; !seen {
				reasons[k] = strings.TrimSpace(f.Kind + " " + f.Code)
			}
		}
	}
	out := make([]spoiledView, 0, len(in.trackers.Spoiled))
	for _, e := range in.trackers.Spoiled {
		v := spoiledView{Tracker: e.Tracker, TxID: e.TxID, Block: e.Block, Index: e.Index, Status: spoiledLabel}
		if r, bad := reasons[e.Tracker]; bad {
			v.Status, v.Bad = "invalid: "+r, true
		}
		if s, err := election.ParseSpoiledBallot(e.Value); err == nil && perr == nil {
			if sels, err := p.CheckSpoiled(s); err == nil {
				v.Choices = choices(in.manifest, s.Contests, sels)
			}
		}
		out = append(out, v)
	}
	return out
}

// choices names each contest's revealed selection by its options' titles.
func choices(m *election.Manifest, contests []byte, sels []votecode.Selection) []choiceView {
	out := make([]choiceView, len(sels))
	for i, sel := range sels {
		c := &m.Contests[contests[i]]
		var names []string
		for _, o := range sel.Options {
			names = append(names, c.Options[o])
		}
		switch {
		case sel.Blank:
			out[i] = choiceView{c.Title, "blank vote"}
		case len(names) == 0:
			out[i] = choiceView{c.Title, "no option selected"}
		default:
			out[i] = choiceView{c.Title, strings.Join(names, ", ")}
		}
	}
	return out
}

// choiceText is a spoiled ballot's choice in one line, for the search.
func (v spoiledView) choiceText() string {
	parts := make([]string, len(v.Choices))
	for i, c := range v.Choices {
		parts[i] = fmt.Sprintf("%s: %s", c.Contest, c.Choice)
	}
	return strings.Join(parts, "; ")
}
