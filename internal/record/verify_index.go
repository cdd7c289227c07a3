package record

import (
	"errors"
	"fmt"

	"github.com/fabvote/fabvote/internal/audit"
)

// checkIndex is step 3: ballots.json lists exactly the first valid write
// of each ballot key since the opening, as the blocks hold them. Both
// lists are sorted by pseudonym, so one merge finds every difference.
func (v *verifier) checkIndex() {
	for _, msg := range v.built.bad {
		v.fail(audit.KindRecordBallots, BallotsFile, errors.New(msg))
	}
	want, got := v.built.sorted(), v.index
	// One failure per ballot whose entry is missing, extra or not the
	// blocks' (RECORD.md 7): its transaction is the blocks' where they
	// write it, else the index's.
	bad := func(p, txID, format string, args ...any) {
		v.rep.Failures = append(v.rep.Failures, audit.Failure{Kind: audit.KindRecordBallots,
			Subject: "ballot " + p + " (tx " + txID + ")", Pseudonym: p, Err: fmt.Sprintf(format, args...)})
	}
	i, j := 0, 0
	for i < len(want) || j < len(got) {
		switch {
		case j == len(got) || i < len(want) && want[i].Pseudonym < got[j].Pseudonym:
			w := want[i]
			bad(w.Pseudonym, w.TxID, "written in block %d (tx %s, index %d) but not in %s", w.Block, w.TxID, w.Index, BallotsFile)
			i++
		case i == len(want) || got[j].Pseudonym < want[i].Pseudonym:
			g := got[j]
			bad(g.Pseudonym, g.TxID, "in %s (block %d, tx %s) but no valid transaction since the election opened wrote it", BallotsFile, g.Block, g.TxID)
			j++
		default:
			if want[i] != got[j] {
				bad(got[j].Pseudonym, want[i].TxID, "%s says %+v, the blocks say %+v", BallotsFile, got[j], want[i])
			}
			i, j = i+1, j+1
		}
	}
}
