package bboard

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/audit"
	"github.com/fabvote/fabvote/internal/record"
)

// The board reads the record's files with internal/record's parsers and the
// verification report, of either verifier, with internal/audit's types: each
// format has that one owner. The ballot index is read without its order
// rule, which is a check of the verification whose verdict the board shows.
// Unknown report fields are tolerated, so that a verifier may add some
// without breaking the board; the fields used here are checked.

// input is everything Build reads, decoded and cross-checked.
type input struct {
	dir      string // the record's directory
	record   *record.Info
	manifest *election.Manifest
	// manifestHash is SHA-256 of manifest.json, hex: what an observer
	// compares with the manifest the authority published.
	manifestHash string
	result       *election.Result // nil when no result is published
	ballots      []record.Entry
	report       audit.JSONReport
	rawRep       []byte
	// trackers are the cast ballots' trackers and the spoiled ballots
	// the blocks hold; trackersErr says why they could not be read.
	trackers    *record.Trackers
	trackersErr string
}

// hex64 is a SHA-256 (or pseudonym) in the record's lower-case hex form.
var hex64 = regexp.MustCompile(`^[0-9a-f]{64}$`)

// loadInput reads the record directory and decodes the report. Every error
// names the file at fault so that an operator can fix the right thing.
func loadInput(recordDir string, rep []byte) (*input, error) {
	in := &input{dir: recordDir, rawRep: rep}
	rb, err := readFile(recordDir, record.RecordFile)
	if err != nil {
		return nil, err
	}
	if in.record, err = record.ParseRecordJSON(rb); err != nil {
		return nil, err
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
	bb, err := readFile(recordDir, record.BallotsFile)
	if err != nil {
		return nil, err
	}
	if in.ballots, err = record.DecodeBallotIndex(bb); err != nil {
		return nil, err
	}
	if err := checkTxIDs(in.ballots); err != nil {
		return nil, err
	}
	if err := decodeReport(rep, &in.report); err != nil {
		return nil, err
	}
	in.readTrackers()
	return in, in.crossCheck()
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

// checkTxIDs rejects a transaction id longer than the ledger allows: the
// board shows each one in full on its ballot's row.
func checkTxIDs(bs []record.Entry) error {
	for i, b := range bs {
		if len(b.TxID) > election.MaxTxIDLen {
			return fmt.Errorf("%s, entry %d: txID has %d bytes, want at most %d", record.BallotsFile, i, len(b.TxID), election.MaxTxIDLen)
		}
	}
	return nil
}

// decodeReport decodes the verification report (audit.ParseJSONReport: the
// format's own rules) and checks that it is a report on a record.
func decodeReport(b []byte, r *audit.JSONReport) error {
	parsed, err := audit.ParseJSONReport(b)
	if err != nil {
		return fmt.Errorf("verification report: %w", err)
	}
	*r = *parsed
	switch {
	case r.Source != "record":
		// A live-network report says nothing about this record's blocks.
		return fmt.Errorf("verification report: source %q, want \"record\" (a report on this record)", r.Source)
	case !hex64.MatchString(r.GenesisHash):
		return fmt.Errorf("verification report: genesisHash %q is not 64 lower-case hex digits", r.GenesisHash)
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
func resultDiffers(rr *audit.JSONResult, r *election.Result) string {
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
