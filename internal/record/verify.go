package record

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/fabvote/fabvote/internal/audit"
)

// ErrUnreadable wraps the error of a record that cannot be read at all (no
// directory, no record.json): a usage error, exit status 2, no report.
var ErrUnreadable = errors.New("not a readable election record")

// maxRecordJSONSize bounds record.json, a few short fields (RECORD.md 2).
const maxRecordJSONSize = 1 << 20

// Options tune Verify.
type Options struct {
	// GenesisHash, if set, is the header hash block 0 must have: the
	// channel's root of trust as its organisations publish it.
	GenesisHash []byte
	// Manifest, if set, is the manifest manifest.json must be, byte for
	// byte: the election as its authority published it. With the genesis
	// hash it anchors the record: without it, an exporting org that
	// flips its own peer's transactions filter could present another
	// election, opened under the same id by transactions the honest
	// peers marked invalid (RECORD.md section 9).
	Manifest []byte
	Audit    audit.Options
}

// Verify checks the record in dir in the order of RECORD.md section 6 and
// returns the report: failures of steps 1 and 2 stop it. The error is
// non-nil (wrapping ErrUnreadable) only when dir holds no readable
// record.json; every other fault is a failure in the report.
func Verify(ctx context.Context, dir string, opts Options) (*audit.Report, error) {
	fi, err := os.Lstat(filepath.Join(dir, RecordFile))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnreadable, err)
	}
	rep := &audit.Report{Source: audit.SourceRecord, Steps: []string{audit.StepRecord}, Anchors: opts.anchors(), Optional: opts.anchorChecks()}
	v := &verifier{dir: dir, opts: opts, rep: rep}
	defer func() { audit.SortFailures(rep.Failures) }()
	// Read only a regular file of the record, and not without bound: a
	// link out of it or a pipe in its place is refused unread.
	if !fi.Mode().IsRegular() || fi.Size() > maxRecordJSONSize {
		v.fail(audit.KindRecord, RecordFile, fmt.Errorf("not a regular file of at most %d bytes", maxRecordJSONSize))
		return rep, nil
	}
	rb, err := os.ReadFile(filepath.Join(dir, RecordFile))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnreadable, err)
	}
	if !v.checkRecord(rb) {
		return rep, nil
	}
	if rep.RecordDigest, err = Digest(dir, v.info.LastBlock); err != nil {
		v.fail(audit.KindRecord, "files", err)
		return rep, nil
	}
	rep.Steps = append(rep.Steps, audit.StepBlocks, audit.StepBlockSignatures)
	if !v.checkBlocks(ctx) {
		return rep, nil
	}
	rep.Steps = audit.RecordSteps
	v.checkIndex()
	v.audit(ctx)
	return rep, nil
}

// anchorChecks are the optional checks of the anchors given.
func (o Options) anchorChecks() []string {
	var out []string
	if o.GenesisHash != nil {
		out = append(out, audit.CheckGenesisAnchor)
	}
	if o.Manifest != nil {
		out = append(out, audit.CheckPublishedAnchor)
	}
	return out
}

// anchors is what the report says of the anchors given.
func (o Options) anchors() *audit.Anchors {
	a := &audit.Anchors{GenesisHash: o.GenesisHash}
	if o.Manifest != nil {
		sum := sha256.Sum256(o.Manifest)
		a.ManifestSHA256 = sum[:]
	}
	return a
}

// verifier carries what one step hands the next.
type verifier struct {
	dir      string
	opts     Options
	rep      *audit.Report
	info     *Info
	index    []Entry
	manifest []byte
	result   []byte // nil: no result.json
	built    *indexer
}

func (v *verifier) fail(kind, subject string, err error) { v.failCheck(kind, "", subject, err) }

// failCheck is fail for a failure that names its check (audit.CheckOf).
func (v *verifier) failCheck(kind, check, subject string, err error) {
	v.rep.Failures = append(v.rep.Failures, audit.Failure{Kind: kind, Check: check, Subject: subject, Err: err.Error()})
}

// checkRecord is step 1: record.json, the files present, ballots.json.
func (v *verifier) checkRecord(rb []byte) bool {
	info, err := ParseRecordJSON(rb)
	if err != nil {
		v.fail(audit.KindRecord, RecordFile, err)
		return false
	}
	v.info, v.rep.ElectionID = info, info.ElectionID
	if err := checkFiles(v.dir, info.LastBlock); err != nil {
		v.fail(audit.KindRecord, "files", err)
		return false
	}
	bb, err := os.ReadFile(filepath.Join(v.dir, BallotsFile))
	if err == nil {
		v.index, err = ParseBallotIndex(bb)
	}
	if err != nil {
		v.fail(audit.KindRecord, BallotsFile, err)
		return false
	}
	if v.manifest, err = os.ReadFile(filepath.Join(v.dir, ManifestFile)); err != nil {
		v.fail(audit.KindRecord, ManifestFile, err)
		return false
	}
	v.result, err = os.ReadFile(filepath.Join(v.dir, ResultFile))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		v.fail(audit.KindRecord, ResultFile, err)
		return false
	}
	v.rep.Preamble = append(v.rep.Preamble, fmt.Sprintf("  record:          %s: channel %q, chaincode %q, blocks 0 .. %d, %d ballot(s) in the index",
		v.dir, info.Channel, info.Chaincode, info.LastBlock, len(v.index)))
	return true
}

// checkBlocks is step 2, and the genesis hash asked for.
func (v *verifier) checkBlocks(ctx context.Context) bool {
	s := &scan{channel: v.info.Channel, index: newIndexer(v.info.Chaincode, v.info.ElectionID)}
	s.run(ctx, v.reader(), v.info.LastBlock)
	v.rep.GenesisHash, v.built = s.genesis, s.index
	v.rep.Failures = append(v.rep.Failures, s.failures...)
	if want := v.opts.GenesisHash; want != nil && !bytes.Equal(want, s.genesis) {
		v.failCheck(audit.KindBlockChain, audit.CheckGenesisAnchor, "block 0", fmt.Errorf("its header hash is %x, not the --genesis-hash %x: this record is of another channel",
			s.genesis, want))
	}
	if len(v.rep.Failures) > 0 {
		return false
	}
	v.rep.Preamble = append(v.rep.Preamble,
		"  genesis hash:    "+hex.EncodeToString(s.genesis)+" (block 0's header hash: compare it with the one the channel's organisations publish)",
		fmt.Sprintf("  blocks:          0 .. %d chained (number, data hash, previous hash, filter, channel) and each signed by an orderer of the configuration in force", v.info.LastBlock))
	return true
}

func (v *verifier) reader() *Dir { return &Dir{Path: v.dir, LastBlock: v.info.LastBlock} }
