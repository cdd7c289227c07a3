package audit

import (
	"cmp"
	"encoding/hex"
	"encoding/json"
	"io"
	"slices"
	"strings"
)

// Sources of a report (docs/RECORD.md section 7).
const (
	SourceNetwork = "network"
	SourceRecord  = "record"
)

// Step names of the JSON report, in the order a record verification runs
// them (docs/RECORD.md sections 6 and 7).
const (
	StepRecord          = "record"
	StepBlocks          = "blocks"
	StepBlockSignatures = "block-signatures"
	StepBallotIndex     = "ballot-index"
	StepBallots         = "ballots"
	StepCommitOrder     = "commit-order"
	StepResult          = "result"
)

// NetworkSteps are the steps of a live verification: it has no record.
var NetworkSteps = []string{StepBallots, StepCommitOrder, StepResult}

// RecordSteps are every step of a record verification.
var RecordSteps = []string{StepRecord, StepBlocks, StepBlockSignatures, StepBallotIndex, StepBallots, StepCommitOrder, StepResult}

// StepOf is the step a failure kind belongs to (the table of RECORD.md 7).
// EXPECTED_COUNTS (fabvote verify --expect-counts) is about the result. A
// SOURCE failure of a live verification belongs to no step it runs: only
// the report's ok shows it.
func StepOf(kind string) string {
	switch kind {
	case KindRecord, KindSource:
		return StepRecord
	case KindBlockChain:
		return StepBlocks
	case KindBlockSignature:
		return StepBlockSignatures
	case KindRecordBallots:
		return StepBallotIndex
	case KindManifest, KindKeyOrigin, KindBallotDecode, KindBallotKey, KindBallotInvalid, KindDuplicate, KindSpoiled, KindTracker:
		return StepBallots
	case KindOrder:
		return StepCommitOrder
	default:
		return StepResult
	}
}

// ReportKinds are the failure kinds in the order of the table of RECORD.md
// 7, step by step: the order a report lists its failures in.
var ReportKinds = []string{KindRecord, KindSource, KindBlockChain, KindBlockSignature, KindRecordBallots,
	KindManifest, KindKeyOrigin, KindBallotDecode, KindBallotKey, KindBallotInvalid, KindDuplicate, KindSpoiled, KindTracker, KindOrder,
	KindResultMissing, KindResultDecode, KindResultCount, KindResultProduct, KindResult, KindExpectedCounts}

// SortFailures puts failures in the order of RECORD.md 7, which both
// verifiers follow so that their reports are the same list: by kind in
// ReportKinds' order (a step's causes before what they explain in later
// steps), then by subject, pseudonym and code, byte by byte; failures
// equal in all of these keep the order they were found in.
func SortFailures(fs []Failure) {
	rank := make(map[string]int, len(ReportKinds))
	for i, k := range ReportKinds {
		rank[k] = i + 1 // an unknown kind (0) goes last
	}
	order := func(kind string) int { return cmp.Or(rank[kind], len(ReportKinds)+1) }
	slices.SortStableFunc(fs, func(a, b Failure) int {
		return cmp.Or(cmp.Compare(order(a.Kind), order(b.Kind)), strings.Compare(a.Subject, b.Subject),
			strings.Compare(a.Pseudonym, b.Pseudonym), strings.Compare(a.Code, b.Code))
	})
}

// ReportFormat and ReportVersion name the JSON report's format.
const (
	ReportFormat  = "fabvote-verify-report"
	ReportVersion = 1
)

// JSONReport is the JSON verification report (docs/RECORD.md section 7,
// docs/record/report.schema.json): what Report.JSON writes, and what a
// reader of either verifier's report decodes (the bulletin board, the
// end-to-end test). Field order is the schema's, so that two verifiers'
// reports diff line by line.
type JSONReport struct {
	Format      string        `json:"format"`
	Version     int           `json:"version"`
	ElectionID  string        `json:"electionID"`
	Source      string        `json:"source"`
	OK          *bool         `json:"ok"` // a pointer, so that a reader tells a report without "ok" from one not ok
	GenesisHash string        `json:"genesisHash,omitempty"`
	Anchors     *JSONAnchors  `json:"anchors,omitempty"`
	Digest      string        `json:"recordDigest,omitempty"`
	Steps       []JSONStep    `json:"steps"`
	Checks      []JSONCheck   `json:"checks"`
	Ballots     *JSONBallots  `json:"ballots"`
	Result      *JSONResult   `json:"result"`
	LateBallots []JSONLate    `json:"lateBallots"`
	Failures    []JSONFailure `json:"failures"`
}

