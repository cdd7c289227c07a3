package bboard

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/record"
)

// recordFile is record.json (docs/RECORD.md section 2).
type recordFile struct {
	Format     string `json:"format"`
	Version    int    `json:"version"`
	ElectionID string `json:"electionID"`
	Channel    string `json:"channel"`
	Chaincode  string `json:"chaincode"`
	LastBlock  uint64 `json:"lastBlock"`
}

// ballotEntry is one entry of ballots.json (docs/RECORD.md section 4).
type ballotEntry struct {
	Pseudonym  string `json:"pseudonym"`
	BallotHash string `json:"ballotHash"`
	TxID       string `json:"txID"`
	Block      uint64 `json:"block"`
	Index      uint64 `json:"index"`
}

// report is the JSON verification report (docs/RECORD.md section 7). Unknown
// fields are tolerated so that a verifier may add some without breaking the
// bulletin board; the fields used here are checked.
type report struct {
	Format      string          `json:"format"`
	Version     int             `json:"version"`
	ElectionID  string          `json:"electionID"`
	Source      string          `json:"source"`
	OK          *bool           `json:"ok"`
	GenesisHash string          `json:"genesisHash"`
	Anchors     *reportAnchors  `json:"anchors"`
	Steps       []reportStep    `json:"steps"`
	Checks      []reportStep    `json:"checks"` // each with Check set, not Step
	Ballots     *reportBallots  `json:"ballots"`
	Result      *reportResult   `json:"result"`
	LateBallots []reportLate    `json:"lateBallots"`
	Failures    []reportFailure `json:"failures"`
}

// reportAnchors are the anchors the verification was given (RECORD.md 7);
// a report without them is shown as given none.
type reportAnchors struct {
	GenesisHash    *string `json:"genesisHash"`
	ManifestSHA256 *string `json:"manifestSHA256"`
}

type reportStep struct {
	Step  string `json:"step"`
	Check string `json:"check"`
	OK    bool   `json:"ok"`
}

type reportBallots struct {
	Recorded uint64 `json:"recorded"`
	Valid    uint64 `json:"valid"`
	Counted  uint64 `json:"counted"`
	Late     uint64 `json:"late"`
}

type reportResult struct {
	BallotCount uint64          `json:"ballotCount"`
	Contests    []reportContest `json:"contests"`
}

// reportContest is one contest's count as the report gives it, beside the
// manifest's names (which the board takes from manifest.json itself).
type reportContest struct {
	ID         string   `json:"id"`
	Title      string   `json:"title"`
	Options    []string `json:"options"`
	Ballots    uint64   `json:"ballots"`
	Counts     []uint64 `json:"counts"`
	Blank      uint64   `json:"blank"`
	Undervotes uint64   `json:"undervotes"`
}

type reportLate struct {
	Pseudonym string `json:"pseudonym"`
	TxID      string `json:"txID"`
	Block     uint64 `json:"block"`
}

type reportFailure struct {
	Kind      string `json:"kind"`
	Check     string `json:"check"`
	Code      string `json:"code"`
	Subject   string `json:"subject"`
	Pseudonym string `json:"pseudonym"`
	Error     string `json:"error"`
}

// input is everything Build reads, decoded and cross-checked.
type input struct {
	dir      string // the record's directory
	record   recordFile
	manifest *election.Manifest
	// manifestHash is SHA-256 of manifest.json, hex: what an observer
	// compares with the manifest the authority published.
	manifestHash string
	result       *election.Result // nil when no result is published
	ballots      []ballotEntry
	report       report
	rawRep       []byte
}

// hex64 is a SHA-256 (or pseudonym) in the record's lower-case hex form.
var hex64 = regexp.MustCompile(`^[0-9a-f]{64}$`)

const reportFormat = "fabvote-verify-report"

