package record_test

// The Go verifier against the independent Python verifier (verifier-py) on
// the same record: both must give the same JSON report, failure messages
// aside (RECORD.md 7). FABVOTE_PYVERIFY names a Python that imports
// fabvote_verifier; without it these comparisons are skipped, and with
// FABVOTE_DIFFERENTIAL=1 a missing FABVOTE_PYVERIFY is a failure, so that
// make test cannot pass them vacuously.

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/fabvote/fabvote/internal/audit"
	"github.com/fabvote/fabvote/internal/record"
)

// pyVerifier is the Python to run the independent verifier with, or "".
func pyVerifier(t testing.TB) string {
	t.Helper()
	py := os.Getenv("FABVOTE_PYVERIFY")
	if py == "" && os.Getenv("FABVOTE_DIFFERENTIAL") != "" {
		t.Fatal("FABVOTE_DIFFERENTIAL is set but FABVOTE_PYVERIFY names no Python with fabvote_verifier")
	}
	return py
}

// pyRun is one run of the Python verifier.
type pyRun struct {
	report  map[string]any // nil when it printed no JSON report
	exit    int
	stderr  string
	elapsed time.Duration
}

// runPython verifies dir with the Python verifier under opts' anchors
// (a manifest anchor is written to a file beside the record).
func runPython(t testing.TB, py, dir string, opts record.Options, timeout time.Duration) pyRun {
	t.Helper()
	args := []string{"-m", "fabvote_verifier", "--record", dir, "--json", "--concurrency", "1"}
	if opts.GenesisHash != nil {
		args = append(args, "--genesis-hash", hex.EncodeToString(opts.GenesisHash))
	}
	if opts.Manifest != nil {
		m := filepath.Join(filepath.Dir(dir), "anchor-manifest.json")
		if err := os.WriteFile(m, opts.Manifest, 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--manifest", m)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, py, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	run := pyRun{exit: cmd.ProcessState.ExitCode(), stderr: stderr.String(), elapsed: time.Since(start)}
	if ctx.Err() != nil {
		run.exit = -1
		return run
	}
	if err != nil && run.exit < 0 {
		t.Fatalf("python verifier: %v", err)
	}
	if stdout.Len() > 0 {
		if err := json.Unmarshal(stdout.Bytes(), &run.report); err != nil {
			run.report = nil
			run.stderr += "\n(stdout is no JSON: " + err.Error() + ")"
		}
	}
	return run
}

// comparable is a JSON report without what RECORD.md 7 leaves to each
// verifier: the failures' messages.
func comparable(rep map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range rep {
		out[k] = v
	}
	if fs, ok := rep["failures"].([]any); ok {
		stripped := []any{}
		for _, f := range fs {
			g := map[string]any{}
			for k, v := range f.(map[string]any) {
				if k != "error" {
					g[k] = v
				}
			}
			stripped = append(stripped, g)
		}
		out["failures"] = stripped
	}
	return out
}

// goJSON is the Go report as the JSON an auditor reads.
func goJSON(t testing.TB, rep *audit.Report) map[string]any {
	t.Helper()
	b, err := rep.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// disagreement says how the Python verifier's run on dir differs from the
// Go report, or "" when they agree: the same report (messages aside) and
// the exit status that report calls for.
func disagreement(goRep map[string]any, py pyRun) string {
	wantExit := 1
	if goRep["ok"] == true {
		wantExit = 0
	}
	switch {
	case py.exit == -1:
		return "the Python verifier did not finish in time"
	case py.report == nil:
		return "the Python verifier printed no JSON report (exit " + itoa(py.exit) + "): " + tail(py.stderr)
	case py.exit != wantExit:
		return "the Python verifier exited " + itoa(py.exit) + ", want " + itoa(wantExit) + ": " + tail(py.stderr)
	}
	g, p := comparable(goRep), comparable(py.report)
	if reflect.DeepEqual(g, p) {
		return ""
	}
	gb, _ := json.Marshal(g)
	pb, _ := json.Marshal(p)
	return "reports differ:\n  go:     " + string(gb) + "\n  python: " + string(pb)
}

func itoa(n int) string { return strconv.Itoa(n) }

func tail(s string) string {
	if len(s) > 600 {
		return "…" + s[len(s)-600:]
	}
	return s
}

// agreeWithPython fails t when the Python verifier's report on dir is not
// rep's; it does nothing when no Python verifier is configured.
func agreeWithPython(t *testing.T, dir string, opts record.Options, rep *audit.Report) {
	t.Helper()
	py := pyVerifier(t)
	if py == "" {
		return
	}
	if d := disagreement(goJSON(t, rep), runPython(t, py, dir, opts, 2*time.Minute)); d != "" {
		t.Errorf("the verifiers disagree: %s", d)
	}
}