// JSONAnchors names each anchor a record verification checked; null
// when not given.
type JSONAnchors struct {
	GenesisHash    *string `json:"genesisHash"`
	ManifestSHA256 *string `json:"manifestSHA256"`
}

func (a *Anchors) json() *JSONAnchors {
	if a == nil {
		return nil
	}
	hexOrNull := func(b []byte) *string {
		if b == nil {
			return nil
		}
		s := hex.EncodeToString(b)
		return &s
	}
	return &JSONAnchors{GenesisHash: hexOrNull(a.GenesisHash), ManifestSHA256: hexOrNull(a.ManifestSHA256)}
}

// JSONStep is a step of the verification and whether it passed.
type JSONStep struct {
	Step string `json:"step"`
	OK   bool   `json:"ok"`
}

// JSONCheck is a numbered check of docs/VERIFY.md that ran and whether it passed.
type JSONCheck struct {
	Check string `json:"check"`
	OK    bool   `json:"ok"`
}

// JSONBallots counts the ballots read, the valid ones, those the result
// must count, and those committed after the result.
type JSONBallots struct {
	Recorded uint64 `json:"recorded"`
	Valid    uint64 `json:"valid"`
	Counted  uint64 `json:"counted"`
	Late     uint64 `json:"late"`
}

// JSONResult is the decoded result: its ballot count and its contests.
type JSONResult struct {
	BallotCount uint64        `json:"ballotCount"`
	Contests    []JSONContest `json:"contests"`
}

// JSONContest is a contest's count beside its names from the manifest.
type JSONContest struct {
	ID         string   `json:"id"`
	Title      string   `json:"title"`
	Options    []string `json:"options"`
	Ballots    uint64   `json:"ballots"`
	Counts     []uint64 `json:"counts"`
	Blank      uint64   `json:"blank"`
	Undervotes uint64   `json:"undervotes"`
}

// JSONLate is a ballot committed after the result.
type JSONLate struct {
	Pseudonym string `json:"pseudonym"`
	TxID      string `json:"txID"`
	Block     uint64 `json:"block"`
}

// JSONFailure is one failure: its kind (RECORD.md 7), the check of
// docs/VERIFY.md it fails, the ballot's code, what it is about, and the message.
type JSONFailure struct {
	Kind      string `json:"kind"`
	Check     string `json:"check,omitempty"`
	Code      string `json:"code,omitempty"`
	Subject   string `json:"subject"`
	Pseudonym string `json:"pseudonym,omitempty"`
	Error     string `json:"error"`
}

// JSON renders the report as docs/RECORD.md section 7 describes, for a
// live verification and a record alike.
func (r *Report) JSON() ([]byte, error) {
	ok := r.OK()
	out := JSONReport{Format: ReportFormat, Version: ReportVersion, ElectionID: r.ElectionID, Source: r.Source, OK: &ok,
		Steps: r.jsonSteps(), Checks: r.jsonChecks(), Ballots: r.jsonBallots(), Result: r.jsonResult(),
		LateBallots: []JSONLate{}, Failures: []JSONFailure{}}
	if out.Source == "" {
		out.Source = SourceNetwork
	}
	if out.Source == SourceRecord && len(r.GenesisHash) > 0 { // known once block 0 was read
		out.GenesisHash = hex.EncodeToString(r.GenesisHash)
	}
	if out.Source == SourceRecord {
		out.Anchors = r.Anchors.json()
		out.Digest = hex.EncodeToString(r.RecordDigest)
	}
	for _, lb := range r.Order.LateBallots() {
		out.LateBallots = append(out.LateBallots, JSONLate{Pseudonym: lb.Entry.Pseudonym, TxID: lb.Entry.TxID, Block: lb.Block})
	}
	for _, f := range r.Failures {
		out.Failures = append(out.Failures, JSONFailure{Kind: f.Kind, Check: CheckOf(f), Code: f.Code, Subject: f.Subject, Pseudonym: f.Pseudonym, Error: f.Err})
	}
	return json.MarshalIndent(out, "", "  ")
}