// loadInput reads the record directory and decodes the report. Every error
// names the file at fault so that an operator can fix the right thing.
func loadInput(recordDir string, rep []byte) (*input, error) {
	in := &input{dir: recordDir, rawRep: rep}
	if err := readJSON(recordDir, "record.json", &in.record); err != nil {
		return nil, err
	}
	if in.record.Format != record.Format || in.record.Version != record.Version {
		return nil, fmt.Errorf("record.json: format %q version %d, want %q version %d",
			in.record.Format, in.record.Version, record.Format, record.Version)
	}
	mb, err := readFile(recordDir, "manifest.json")
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(mb)
	in.manifestHash = hex.EncodeToString(sum[:])
	if in.manifest, err = election.ParseManifest(mb); err != nil {
		return nil, fmt.Errorf("manifest.json: %w", err)
	}
	if in.result, err = readResult(recordDir); err != nil {
		return nil, err
	}
	if err := readJSON(recordDir, "ballots.json", &in.ballots); err != nil {
		return nil, err
	}
	if in.ballots == nil {
		return nil, errors.New("ballots.json: not an array (null)")
	}
	if err := checkBallots(in.ballots); err != nil {
		return nil, err
	}
	if err := decodeReport(rep, &in.report); err != nil {
		return nil, err
	}
	return in, in.crossCheck()
}

// readJSON decodes one JSON file of the record; a missing file is an error.
func readJSON(dir, name string, v any) error {
	b, err := readFile(dir, name)
	if err != nil {
		return err
	}
	if err := decodeStrict(b, v, true); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// readFile reads a file the record must have.
func readFile(dir, name string) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("record %s has no %s", dir, name)
	}
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	return b, nil
}

