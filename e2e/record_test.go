//go:build e2e

package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"testing"

	"github.com/fabvote/fabvote/internal/audit"
	"github.com/fabvote/fabvote/internal/chain"
	"github.com/fabvote/fabvote/internal/record"
	"github.com/fabvote/fabvote/internal/record/recordtest"
	"github.com/hyperledger/fabric-protos-go-apiv2/common"
	"google.golang.org/protobuf/proto"
)

// verifyJSON runs fabvote verify --json and decodes its report
// (internal/audit's type, which the Python verifier's report must match).
func (e *env) verifyJSON(t *testing.T, wantCode int, args ...string) *audit.JSONReport {
	t.Helper()
	return e.runReport(t, wantCode, exec.Command(e.Bin, append([]string{"verify", "--json"}, args...)...))
}

// pyVerifier is the Python that has the independent verifier (verifier-py/)
// installed, from FABVOTE_PYVERIFY; `make e2e-test` sets it.
func pyVerifier(t *testing.T) string {
	py := os.Getenv("FABVOTE_PYVERIFY")
	if py == "" {
		t.Skip("FABVOTE_PYVERIFY is not set: run `make e2e-test`, which installs the Python verifier")
	}
	return py
}

// pyVerifyJSON runs the independent Python verifier on a record.
func (e *env) pyVerifyJSON(t *testing.T, py string, wantCode int, args ...string) *audit.JSONReport {
	t.Helper()
	return e.runReport(t, wantCode, exec.Command(py, append([]string{"-m", "fabvote_verifier", "--json"}, args...)...))
}

// runReport runs a verifier with --json and decodes its report.
func (e *env) runReport(t *testing.T, wantCode int, cmd *exec.Cmd) *audit.JSONReport {
	t.Helper()
	args := cmd.Args
	cmd.Dir = e.Dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if code != wantCode {
		t.Fatalf("%v: exit %d, want %d\n%s%s", args, code, wantCode, out, stderr.String())
	}
	var rep audit.JSONReport
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("%v: the report does not decode: %v\n%s", args, err, out)
	}
	return &rep
}

// recordChecks exports the election's record from the real channel,
// verifies it offline against the live verification, and tampers with
// copies of it at the file level.
func recordChecks(t *testing.T, e *env, id string) {
	dir, genesis, rec := exportRecord(t, e, id)
	recordVerifiers(t, e, dir, genesis, rec)
	if keep := os.Getenv("FABVOTE_E2E_RECORD_KEEP"); keep != "" {
		recordtest.CopyDir(t, dir, keep)
		t.Logf("record kept in %s", keep)
	}
	tamperedRecords(t, e, dir)
}

// recordVerifiers: the independent Python verifier gives the record in dir
// the report fabvote gave it (rec), and both verifiers pass it with no
// network at all.
func recordVerifiers(t *testing.T, e *env, dir, genesis string, rec *audit.JSONReport) {
	t.Run("independent Python verifier", func(t *testing.T) {
		py := e.pyVerifyJSON(t, pyVerifier(t), 0, "--record", dir, "--genesis-hash", genesis)
		if len(rec.Digest) != 64 || rec.Anchors == nil || rec.Anchors.GenesisHash == nil {
			t.Fatalf("fabvote's report of the record has digest %q and anchors %+v", rec.Digest, rec.Anchors)
		}
		if !reflect.DeepEqual(py, rec) {
			t.Fatalf("the Python verifier's report differs from fabvote's:\npython %+v %+v %+v\nfabvote %+v %+v %+v", py, py.Ballots, py.Result, rec, rec.Ballots, rec.Result)
		}
	})
	t.Run("no network at all", func(t *testing.T) { offlineVerify(t, e, dir, genesis) })
}

// exportRecord exports election id's record and requires its verification
// report to match the live one and the human report to pass. It returns
// the record directory, the genesis hash the export printed and the
// record's report.
func exportRecord(t *testing.T, e *env, id string) (dir, genesis string, rec *audit.JSONReport) {
	dir = e.path("record-" + id)
	out := e.Must(t, "record", "export", "--network", e.netPath, "--election", id, "--out", dir)
	m := regexp.MustCompile(`genesis hash: ([0-9a-f]{64})`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("record export prints no genesis hash:\n%s", out)
	}
	t.Logf("record export:\n%s", out)
	rec = e.verifyJSON(t, 0, "--record", dir, "--genesis-hash", m[1])
	live := e.verifyJSON(t, 0, "--network", e.netPath, "--election", id)
	if rec.Source != "record" || live.Source != "network" || rec.GenesisHash != m[1] || rec.Ballots == nil || live.Ballots == nil ||
		*rec.Ballots != *live.Ballots || rec.Result == nil || live.Result == nil || !reflect.DeepEqual(rec.Result.Contests, live.Result.Contests) ||
		rec.Result.BallotCount != live.Result.BallotCount {
		t.Fatalf("the record's report differs from the live one:\nrecord %+v %+v %+v\nlive   %+v %+v %+v", rec, rec.Ballots, rec.Result, live, live.Ballots, live.Result)
	}
	if human := e.Must(t, "verify", "--record", dir); !bytes.Contains([]byte(human), []byte("RESULT: PASS")) {
		t.Fatalf("verify --record:\n%s", human)
	}
	return dir, m[1], rec
}