// WriteJSON writes JSON's output and a newline.
func (r *Report) WriteJSON(w io.Writer) error {
	b, err := r.JSON()
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// jsonSteps lists the steps reached, each not ok when a failure of its
// kinds is reported.
func (r *Report) jsonSteps() []JSONStep {
	names := r.Steps
	if names == nil {
		names = NetworkSteps
	}
	failed := make(map[string]bool)
	for _, f := range r.Failures {
		failed[StepOf(f.Kind)] = true
	}
	steps := make([]JSONStep, len(names))
	for i, n := range names {
		steps[i] = JSONStep{Step: n, OK: !failed[n]}
	}
	return steps
}

// jsonChecks lists the outcome of every check of docs/VERIFY.md that ran:
// those of the steps reached that apply to the source.
func (r *Report) jsonChecks() []JSONCheck {
	out := []JSONCheck{}
	for _, c := range r.ChecksRun() {
		out = append(out, JSONCheck{Check: c.ID, OK: c.OK})
	}
	return out
}

// CheckOutcome is a check that ran and whether it passed.
type CheckOutcome struct {
	Check
	OK bool
}

// ChecksRun are the checks of the steps reached that apply to the report's
// source, each with its outcome, in docs/VERIFY.md's order.
func (r *Report) ChecksRun() []CheckOutcome {
	steps := r.Steps
	if steps == nil {
		steps = NetworkSteps
	}
	failed := make(map[string]bool)
	for _, f := range r.Failures {
		failed[CheckOf(f)] = true
	}
	var out []CheckOutcome
	for _, c := range Checks {
		if slices.Contains(steps, c.Step) && (r.Source == SourceRecord || !c.RecordOnly) && (!c.Optional || slices.Contains(r.Optional, c.ID)) &&
			(failed[c.ID] || r.had(c.Needs)) {
			out = append(out, CheckOutcome{c, !failed[c.ID]})
		}
	}
	return out
}

// had says whether the verification had input (Check.Needs).
func (r *Report) had(input Input) bool {
	switch input {
	case InputManifest:
		return r.Manifest != nil
	case InputBallots:
		return r.Tally != nil
	case InputOpening:
		return r.Source == SourceRecord || r.Order != nil
	case InputOrder:
		return r.Order != nil
	case InputResultRead:
		return r.ResultRead
	case InputResult:
		return r.ResultRead && !r.failedKind(KindResultMissing)
	case InputResultChecked:
		return r.ResultChecked
	case InputTrackers:
		return r.TrackersChecked
	}
	return true
}

func (r *Report) failedKind(kind string) bool {
	return slices.ContainsFunc(r.Failures, func(f Failure) bool { return f.Kind == kind })
}

// JSONBallots is null when the ballots were not reached. Recorded counts
// every ballot read (late ones too), Counted those the result must count.
func (r *Report) jsonBallots() *JSONBallots {
	if r.Tally == nil {
		return nil
	}
	b := &JSONBallots{Recorded: uint64(r.Tally.Entries), Valid: uint64(r.Tally.Valid), Counted: uint64(r.Counted)}
	b.Late = uint64(len(r.Order.LateBallots()))
	return b
}

// JSONResult is null when no result was decoded.
func (r *Report) jsonResult() *JSONResult {
	if r.Result == nil {
		return nil
	}
	return &JSONResult{BallotCount: r.Result.BallotCount, Contests: r.jsonContests()}
}

// jsonContests are the result's contests with the manifest's names: none
// unless the manifest was read and the result has one entry per contest
// (a result that does not is a failure of its own).
func (r *Report) jsonContests() []JSONContest {
	out := []JSONContest{}
	if r.Result == nil || r.Manifest == nil || len(r.Result.Contests) != len(r.Manifest.Contests) {
		return out
	}
	for i, cr := range r.Result.Contests {
		c := &r.Manifest.Contests[i]
		if len(cr.Counts) != len(c.Options) {
			return []JSONContest{}
		}
		out = append(out, JSONContest{ID: c.ID, Title: c.Title, Options: c.Options, Ballots: cr.Ballots, Counts: cr.Counts, Blank: cr.Blank, Undervotes: cr.Undervotes})
	}
	return out
}
