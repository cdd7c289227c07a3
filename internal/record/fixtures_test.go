package record_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"testing"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/audit"
	"github.com/fabvote/fabvote/internal/record"
	"github.com/fabvote/fabvote/internal/record/recordtest"
)

// update regenerates the committed test vectors:
//
//	go test ./internal/record -run TestFixtures -update
var update = flag.Bool("update", false, "regenerate testdata/records")

// updateOnly, with -update, regenerates one variant's record and its entry
// of expected.json, leaving the others' bytes as they are:
//
//	go test ./internal/record -run TestFixtures -update -update-only spoiled
var updateOnly = flag.String("update-only", "", "with -update, regenerate only this variant")

const fixturesDir = "testdata/records"

// expectation is one entry of testdata/records/expected.json.
type expectation struct {
	OK    bool     `json:"ok"`
	Kinds []string `json:"kinds"`
	// RecordDigest is the record's digest (RECORD.md 7.1), a vector both
	// verifiers must compute.
	RecordDigest string `json:"recordDigest"`
}

// kinds is the sorted distinct failure kinds of a report.
func kinds(rep *audit.Report) []string {
	out := []string{}
	for _, f := range rep.Failures {
		if !slices.Contains(out, f.Kind) {
			out = append(out, f.Kind)
		}
	}
	sort.Strings(out)
	return out
}

func regenerate(t *testing.T) {
	exp := map[string]expectation{}
	if *updateOnly != "" {
		b, err := os.ReadFile(filepath.Join(fixturesDir, "expected.json"))
		if err == nil {
			err = json.Unmarshal(b, &exp)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	for v, ks := range recordtest.Variants {
		if *updateOnly != "" && string(v) != *updateOnly {
			continue
		}
		if err := os.RemoveAll(filepath.Join(fixturesDir, string(v))); err != nil { // README.md stays
			t.Fatal(err)
		}
		if _, err := recordtest.Write(context.Background(), v, filepath.Join(fixturesDir, string(v))); err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		rep := verify(t, filepath.Join(fixturesDir, string(v)), record.Options{})
		exp[string(v)] = expectation{OK: len(ks) == 0, Kinds: append([]string{}, ks...), RecordDigest: hex.EncodeToString(rep.RecordDigest)}
	}
	b, err := json.MarshalIndent(exp, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(fixturesDir, "expected.json"), append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestFixtures verifies every committed record and compares the outcome
// with expected.json, which the Python verifier's tests read too.
func TestFixtures(t *testing.T) {
	if *update {
		regenerate(t)
	}
	b, err := os.ReadFile(filepath.Join(fixturesDir, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var exp map[string]expectation
	if err := json.Unmarshal(b, &exp); err != nil {
		t.Fatal(err)
	}
	if len(exp) != len(recordtest.Variants) {
		t.Fatalf("expected.json has %d records, recordtest %d variants", len(exp), len(recordtest.Variants))
	}
	for name, want := range exp {
		t.Run(name, func(t *testing.T) {
			rep := verify(t, filepath.Join(fixturesDir, name), record.Options{})
			if got := kinds(rep); rep.OK() != want.OK || !reflect.DeepEqual(got, want.Kinds) {
				t.Fatalf("ok %v kinds %v, want ok %v kinds %v; failures: %v", rep.OK(), got, want.OK, want.Kinds, rep.Failures)
			}
			if got := hex.EncodeToString(rep.RecordDigest); got != want.RecordDigest {
				t.Fatalf("record digest %s, want %s", got, want.RecordDigest)
			}
		})
	}
}

func verify(t *testing.T, dir string, opts record.Options) *audit.Report {
	t.Helper()
	rep, err := record.Verify(context.Background(), dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestContestBallotFailures: the record's verification refuses each of the
// five ballots that break a rule of contests or selections with its own
// code, and counts the others.
func TestContestBallotFailures(t *testing.T) {
	rep := verify(t, filepath.Join(fixturesDir, string(recordtest.ContestBallots)), record.Options{})
	var codes []string
	for _, f := range rep.Failures {
		codes = append(codes, f.Code)
	}
	sort.Strings(codes)
	want := []string{election.CodeContestMissing, election.CodeContestOrder, election.CodeContestRepeat, election.CodeLimit, election.CodeNotInStyle}
	if !reflect.DeepEqual(codes, want) || rep.Counted != len(recordtest.ContestVotes) {
		t.Fatalf("codes %v, %d counted; want %v, %d counted; failures %v", codes, rep.Counted, want, len(recordtest.ContestVotes), rep.Failures)
	}
}
