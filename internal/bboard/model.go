package bboard

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/audit"
)

// status is what the report says about one ballot of the index.
type status int

const (
	statusCounted    status = iota // verified, on time, in the published result
	statusValid                    // verified, but no result is published yet
	statusLate                     // committed after the tally: not counted
	statusInvalid                  // a failure names its pseudonym: not counted
	statusUnverified               // the verification stopped before the ballots
)

// statusInfo is how a status is shown: a code for the search data, a word
// for the tables (never colour alone) and a CSS class.
var statusInfo = [...]struct{ code, label, class string }{
	statusCounted:    {"c", "counted", "ok"},
	statusValid:      {"v", "valid, no result published yet", "neutral"},
	statusLate:       {"l", "late: not counted", "bad"},
	statusInvalid:    {"i", "invalid: not counted", "bad"},
	statusUnverified: {"u", "not verified", "neutral"},
}

func (s status) Code() string  { return statusInfo[s].code }
func (s status) Label() string { return statusInfo[s].label }
func (s status) Class() string { return statusInfo[s].class }

// row is one ballot as the site shows it.
type row struct {
	Hash, Pseudonym, TxID string
	Tracker               string // hex; "" when the ballot does not decode
	Block                 uint64
	Index                 int
	Status                status
	Reason                string // the failure's kind and code, for an invalid ballot
}

// stepDescriptions say in plain words what each step of docs/RECORD.md
// section 7 establishes, in the verifiers' order.
var stepDescriptions = []struct{ step, what string }{
	{"record", "The record is complete and well formed."},
	{"blocks", "The blocks form one unbroken chain of hashes from the genesis block."},
	{"block-signatures", "Every block after the genesis block is signed by the channel's ordering service."},
	{"ballot-index", "The list of ballots matches the ballots written in the blocks."},
	{"ballots", "Every ballot is well formed, authorised by the election authority and proves that it holds a valid vote in every contest of its ballot style."},
	{"commit-order", "No ballot was overwritten or deleted, and the manifest and the result were each written only once."},
	{"result", "The published result is the proven decryption of the product of the counted ballots."},
}

// stepView is one line of the verification table.
type stepView struct {
	Name, What string
	Reached    bool
	OK         bool
}

// checkView is one numbered check of docs/VERIFY.md that the verifier ran.
type checkView struct {
	ID, Title string
	OK        bool
}

// failureView is one failure of the report.
type failureView struct{ Check, Kind, Code, Subject, Error string }

// optionCount is one line of a contest's result table.
type optionCount struct {
	Name  string
	Count uint64
	Share string // percentage of the contest's ballots, one decimal
}

// contestView is one contest as the site shows it: from the manifest, and
// its count when a result is published.
type contestView struct {
	ID, Title string
	Rule      string // how many options a voter selects, in words
	Options   []string
	// The count (HasResult only).
	Ballots     uint64 // ballots that answer the contest
	Result      []optionCount
	ShowBlank   bool // the contest allows blank votes (or the result counts some)
	Blank       optionCount
	Undervotes  uint64
	Bars        []bar
	ChartHeight int
	Outcome     string
}

// styleView is one ballot style: the titles of its contests.
type styleView struct {
	ID       string
	Contests []string
}

// pageRef names one page of the ballot list by the hashes it holds, so that
// a reader without JavaScript can go straight to the page with their hash.
type pageRef struct {
	Num         int
	File        string
	First, Last string
	Rows        []row
}

// maxIndexFailures caps the failures listed on the front page; the full
// list stays in report.json, which the site publishes verbatim.
const maxIndexFailures = 200

// pageSize is the number of rows per ballot list page: 1,000 rows are about
// 230 kB of HTML, quick to load and still searchable with the browser's find.
const pageSize = 1000

// model is everything the templates show.
type model struct {
	in         *input
	Title      string
	ElectionID string
	Channel    string
	Chaincode  string
	LastBlock  uint64
	Start, End string
	Contests   []contestView
	Styles     []styleView
	Decryption string
	// KeyOrigin says who made the key (the manifest's keyOrigin) and
	// whether the verification checked a ceremony's proofs.
	KeyOrigin string
	Trustees  []string
	Authority string
	MaxVoters uint64
	// BoothDigest is the manifest's boothDigest: the booth the voters ran
	// (empty when the election committed to none).
	BoothDigest string
	Shares      trustees
	FailureSum  []kindCount
	Downloads   []download
	BallotCount uint64
	HasResult   bool
	OK          bool
	GenesisHash string
	// ManifestHash is SHA-256 of the record's manifest.json.
	ManifestHash string
	// The anchors the verification checked: the genesis hash and the
	// published manifest it was given, when it was given them.
	AnchorGenesis, AnchorManifest bool
	// Who verified, when, and another verifier's verdict on the same
	// files (set by BuildWith).
	VerifiedBy, VerifiedAt, Refused string
	Other                           *OtherReport
	Steps                           []stepView
	Checks                          []checkView
	Failures                        []failureView
	MoreFail                        int
	Counts                          *audit.JSONBallots
	Indexed                         int
	ByStatus                        []statusCount
	Pages                           []pageRef
	Rows                            []row
	Spoiled                         []spoiledView
	TrackersErr                     string
}

