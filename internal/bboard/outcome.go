package bboard

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fabvote/fabvote/crypto/paillier/threshold"
	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/audit"
)

// bar is one bar of a contest's chart, in the SVG's units (0 … chartWidth).
type bar struct {
	Name   string
	Count  uint64
	Width  uint64
	Y      int
	Leader bool
	Blank  bool // the blank votes' bar, never a leader
}

// chartWidth is the longest bar; rows are barStep apart.
const (
	chartWidth = 480
	barStep    = 40
)

// chart lays out one bar per option, then one for the blank votes when
// blank is not nil, the longest for the most votes, so that the page shows
// the result without any script. The leaders are the options with the
// most votes (blank votes elect nobody).
func chart(rs []optionCount, blank *optionCount) (bars []bar, height int) {
	var most, lead uint64
	for _, r := range rs {
		most, lead = max(most, r.Count), max(lead, r.Count)
	}
	all := rs
	if blank != nil {
		most = max(most, blank.Count)
		all = append(slices.Clip(rs), *blank)
	}
	for i, r := range all {
		w := uint64(0)
		if most > 0 {
			w = r.Count * chartWidth / most
		}
		isBlank := i == len(rs)
		bars = append(bars, bar{Name: r.Name, Count: r.Count, Width: w, Y: i * barStep,
			Leader: !isBlank && lead > 0 && r.Count == lead, Blank: isBlank})
	}
	return bars, len(all) * barStep
}

// outcome states a contest's result in a sentence: which option received
// the most votes, or which tie, of the total ballots that answer the
// contest. Where a ballot selects up to selections > 1 options, it says
// who leads and no more: how many are elected is not the manifest's to say.
func outcome(rs []optionCount, total uint64, selections int) string {
	var most uint64
	for _, r := range rs {
		most = max(most, r.Count)
	}
	if total == 0 {
		return "No ballot was counted."
	}
	if most == 0 {
		return fmt.Sprintf("No option received a vote, of %d ballots counted.", total)
	}
	var leaders []string
	var sh string
	for _, r := range rs {
		if r.Count == most {
			leaders, sh = append(leaders, r.Name), r.Share
		}
	}
	if selections <= 1 {
		if len(leaders) == 1 {
			return fmt.Sprintf("%s received the most votes: %d of %d ballots counted (%s).", leaders[0], most, total, sh)
		}
		return fmt.Sprintf("A tie: %s received %d votes each, of %d ballots counted.", strings.Join(leaders, " and "), most, total)
	}
	more := fmt.Sprintf(" Each ballot could select up to %d options: the table gives every option's votes.", selections)
	if len(leaders) == 1 {
		return fmt.Sprintf("%s leads with %d votes, of %d ballots counted (%s).", leaders[0], most, total, sh) + more
	}
	return fmt.Sprintf("A tie for the lead: %s received %d votes each, of %d ballots counted.", strings.Join(leaders, " and "), most, total) + more
}

// trustees says who holds a share of the decryption key and which of
// them decrypted the published tally (the partial decryptions' indices).
type trustees struct {
	Shared        bool
	Holders, K    int
	Decrypted     []int
	Organisations []string
}

// mode describes who can decrypt the tally.
func (t trustees) mode() string {
	if !t.Shared {
		return "A single key, held by the tallier"
	}
	return fmt.Sprintf("Shared among %d trustees: any %d of them together decrypt the tally, fewer cannot", t.Holders, t.K)
}

// keyOriginCheck is docs/VERIFY.md's check of how the key was made.
const keyOriginCheck = "V33"

// keyOrigin says who made the election's key and, for a key of the
// trustees' ceremony, whether the verification checked the ceremony
// (V33 among the report's checks).
func keyOrigin(m *election.Manifest, checks []audit.JSONCheck) string {
	if m.KeyOrigin != election.KeyOriginDistributed || m.KeyCeremony == nil {
		return "a dealer (one machine held the whole key while it ran: for tests and benchmarks)"
	}
	checked := "not checked by this verification"
	if i := slices.IndexFunc(checks, func(c audit.JSONCheck) bool { return c.Check == keyOriginCheck }); i >= 0 {
		checked = "modulus proof and self-test checked"
		if !checks[i].OK {
			checked = "the verification REFUSED its modulus proof or self-test (" + keyOriginCheck + ")"
		}
	}
	return fmt.Sprintf("the trustees' ceremony, no dealer (ceremony id %x; %s)", m.KeyCeremony.ID, checked)
}

func trusteesOf(m *election.Manifest, r *election.Result) (trustees, error) {
	t := trustees{Organisations: m.TrusteeMSPs}
	if len(m.Threshold) == 0 {
		return t, nil
	}
	pp, err := threshold.ParsePublicParams(m.Threshold)
	if err != nil {
		return t, fmt.Errorf("manifest.json: threshold parameters: %w", err)
	}
	t.Shared, t.Holders, t.K = true, pp.L, pp.K
	if r == nil {
		return t, nil
	}
	for _, enc := range r.Partials {
		// The verifier checked the partial decryptions; one that does not
		// parse is left out here and named in the report's failures.
		if pd, err := threshold.ParsePartialDecryption(pp, enc); err == nil && !slices.Contains(t.Decrypted, pd.Index) {
			t.Decrypted = append(t.Decrypted, pd.Index)
		}
	}
	slices.Sort(t.Decrypted)
	return t, nil
}

// causeOrder ranks failure kinds so that the ones that explain others come
// first: the record and its chain, then the election's definition and
// the commit order, then the result, then single ballots.
var causeOrder = []string{
	"RECORD", "SOURCE", "BLOCK_CHAIN", "BLOCK_SIGNATURE", "RECORD_BALLOTS", "MANIFEST", "KEY_ORIGIN", "COMMIT_ORDER",
	"RESULT_MISSING", "RESULT_DECODE", "RESULT_PRODUCT", "RESULT_COUNT", "RESULT",
	"BALLOT_DECODE", "BALLOT_KEY", "DUPLICATE", "BALLOT_INVALID", "EXPECTED_COUNTS",
}

func causeRank(kind string) int {
	if i := slices.Index(causeOrder, kind); i >= 0 {
		return i
	}
	return len(causeOrder) // a kind this code does not know: last, as given
}

// kindCount is one line of the failure summary.
type kindCount struct {
	Kind string
	N    int
}

// byCause sorts the failures first cause first (stable within a kind) and
// counts them per kind in that order.
func byCause(fs []audit.JSONFailure) ([]audit.JSONFailure, []kindCount) {
	sorted := slices.Clone(fs)
	slices.SortStableFunc(sorted, func(a, b audit.JSONFailure) int { return causeRank(a.Kind) - causeRank(b.Kind) })
	var sum []kindCount
	for _, f := range sorted {
		if n := len(sum); n > 0 && sum[n-1].Kind == f.Kind {
			sum[n-1].N++
		} else {
			sum = append(sum, kindCount{f.Kind, 1})
		}
	}
	return sorted, sum
}
