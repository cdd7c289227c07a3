package audit

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// Write prints the report: a summary, every failure, and PASS or FAIL last.
func (r *Report) Write(w io.Writer) {
	fmt.Fprintf(w, "fabvote verify: election %q\n", r.ElectionID)
	for _, l := range r.Preamble {
		fmt.Fprintln(w, l)
	}
	if m := r.Manifest; m != nil {
		mode := "single key"
		if len(m.Threshold) > 0 {
			mode = "threshold (trustees)"
		}
		fmt.Fprintf(w, "  manifest:        ok (%d candidates, %s, window %s .. %s)\n", len(m.Candidates), mode,
			m.Start.UTC().Format("2006-01-02T15:04:05Z"), m.End.UTC().Format("2006-01-02T15:04:05Z"))
	}
	if t := r.Tally; t != nil {
		fmt.Fprintf(w, "  ballots:         %d on the ledger, %d valid (token, signature, proof, one per pseudonym)\n", t.Entries, t.Valid)
	}
	if res := r.Result; res != nil {
		fmt.Fprintf(w, "  result:          %d ballots counted, %d partial decryption(s)\n", res.BallotCount, len(res.Partials))
		if r.Manifest != nil && len(res.Counts) == len(r.Manifest.Candidates) {
			for i, c := range r.Manifest.Candidates {
				fmt.Fprintf(w, "    %-24s %d\n", c, res.Counts[i])
			}
		}
	}
	if o := r.Order; o != nil {
		fmt.Fprintf(w, "  opening:         manifest first written in block %d (tx %s); the blocks are read from there (the manifest key must never be written again)\n", o.Opening.Block, o.Opening.TxID)
		fmt.Fprintf(w, "  commit order:    result committed in block %d (tx %s); %d ballot(s) committed after it\n", o.ResultBlock, o.ResultTxID, len(o.Late))
		fmt.Fprintf(w, "  ballot writes:   %d before the result and %d after it in the blocks since the election opened (each key must be written once, never deleted)\n", len(o.Earlier), len(o.Late))
		if len(o.Late) > 0 {
			fmt.Fprintf(w, "  late ballots:    committed after the result, so not counted (a ballot counts if it committed before the result); each is checked like any other\n")
			for _, lb := range o.Late {
				fmt.Fprintf(w, "  LATE %s, block %d\n", subject(lb.Entry), lb.Block)
			}
		}
	}
	if len(r.Failures) > 0 {
		kinds := map[string]int{}
		for _, f := range r.Failures {
			k := f.Kind
			if f.Code != "" {
				k += "/" + f.Code
			}
			kinds[k]++
		}
		var ks []string
		for k, n := range kinds {
			ks = append(ks, fmt.Sprintf("%s×%d", k, n))
		}
		sort.Strings(ks)
		fmt.Fprintf(w, "  failures:        %d (%s)\n", len(r.Failures), strings.Join(ks, ", "))
		for _, f := range r.Failures {
			fmt.Fprintf(w, "  FAIL %s\n", f)
		}
		fmt.Fprintln(w, "RESULT: FAIL")
		return
	}
	if r.Order != nil && len(r.Order.Late) > 0 {
		fmt.Fprintf(w, "  checks:          every ballot, the product of the %d committed before the result, the decryption and the counts verify\n", r.Counted)
		fmt.Fprintf(w, "RESULT: PASS (%d ballot(s) committed after the result, not counted)\n", len(r.Order.Late))
		return
	}
	fmt.Fprintln(w, "  checks:          every ballot, the product, the decryption and the counts verify")
	fmt.Fprintln(w, "RESULT: PASS")
}