// setProvenance states who verified; the verdict passes only when every
// verifier shown passes.
func (m *model) setProvenance(p Provenance) {
	m.VerifiedBy, m.Other, m.Refused = p.Verifier, p.Other, p.Refused
	if !p.Time.IsZero() {
		m.VerifiedAt = p.Time.UTC().Format("2006-01-02 15:04:05 UTC")
	}
	if p.Other != nil && !p.Other.OK {
		m.OK = false
	}
}

type statusCount struct {
	Label, Class string
	N            int
}

// newModel derives the view from the checked input.
func newModel(in *input) (*model, error) {
	m := in.manifest
	v := &model{
		in: in, Title: m.Title, ElectionID: m.ElectionID, Channel: in.record.Channel,
		Chaincode: in.record.Chaincode, LastBlock: in.record.LastBlock,
		Start: fmtTime(m.Start), End: fmtTime(m.End),
		Trustees: m.TrusteeMSPs, Authority: m.AuthorityMSP, MaxVoters: m.MaxVoters, BoothDigest: m.BoothDigest,
		OK: *in.report.OK, GenesisHash: in.report.GenesisHash, ManifestHash: in.manifestHash,
		Counts: in.report.Ballots, Indexed: len(in.ballots),
	}
	var err error
	if v.Shares, err = trusteesOf(m, in.result); err != nil {
		return nil, err
	}
	v.Decryption = v.Shares.mode()
	v.KeyOrigin = keyOrigin(m, in.report.Checks)
	if r := in.result; r != nil {
		v.HasResult, v.BallotCount = true, r.BallotCount
	}
	v.Contests, v.Styles = contests(m, in.result)
	if a := in.report.Anchors; a != nil {
		v.AnchorGenesis = a.GenesisHash != nil && *a.GenesisHash == in.report.GenesisHash
		v.AnchorManifest = a.ManifestSHA256 != nil && *a.ManifestSHA256 == in.manifestHash
	}
	v.Steps = steps(in.report.Steps)
	v.Checks = checks(in.report.Checks)
	sorted, sum := byCause(in.report.Failures)
	v.Failures, v.MoreFail = failures(sorted)
	v.FailureSum = sum
	v.Rows = rows(in)
	v.Spoiled, v.TrackersErr = spoiled(in), in.trackersErr
	v.ByStatus = countStatuses(v.Rows)
	v.Pages = paginate(v.Rows)
	return v, nil
}

// contests are the manifest's contests, each with its count from r
// (crossCheck made sure r has one entry per contest with one count per
// option), and its styles.
func contests(m *election.Manifest, r *election.Result) ([]contestView, []styleView) {
	out := make([]contestView, len(m.Contests))
	for i := range m.Contests {
		c := &m.Contests[i]
		cv := contestView{ID: c.ID, Title: c.Title, Rule: rule(c), Options: c.Options}
		if r != nil {
			cr := &r.Contests[i]
			cv.Ballots, cv.Undervotes = cr.Ballots, cr.Undervotes
			for j, name := range c.Options {
				cv.Result = append(cv.Result, optionCount{name, cr.Counts[j], share(cr.Counts[j], cr.Ballots)})
			}
			cv.ShowBlank = c.Blank || cr.Blank != 0
			cv.Blank = optionCount{"Blank votes", cr.Blank, share(cr.Blank, cr.Ballots)}
			var blank *optionCount
			if cv.ShowBlank {
				blank = &cv.Blank
			}
			cv.Bars, cv.ChartHeight = chart(cv.Result, blank)
			cv.Outcome = outcome(cv.Result, cr.Ballots, c.Max)
		}
		out[i] = cv
	}
	styles := make([]styleView, len(m.Styles))
	for i, s := range m.Styles {
		sv := styleView{ID: s.ID}
		for _, id := range s.Contests {
			if ci := m.ContestIndex(id); ci >= 0 {
				sv.Contests = append(sv.Contests, m.Contests[ci].Title)
			}
		}
		styles[i] = sv
	}
	return out, styles
}

// rule says in words how many of a contest's options a voter selects:
// "choose 1 of 4", "up to 2 of 5, or blank", "choose 2 to 3 of 6".
func rule(c *election.Contest) string {
	n := len(c.Options)
	var s string
	switch {
	case c.Min == c.Max:
		s = fmt.Sprintf("choose %d of %d", c.Max, n)
	case c.Min == 0:
		s = fmt.Sprintf("up to %d of %d", c.Max, n)
	default:
		s = fmt.Sprintf("choose %d to %d of %d", c.Min, c.Max, n)
	}
	if c.Blank {
		s += ", or blank"
	}
	return s
}

func fmtTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") }

func share(n, total uint64) string {
	if total == 0 {
		return "–"
	}
	// Integer arithmetic keeps the output identical on every platform.
	permille := (n*1000 + total/2) / total
	return fmt.Sprintf("%d.%d %%", permille/10, permille%10)
}

// steps lists every known step, in order, marking those the report lacks as
// not reached, then any step this code does not know, as the report gives it.
func steps(got []audit.JSONStep) []stepView {
	byName := map[string]audit.JSONStep{}
	for _, s := range got {
		byName[s.Step] = s
	}
	var out []stepView
	known := map[string]bool{}
	for _, d := range stepDescriptions {
		known[d.step] = true
		s, ok := byName[d.step]
		out = append(out, stepView{Name: d.step, What: d.what, Reached: ok, OK: s.OK})
	}
	for _, s := range got {
		if !known[s.Step] {
			out = append(out, stepView{Name: s.Step, What: "(a step this bulletin board does not describe)", Reached: true, OK: s.OK})
		}
	}
	return out
}

// checks lists the checks the report ran, with their titles.
func checks(got []audit.JSONCheck) []checkView {
	title := map[string]string{}
	for _, c := range audit.Checks {
		title[c.ID] = c.Title
	}
	out := make([]checkView, 0, len(got))
	for _, c := range got {
		out = append(out, checkView{ID: c.Check, Title: cmp.Or(title[c.Check], "(a check this bulletin board does not describe)"), OK: c.OK})
	}
	return out
}

func failures(fs []audit.JSONFailure) ([]failureView, int) {
	var out []failureView
	for i, f := range fs {
		if i == maxIndexFailures {
			return out, len(fs) - i
		}
		out = append(out, failureView{f.Check, f.Kind, f.Code, f.Subject, f.Error})
	}
	return out, 0
}

// rows applies docs/RECORD.md section 7: a ballot of the index is counted
// when no failure names its pseudonym and it is not among lateBallots.
func rows(in *input) []row {
	reasons := map[string]string{}
	for _, f := range in.report.Failures {
		if f.Pseudonym != "" {
			if _, seen := reasons[f.Pseudonym]; !seen {
				reasons[f.Pseudonym] = strings.TrimSpace(f.Kind + " " + f.Code)
			}
		}
	}
	late := map[string]bool{}
	for _, l := range in.report.LateBallots {
		late[l.Pseudonym] = true
	}
	checked := slices.ContainsFunc(in.report.Steps, func(s audit.JSONStep) bool { return s.Step == "ballots" })
	out := make([]row, len(in.ballots))
	for i, b := range in.ballots {
		r := row{Hash: b.BallotHash, Pseudonym: b.Pseudonym, TxID: b.TxID, Block: b.Block, Index: b.Index, Tracker: in.trackers.Cast[b.Pseudonym]}
		reason, bad := reasons[b.Pseudonym]
		switch {
		case !checked:
			r.Status = statusUnverified
		case bad:
			r.Status, r.Reason = statusInvalid, reason
		case late[b.Pseudonym]:
			r.Status = statusLate
		case in.result == nil:
			r.Status = statusValid
		default:
			r.Status = statusCounted
		}
		out[i] = r
	}
	// By hash, the voter's key to the list; the pseudonym breaks ties so
	// the order never depends on the input's.
	slices.SortFunc(out, func(a, b row) int {
		return cmp.Or(strings.Compare(a.Hash, b.Hash), strings.Compare(a.Pseudonym, b.Pseudonym))
	})
	return out
}

func countStatuses(rs []row) []statusCount {
	n := make([]int, len(statusInfo))
	for _, r := range rs {
		n[r.Status]++
	}
	var out []statusCount
	for s, c := range n {
		if c > 0 {
			out = append(out, statusCount{status(s).Label(), status(s).Class(), c})
		}
	}
	return out
}

// paginate splits the sorted rows into pages; an empty list still gets one
// (empty) page so that every link of the site has a target.
func paginate(rs []row) []pageRef {
	var out []pageRef
	for i := 0; i == 0 || i < len(rs); i += pageSize {
		p := pageRef{Num: len(out) + 1, Rows: rs[i:min(i+pageSize, len(rs))]}
		p.File = fmt.Sprintf("ballots-%04d.html", p.Num)
		if len(p.Rows) > 0 {
			p.First, p.Last = p.Rows[0].Hash, p.Rows[len(p.Rows)-1].Hash
		}
		out = append(out, p)
	}
	return out
}
