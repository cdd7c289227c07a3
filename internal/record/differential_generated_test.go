package record_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fabvote/fabvote/internal/record"
)

// genRecordTool is verifier-py's own record writer: blocks, orderer
// signatures and ballots made without the Go code, so that it can write
// the commit orders no Go fixture has (a key deleted, then written; the
// result key deleted first; a ballot rewritten after the result).
var genRecordTool = filepath.Join("..", "..", "verifier-py", "tools", "gen_record.py")

// TestDifferentialCommitOrder runs both verifiers on records written by
// gen_record.py with writes the contract never makes, alone and with the
// result's presence varied, and asserts the Go verdict's failure kinds: the
// cases of RECORD.md 6 steps 3 and 4 that no tampering of an exported record
// reaches without an orderer's key.
func TestDifferentialCommitOrder(t *testing.T) {
	py := pyVerifier(t)
	if py == "" {
		t.Skip("FABVOTE_PYVERIFY is not set")
	}
	const order, missing, spoiled, tracker = "COMMIT_ORDER", "RESULT_MISSING", "SPOILED_INVALID", "TRACKER"
	for _, tc := range []struct {
		args []string // gen_record.py's options: --variant NAME, --late K, …
		want []string // the Go report's failure kinds, in report order
	}{
		{nil, nil},
		{[]string{"--rewrite-ballot"}, []string{order}},
		{[]string{"--variant", "ballot-delete"}, []string{order}},
		{[]string{"--variant", "delete-then-write"}, []string{order, order}},
		{[]string{"--variant", "late-rewrite"}, []string{order}},
		{[]string{"--variant", "result-delete-first"}, []string{order, order}},
		{[]string{"--variant", "result-rewrite"}, []string{order}},
		{[]string{"--variant", "result-delete"}, []string{order}},
		{[]string{"--variant", "manifest-delete-first"}, []string{order, order}},
		{[]string{"--variant", "manifest-rewrite"}, []string{order}},
		{[]string{"--variant", "manifest-delete"}, []string{order}},
		{[]string{"--variant", "two-attr-key"}, []string{"RECORD_BALLOTS"}},
		{[]string{"--variant", "txid-mismatch", "--bad-proof", "1"}, []string{"BALLOT_INVALID", order}},
		{[]string{"--variant", "txid-mismatch", "--late", "2"}, []string{order}},
		{[]string{"--rewrite-ballot", "--late", "2"}, []string{order}},
		{[]string{"--variant", "result-delete-first", "--late", "2"}, []string{order, order}},
		{[]string{"--variant", "no-result"}, []string{missing}},
		{[]string{"--variant", "result-file-only"}, []string{"SOURCE"}},
		{[]string{"--variant", "result-write-only"}, []string{missing}},
		// Without a result the commit order is not read (RECORD.md 6 step 4).
		{[]string{"--variant", "no-result", "--rewrite-ballot"}, []string{missing}},
		{[]string{"--variant", "no-result", "--variant", "manifest-rewrite"}, []string{missing}},
		{[]string{"--variant", "no-result", "--variant", "txid-mismatch"}, []string{missing}},
		// A value that is no record encoding stands for itself: one
		// BALLOT_DECODE, before the result or after it.
		{[]string{"--variant", "junk-ballot"}, []string{"BALLOT_DECODE"}},
		{[]string{"--variant", "late-junk"}, []string{"BALLOT_DECODE"}},
		// A valid ballot stored without its record encoding is no ballot.
		{[]string{"--variant", "bare-ballot"}, []string{"BALLOT_DECODE"}},
		// The opening's own second write of the manifest key is a rewrite;
		// an opening that deletes the key wrote no manifest.
		{[]string{"--variant", "open-dup-manifest"}, []string{order}},
		{[]string{"--variant", "open-delete", "--variant", "no-result"}, []string{order, missing}},
		// A stored transaction id that is empty is left out of the subject;
		// one that is not UTF-8 makes no record encoding (so the result
		// counts one ballot too many, and its contest one too).
		{[]string{"--variant", "empty-txid", "--bad-proof", "1"}, []string{"BALLOT_INVALID", order}},
		{[]string{"--variant", "nonutf8-txid"}, []string{"RECORD_BALLOTS", "BALLOT_DECODE", "RESULT_COUNT", "RESULT_COUNT", "RESULT_PRODUCT"}},
		// Late ballots in one transaction are listed in its write order.
		{[]string{"--variant", "late-one-tx", "--late", "3"}, nil},
		// No configuration in force from block 0: no signature can be
		// checked, so block 1's configuration is not taken either, and
		// each of the 7 blocks fails.
		{[]string{"--variant", "late-config"}, slices.Repeat([]string{"BLOCK_SIGNATURE"}, 7)},
		// A genesis configuration RECORD.md 5.3 refuses: nothing to check
		// the 6 blocks' signatures against.
		{[]string{"--variant", "no-orderer-orgs"}, slices.Repeat([]string{"BLOCK_SIGNATURE"}, 6)},
		{[]string{"--variant", "rootless-org"}, slices.Repeat([]string{"BLOCK_SIGNATURE"}, 6)},
		{[]string{"--variant", "bad-root-cert"}, slices.Repeat([]string{"BLOCK_SIGNATURE"}, 6)},
		// Trackers (docs/VERIFY.md V32): spoiled ballots beside casts, each
		// with its ciphertext claims, and each way the tracker and claim
		// keys can be tampered with.
		{[]string{"--contests", "multi", "--spoiled", "2"}, nil},
		{[]string{"--contests", "multi", "--spoiled", "2", "--late", "2"}, nil},
		{[]string{"--spoiled", "2", "--variant", "spoiled-opening"}, []string{spoiled}},
		{[]string{"--spoiled", "2", "--variant", "spoiled-wrong-key"}, []string{spoiled}},
		{[]string{"--spoiled", "2", "--variant", "cast-spoiled"}, []string{tracker}},
		{[]string{"--spoiled", "2", "--variant", "cast-no-claim"}, []string{tracker}},
		{[]string{"--trackers", "--variant", "claim-other"}, []string{tracker}},
		{[]string{"--spoiled", "2", "--variant", "spoiled-cast-claim"}, []string{tracker}},
		{[]string{"--spoiled", "2", "--variant", "spoil-no-claim"}, []string{tracker}},
		{[]string{"--spoiled", "2", "--variant", "claim-other-tracker"}, []string{tracker}},
		{[]string{"--spoiled", "2", "--variant", "claim-rewrite"}, []string{tracker}},
		{[]string{"--spoiled", "2", "--variant", "tracker-rewrite"}, []string{tracker}},
		// A spoiled ballot that does not decode holds no ciphertext: its
		// claim fails too.
		{[]string{"--spoiled", "2", "--variant", "tracker-junk"}, []string{spoiled, tracker}},
		{[]string{"--spoiled", "2", "--variant", "claim-junk"}, []string{tracker}},
		{[]string{"--spoiled", "2", "--variant", "tracker-upper-key"}, []string{tracker}},
		// Without any claim write no claim is asked for (a contract
		// without ciphertext claims).
		{[]string{"--variant", "cast-no-claim"}, nil},
	} {
		name := strings.Join(tc.args, " ")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := generateRecord(t, py, tc.args...)
			rep, err := record.Verify(context.Background(), dir, record.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range rep.Failures {
				got = append(got, f.Kind)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("kinds %v, want %v; failures: %v", got, tc.want, rep.Failures)
			}
			agreeWithPython(t, dir, record.Options{}, rep)
		})
	}
}

// genLimit lets two generators run at once: each is a Python process busy
// on one core.
var genLimit = make(chan struct{}, 2)

// generateRecord writes a 12-ballot record with gen_record.py's options.
func generateRecord(t *testing.T, py string, args ...string) string {
	t.Helper()
	genLimit <- struct{}{}
	defer func() { <-genLimit }()
	dir := filepath.Join(t.TempDir(), "record")
	argv := append([]string{genRecordTool, dir, "--ballots", "12", "--per-block", "5", "--concurrency", "1", "--nonce-pool", "4"}, args...)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, py, argv...).CombinedOutput(); err != nil {
		t.Fatalf("gen_record.py %v: %v\n%s", args, err, out)
	}
	return dir
}