// readResult returns nil, nil when result.json is absent: an election whose
// result is not published yet still gets a bulletin board.
func readResult(dir string) (*election.Result, error) {
	b, err := os.ReadFile(filepath.Join(dir, "result.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	r, err := election.ParseResult(b)
	if err != nil {
		return nil, fmt.Errorf("result.json: %w", err)
	}
	return r, nil
}

// decodeStrict decodes exactly one JSON value, with no trailing data.
func decodeStrict(b []byte, v any, noUnknown bool) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if noUnknown {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err == nil {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

// checkBallots rejects entries the site could not present faithfully: the
// search page keys on the ballot hash, so it must be the record's hex form.
func checkBallots(bs []ballotEntry) error {
	for i, b := range bs {
		switch {
		case !hex64.MatchString(b.Pseudonym):
			return fmt.Errorf("ballots.json: entry %d: pseudonym %q is not 64 lower-case hex digits", i, b.Pseudonym)
		case !hex64.MatchString(b.BallotHash):
			return fmt.Errorf("ballots.json: entry %d: ballotHash %q is not 64 lower-case hex digits", i, b.BallotHash)
		case b.TxID == "" || len(b.TxID) > election.MaxTxIDLen:
			return fmt.Errorf("ballots.json: entry %d: txID has %d bytes, want 1..%d", i, len(b.TxID), election.MaxTxIDLen)
		}
	}
	return nil
}

// decodeReport decodes and checks the verification report on its own.
func decodeReport(b []byte, r *report) error {
	if err := decodeStrict(b, r, false); err != nil {
		return fmt.Errorf("verification report: malformed JSON: %w", err)
	}
	switch {
	case r.Format != reportFormat || r.Version != 1:
		return fmt.Errorf("verification report: format %q version %d, want %q version 1", r.Format, r.Version, reportFormat)
	case r.OK == nil:
		return errors.New("verification report: no \"ok\" field")
	case r.Source != "record":
		// A live-network report says nothing about this record's blocks.
		return fmt.Errorf("verification report: source %q, want \"record\" (a report on this record)", r.Source)
	case !hex64.MatchString(r.GenesisHash):
		return fmt.Errorf("verification report: genesisHash %q is not 64 lower-case hex digits", r.GenesisHash)
	}
	failed := false
	for _, s := range r.Steps {
		failed = failed || !s.OK
	}
	if *r.OK && (failed || len(r.Failures) > 0) {
		return errors.New("verification report: says ok but lists a failed step or a failure")
	}
	if !*r.OK && !failed && len(r.Failures) == 0 {
		return errors.New("verification report: says not ok but lists no failed step and no failure")
	}
	return nil
}

// crossCheck makes sure that the record's files and the report are about
// one election: a report of another election must not vouch for this one.
func (in *input) crossCheck() error {
	id := in.manifest.ElectionID
	if in.record.ElectionID != id {
		return fmt.Errorf("record.json is of election %q, manifest.json of %q", in.record.ElectionID, id)
	}
	if in.result != nil && in.result.ElectionID != id {
		return fmt.Errorf("result.json is of election %q, manifest.json of %q", in.result.ElectionID, id)
	}
	if in.report.ElectionID != id {
		return fmt.Errorf("verification report is of election %q, the record of %q", in.report.ElectionID, id)
	}
	if in.result != nil {
		if err := resultFitsManifest(in.result, in.manifest); err != nil {
			return err
		}
	}
	if rr := in.report.Result; rr != nil && in.result != nil {
		if what := resultDiffers(rr, in.result); what != "" {
			return fmt.Errorf("verification report: its result differs from result.json (%s: a report of another record?)", what)
		}
	}
	if in.report.Result != nil && in.result == nil {
		return errors.New("verification report: has a result but the record has no result.json")
	}
	return nil
}

// resultFitsManifest checks that result.json has what the board shows of
// each contest: one entry per contest of the manifest, in its order, with
// one count per option. (Whether the counts are right is the
// verification's business: the board shows its verdict beside them.)
func resultFitsManifest(r *election.Result, m *election.Manifest) error {
	if len(r.Contests) != len(m.Contests) {
		return fmt.Errorf("result.json has %d contests, the manifest %d", len(r.Contests), len(m.Contests))
	}
	for i, cr := range r.Contests {
		c := &m.Contests[i]
		switch {
		case cr.ID != c.ID:
			return fmt.Errorf("result.json: contests[%d] is %q, the manifest's contest %d is %q", i, cr.ID, i, c.ID)
		case len(cr.Counts) != len(c.Options):
			return fmt.Errorf("result.json: contest %q has %d counts for %d options", c.ID, len(cr.Counts), len(c.Options))
		}
	}
	return nil
}

// resultDiffers says how the report's result differs from result.json's,
// or "" when it does not: the ballot count and, contest by contest, the
// id, the ballots, the counts, the blank votes and the undervotes.
func resultDiffers(rr *reportResult, r *election.Result) string {
	if rr.BallotCount != r.BallotCount {
		return fmt.Sprintf("ballotCount %d, result.json %d", rr.BallotCount, r.BallotCount)
	}
	if len(rr.Contests) != len(r.Contests) {
		return fmt.Sprintf("%d contests, result.json %d", len(rr.Contests), len(r.Contests))
	}
	for i, rc := range rr.Contests {
		cr := &r.Contests[i]
		switch {
		case rc.ID != cr.ID:
			return fmt.Sprintf("contests[%d] is %q, in result.json %q", i, rc.ID, cr.ID)
		case rc.Ballots != cr.Ballots:
			return fmt.Sprintf("contest %q counts %d ballots, result.json %d", cr.ID, rc.Ballots, cr.Ballots)
		case !slices.Equal(rc.Counts, cr.Counts):
			return fmt.Sprintf("contest %q has counts %v, result.json %v", cr.ID, rc.Counts, cr.Counts)
		case rc.Blank != cr.Blank:
			return fmt.Sprintf("contest %q has %d blank votes, result.json %d", cr.ID, rc.Blank, cr.Blank)
		case rc.Undervotes != cr.Undervotes:
			return fmt.Sprintf("contest %q has %d undervotes, result.json %d", cr.ID, rc.Undervotes, cr.Undervotes)
		}
	}
	return ""
}