// tamperedRecords tampers with copies of the record in dir, one way each,
// and requires each verifier to fail with that tampering's kind alone.
func tamperedRecords(t *testing.T, e *env, dir string) {
	index := readIndex(t, dir)
	if len(index) == 0 {
		t.Fatal("the record indexes no ballot")
	}
	first := index[0]
	cases := []struct {
		name   string
		kind   string
		tamper func(t *testing.T, d string)
	}{
		{"byte flipped in a ballot", "BLOCK_CHAIN", func(t *testing.T, d string) { flipBallotByte(t, d, first) }},
		{"ballot removed from the index", "RECORD_BALLOTS", func(t *testing.T, d string) {
			writeFile(t, filepath.Join(d, record.BallotsFile), record.MarshalBallotIndex(index[1:]))
		}},
		{"block removed", "RECORD", func(t *testing.T, d string) {
			if err := os.Remove(filepath.Join(d, record.BlockFile(first.Block))); err != nil {
				t.Fatal(err)
			}
		}},
		{"block signature replaced", "BLOCK_SIGNATURE", func(t *testing.T, d string) {
			b, other := recordBlock(t, d, first.Block), recordBlock(t, d, first.Block-1)
			b.Metadata.Metadata[common.BlockMetadataIndex_SIGNATURES] = other.Metadata.Metadata[common.BlockMetadataIndex_SIGNATURES]
			putRecordBlock(t, d, first.Block, b)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := filepath.Join(t.TempDir(), "rec")
			recordtest.CopyDir(t, dir, d)
			tc.tamper(t, d)
			if kinds := failureKinds(e.verifyJSON(t, 1, "--record", d)); !slices.Equal(kinds, []string{tc.kind}) {
				t.Fatalf("fabvote: kinds %v, want [%s]", kinds, tc.kind)
			}
			if py := os.Getenv("FABVOTE_PYVERIFY"); py != "" {
				if kinds := failureKinds(e.pyVerifyJSON(t, py, 1, "--record", d)); !slices.Equal(kinds, []string{tc.kind}) {
					t.Fatalf("Python verifier: kinds %v, want [%s]", kinds, tc.kind)
				}
			}
		})
	}
}

// offlineVerify runs each verifier in a network namespace of its own, with
// no interface but a loopback that is down: a record needs no network.
func offlineVerify(t *testing.T, e *env, dir, genesis string) {
	if _, err := exec.LookPath("unshare"); err != nil || os.Geteuid() != 0 {
		t.Skip("needs root and unshare(1) for a network namespace")
	}
	verifiers := [][]string{{e.Bin, "verify"}}
	if py := os.Getenv("FABVOTE_PYVERIFY"); py != "" {
		verifiers = append(verifiers, []string{py, "-m", "fabvote_verifier"})
	}
	for _, v := range verifiers {
		args := append([]string{"--net"}, v...)
		cmd := exec.Command("unshare", append(args, "--record", dir, "--genesis-hash", genesis)...)
		cmd.Dir = e.Dir
		if out, err := cmd.CombinedOutput(); err != nil || !bytes.Contains(out, []byte("RESULT: PASS")) {
			t.Fatalf("%v with no network: %v\n%s", cmd.Args, err, out)
		}
	}
}

// passedCheck: the report lists check as run and passed.
func passedCheck(rep *audit.JSONReport, check string) bool {
	return slices.Contains(rep.Checks, audit.JSONCheck{Check: check, OK: true})
}

// failureKinds lists a failing report's distinct failure kinds; a passing
// report has none.
func failureKinds(rep *audit.JSONReport) []string {
	var kinds []string
	for _, f := range rep.Failures {
		if !slices.Contains(kinds, f.Kind) {
			kinds = append(kinds, f.Kind)
		}
	}
	if rep.OK == nil || *rep.OK {
		return nil
	}
	return kinds
}

func readIndex(t *testing.T, dir string) []record.Entry {
	b, err := os.ReadFile(filepath.Join(dir, record.BallotsFile))
	if err != nil {
		t.Fatal(err)
	}
	es, err := record.ParseBallotIndex(b)
	if err != nil {
		t.Fatal(err)
	}
	return es
}

func rawRecordBlock(t *testing.T, dir string, n uint64) []byte {
	raw, err := (&record.Dir{Path: dir, LastBlock: n}).Block(ctx(t), n)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func recordBlock(t *testing.T, dir string, n uint64) *common.Block {
	var b common.Block
	if err := proto.Unmarshal(rawRecordBlock(t, dir, n), &b); err != nil {
		t.Fatal(err)
	}
	return &b
}

func putRecordBlock(t *testing.T, dir string, n uint64, b *common.Block) {
	raw, err := proto.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := record.WriteBlockFile(dir, n, raw); err != nil {
		t.Fatal(err)
	}
}

// flipBallotByte flips a byte in the middle of e's ballot, in its block's
// own bytes.
func flipBallotByte(t *testing.T, dir string, e record.Entry) {
	raw := rawRecordBlock(t, dir, e.Block)
	b, err := chain.ParseBlock(raw)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range b.Txs[e.Index].Writes {
		if i := bytes.Index(raw, w.Value); len(w.Value) > 100 && i >= 0 {
			raw[i+len(w.Value)/2] ^= 1
			if err := record.WriteBlockFile(dir, e.Block, raw); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatalf("no ballot found in block %d, transaction %d", e.Block, e.Index)
}

func writeFile(t *testing.T, p string, b []byte) {
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
