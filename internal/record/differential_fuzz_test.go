package record_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"testing"
	"time"

	"github.com/fabvote/fabvote/internal/audit"
	"github.com/fabvote/fabvote/internal/record"
	"github.com/fabvote/fabvote/internal/record/recordtest"
)

// differentialCorpus holds the mutants that once made the verifiers
// disagree, crash or run long, each replayed first on every run.
const differentialCorpus = "testdata/differential"

// TestDifferential mutates the good record (bytes, gzip framing, protobuf
// fields, JSON structure, file types) and runs both verifiers on each
// mutant: it fails on any disagreement (RECORD.md 7: the same report,
// messages aside, and the exit status it calls for), any crash, and any
// run over 10 times the untouched record's time (at least 5 s, above a
// loaded machine's scheduling noise). The committed corpus runs first;
// then new mutants for FABVOTE_DIFF_BUDGET (default 60s) from the seed
// FABVOTE_DIFF_SEED (default: the clock, printed). A failing new mutant is
// written to $FABVOTE_DIFF_FOUND (default a temporary directory) to be
// committed to the corpus once fixed.
func TestDifferential(t *testing.T) {
	py := pyVerifier(t)
	if py == "" {
		t.Skip("FABVOTE_PYVERIFY is not set: no Python verifier to compare with")
	}
	goLimit, pyLimit := untouchedLimits(t, py)
	t.Logf("time limits: Go %v, Python %v", goLimit, pyLimit)
	corpus, err := filepath.Glob(filepath.Join(differentialCorpus, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range corpus {
		m, err := readMutant(path)
		if err != nil {
			t.Fatal(err)
		}
		goRep, d := runMutant(t, py, m, goLimit, pyLimit)
		if d == "" && m.Expect != nil {
			d = unexpected(goRep, m.Expect)
		}
		if d != "" {
			t.Errorf("corpus %s (%s): %s", filepath.Base(path), m.What, d)
		}
	}
	budget := envDuration(t, "FABVOTE_DIFF_BUDGET", 60*time.Second)
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("FABVOTE_DIFF_SEED"); s != "" {
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatalf("FABVOTE_DIFF_SEED: %v", err)
		}
	}
	mut := newMutator(t, goodFixture, seed)
	n, failed := 0, 0
	for start := time.Now(); time.Since(start) < budget && failed < 5; n++ {
		m := mut.next()
		if _, d := runMutant(t, py, m, goLimit, pyLimit); d != "" {
			failed++
			t.Errorf("mutant %d of seed %d (%s): %s\n  kept in %s", n, seed, m.What, d, keepFound(t, m, seed, n))
		}
	}
	t.Logf("%d corpus mutants and %d new ones (seed %d, FABVOTE_DIFF_SEED replays them)", len(corpus), n, seed)
}

// untouchedLimits times both verifiers on the untouched record and returns
// the longest run each may take on a mutant.
func untouchedLimits(t *testing.T, py string) (goLimit, pyLimit time.Duration) {
	t.Helper()
	dir := copyRecord(t)
	start := time.Now()
	rep := verify(t, dir, record.Options{})
	goTook := time.Since(start)
	run := runPython(t, py, dir, record.Options{}, 5*time.Minute)
	if d := disagreement(goJSON(t, rep), run); d != "" || !rep.OK() {
		t.Fatalf("the untouched record: ok %v, %s", rep.OK(), d)
	}
	limit := func(d time.Duration) time.Duration { return max(10*d, 5*time.Second) }
	return limit(goTook), limit(run.elapsed)
}

// runMutant applies m to a copy of the good record, runs both verifiers
// and returns the Go report (nil when there is none) and what went wrong,
// or "".
func runMutant(t *testing.T, py string, m Mutant, goLimit, pyLimit time.Duration) (map[string]any, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "rec")
	recordtest.CopyDir(t, goodFixture, dir)
	m.apply(t, dir)
	start := time.Now()
	rep, err := verifyNoPanic(dir, goLimit)
	goTook := time.Since(start)
	var unreadable bool
	switch {
	case errors.Is(err, record.ErrUnreadable):
		unreadable = true
	case err != nil:
		return nil, "the Go verifier: " + err.Error()
	}
	run := runPython(t, py, dir, record.Options{}, pyLimit)
	if goTook > goLimit {
		return nil, fmt.Sprintf("the Go verifier took %v, over its limit %v", goTook, goLimit)
	}
	if unreadable {
		if run.exit != 2 {
			return nil, fmt.Sprintf("no readable record.json: the Go verifier refuses it (exit 2), the Python verifier exits %d: %s", run.exit, tail(run.stderr))
		}
		return nil, ""
	}
	goRep := goJSON(t, rep)
	return goRep, disagreement(goRep, run)
}

// verifyNoPanic turns a panic of the Go verifier into an error.
// A run is bounded by limit, so that a hang fails the test instead of
// stalling it.
func verifyNoPanic(dir string, limit time.Duration) (rep *audit.Report, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v\n%s", r, debug.Stack())
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	return record.Verify(ctx, dir, record.Options{})
}

// keepFound writes a failing mutant where it can be committed from.
func keepFound(t *testing.T, m Mutant, seed uint64, n int) string {
	dir := os.Getenv("FABVOTE_DIFF_FOUND")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "fabvote-differential")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, fmt.Sprintf("seed-%d-%d.json", seed, n))
	if err := os.WriteFile(p, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func envDuration(t *testing.T, name string, def time.Duration) time.Duration {
	t.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return d
}

// expectedPart is what a corpus file's expect holds of a report: its
// verdict and its failures, messages aside.
func expectedPart(rep map[string]any) map[string]any {
	c := comparable(rep)
	return map[string]any{"ok": c["ok"], "failures": c["failures"]}
}

// unexpected says how rep differs from a corpus file's expect, or "".
func unexpected(rep, expect map[string]any) string {
	if rep == nil {
		return "no report, but the corpus file expects one"
	}
	got, _ := json.Marshal(expectedPart(rep))
	want, _ := json.Marshal(expect)
	if string(got) != string(want) {
		return "the report is not the one expected:\n  got:  " + string(got) + "\n  want: " + string(want)
	}
	return ""
}
