package audit

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/fabvote/fabvote/election"
)

// Write prints the report: a summary, every failure, and PASS or FAIL last.
func (r *Report) Write(w io.Writer) {
	fmt.Fprintf(w, "fabvote verify: election %q\n", r.ElectionID)
	r.Anchors.write(w)
	for _, l := range r.Preamble {
		fmt.Fprintln(w, l)
	}
	r.writeManifest(w)
	if t := r.Tally; t != nil {
		fmt.Fprintf(w, "  ballots:         %d on the ledger, %d valid (token, signature, proof, one per pseudonym)\n", t.Entries, t.Valid)
	}
	r.writeResult(w)
	r.writeOrder(w)
	if len(r.Failures) > 0 {
		r.writeFailures(w)
		return
	}
	r.writePass(w)
}

// write prints which anchors the record was checked against and, for each
// one missing, what a record could then show (docs/RECORD.md section 9).
func (a *Anchors) write(w io.Writer) {
	if a == nil {
		return
	}
	if a.GenesisHash != nil {
		fmt.Fprintf(w, "  anchor:          genesis hash %x (--genesis-hash): checked\n", a.GenesisHash)
	} else {
		fmt.Fprintln(w, "  anchor:          no --genesis-hash: a record of another channel would pass too")
	}
	if a.ManifestSHA256 != nil {
		fmt.Fprintf(w, "  anchor:          published manifest, SHA-256 %x (--manifest): checked\n", a.ManifestSHA256)
	} else {
		fmt.Fprintln(w, "  anchor:          no --manifest: a record showing another election of this id would pass too")
	}
	if a.GenesisHash == nil && a.ManifestSHA256 == nil {
		fmt.Fprintln(w, "  anchors:         none given: only the record's internal consistency was checked (docs/RECORD.md section 9)")
	}
}

// writeManifest prints the manifest's line, if it was read.
func (r *Report) writeManifest(w io.Writer) {
	m := r.Manifest
	if m == nil {
		return
	}
	mode := "single key"
	if len(m.Threshold) > 0 {
		mode = "threshold (trustees)"
	}
	fmt.Fprintf(w, "  manifest:        ok (%d contest(s), %d style(s), %s, window %s .. %s)\n", len(m.Contests), len(m.Styles), mode,
		m.Start.UTC().Format("2006-01-02T15:04:05Z"), m.End.UTC().Format("2006-01-02T15:04:05Z"))
	fmt.Fprintf(w, "  key made by:     %s\n", keyOriginLine(m))
}

// keyOriginLine says how the manifest's key was made (V33).
func keyOriginLine(m *election.Manifest) string {
	if m.KeyOrigin == election.KeyOriginDistributed && m.KeyCeremony != nil {
		return fmt.Sprintf("the trustees' ceremony, no dealer (ceremony %x)", m.KeyCeremony.ID)
	}
	return "a dealer (one machine held the whole key while it ran: for tests and benchmarks)"
}

// writeResult prints the published result and its counts per contest,
// if it was read.
func (r *Report) writeResult(w io.Writer) {
	res := r.Result
	if res == nil {
		return
	}
	fmt.Fprintf(w, "  result:          %d ballots counted, %d partial decryption(s)\n", res.BallotCount, len(res.Partials))
	for _, c := range r.jsonContests() {
		fmt.Fprintf(w, "    contest %s (%s): %d ballot(s), %d undervote(s), %d blank\n", c.ID, c.Title, c.Ballots, c.Undervotes, c.Blank)
		for i, o := range c.Options {
			fmt.Fprintf(w, "      %-24s %d\n", o, c.Counts[i])
		}
	}
}

// writeOrder prints what the blocks showed of the commit order, and every
// late ballot, if the blocks were read.
func (r *Report) writeOrder(w io.Writer) {
	o := r.Order
	if o == nil {
		return
	}
	fmt.Fprintf(w, "  opening:         manifest first written in block %d (tx %s); the blocks are read from there (the manifest key must never be written again)\n", o.Opening.Block, o.Opening.TxID)
	late := o.LateBallots()
	fmt.Fprintf(w, "  commit order:    result committed in block %d (tx %s); %d ballot(s) committed after it\n", o.ResultBlock, o.ResultTxID, len(late))
	fmt.Fprintf(w, "  ballot writes:   %d before the result and %d after it in the blocks since the election opened (each key must be written once, never deleted)\n", len(o.Earlier), len(o.Late))
	if len(late) > 0 {
		fmt.Fprintf(w, "  late ballots:    committed after the result, so not counted (a ballot counts if it committed before the result); each is checked like any other\n")
		for _, lb := range late {
			fmt.Fprintf(w, "  LATE %s, block %d\n", subject(lb.Entry), lb.Block)
		}
	}
}

// writeFailures prints the failures, counted by kind and code, each one,
// and the FAIL verdict.
func (r *Report) writeFailures(w io.Writer) {
	fmt.Fprintf(w, "  failures:        %d (%s)\n", len(r.Failures), r.failureKinds())
	for _, f := range r.Failures {
		fmt.Fprintf(w, "  FAIL %s %s\n", CheckOf(f), f)
	}
	fmt.Fprintln(w, "RESULT: FAIL")
}

// failureKinds lists "kind/code×n" for every kind and code among the
// failures, sorted.
func (r *Report) failureKinds() string {
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
	return strings.Join(ks, ", ")
}

// writePass prints the checks that passed and the PASS verdict, which
// names the late ballots left out of the count.
func (r *Report) writePass(w io.Writer) {
	if late := r.Order.LateBallots(); len(late) > 0 {
		fmt.Fprintf(w, "  checks:          every ballot, the product of the %d committed before the result, the decryption and the counts verify\n", r.Counted)
		fmt.Fprintf(w, "RESULT: PASS (%d ballot(s) committed after the result, not counted)\n", len(late))
		return
	}
	fmt.Fprintln(w, "  checks:          every ballot, the product, the decryption and the counts verify")
	fmt.Fprintln(w, "RESULT: PASS")
}
