package bboard

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/election"
)

// Every kind of bad input fails with an error that names the problem, and
// leaves neither the output directory nor a temporary one behind.
func TestBuildErrors(t *testing.T) {
	other := newFixture("threshold")
	cases := []struct {
		name  string
		spoil func(f *fixture, rec string) []byte // returns the report to use; nil = f's
		want  string
	}{
		{"missing ballots.json", func(f *fixture, rec string) []byte {
			rm(t, rec, "ballots.json")
			return nil
		}, "has no ballots.json"},
		{"missing record.json", func(f *fixture, rec string) []byte {
			rm(t, rec, "record.json")
			return nil
		}, "has no record.json"},
		{"missing manifest.json", func(f *fixture, rec string) []byte {
			rm(t, rec, "manifest.json")
			return nil
		}, "has no manifest.json"},
		{"malformed ballots.json", func(f *fixture, rec string) []byte {
			put(t, rec, "ballots.json", `[{"pseudonym":`)
			return nil
		}, "ballots.json does not decode: unexpected EOF"},
		{"ballots.json null", func(f *fixture, rec string) []byte {
			put(t, rec, "ballots.json", "null")
			return nil
		}, "ballots.json is not an array"},
		{"ballot hash not hex", func(f *fixture, rec string) []byte {
			put(t, rec, "ballots.json", strings.Replace(string(jsonOf(f.ballots)), f.ballots[1].BallotHash, "XYZ", 1))
			return nil
		}, `ballots.json, entry 1: ballotHash "XYZ" is not 64 lower-case hex digits`},
		{"transaction id too long", func(f *fixture, rec string) []byte {
			long := strings.Repeat("a", election.MaxTxIDLen+1)
			put(t, rec, "ballots.json", strings.Replace(string(jsonOf(f.ballots)), f.ballots[2].TxID, long, 1))
			return nil
		}, fmt.Sprintf("ballots.json, entry 2: txID has %d bytes, want at most %d", election.MaxTxIDLen+1, election.MaxTxIDLen)},
		{"manifest not canonical", func(f *fixture, rec string) []byte {
			put(t, rec, "manifest.json", string(f.manifest)+" ")
			return nil
		}, "manifest.json: "},
		{"result of another election", func(f *fixture, rec string) []byte {
			put(t, rec, "result.json", string(other.result))
			return nil
		}, `result.json is of election "e-thr", manifest.json of "e-single"`},
		{"record.json of another format", func(f *fixture, rec string) []byte {
			f.record["version"] = 1
			put(t, rec, "record.json", string(jsonOf(f.record)))
			return nil
		}, `record.json: a record of format version 1; this verifier reads version 2 only`},
		{"malformed report", func(f *fixture, rec string) []byte {
			return []byte(`{"format":"fabvote-verify-report",`)
		}, "verification report: malformed JSON"},
		{"report with trailing data", func(f *fixture, rec string) []byte {
			return append(jsonOf(f.report), []byte(" {}")...)
		}, "verification report: malformed JSON: trailing data"},
		{"report of another election", func(f *fixture, rec string) []byte {
			f.report["electionID"] = "e-other"
			return jsonOf(f.report)
		}, `verification report is of election "e-other", the record of "e-single"`},
		{"report of another format", func(f *fixture, rec string) []byte {
			f.report["format"] = "something-else"
			return jsonOf(f.report)
		}, `verification report: format "something-else"`},
		{"report without ok", func(f *fixture, rec string) []byte {
			delete(f.report, "ok")
			return jsonOf(f.report)
		}, `verification report: no "ok" field`},
		{"report of a live network", func(f *fixture, rec string) []byte {
			f.report["source"] = "network"
			return jsonOf(f.report)
		}, `source "network", want "record"`},
		{"report without genesis hash", func(f *fixture, rec string) []byte {
			delete(f.report, "genesisHash")
			return jsonOf(f.report)
		}, `genesisHash "" is not 64 lower-case hex digits`},
		{"report ok with a failure", func(f *fixture, rec string) []byte {
			f.report["ok"] = true
			return jsonOf(f.report)
		}, "says ok but lists a failed step or a failure"},
		{"report not ok without a failure", func(f *fixture, rec string) []byte {
			f.passing().report["ok"] = false
			return jsonOf(f.report)
		}, "says not ok but lists no failed step"},
		{"report with another result", func(f *fixture, rec string) []byte {
			f.report["result"] = map[string]any{"ballotCount": 5, "contests": []any{map[string]any{"id": "main", "title": "A",
				"options": []string{"A", "B", "C", "D"}, "ballots": 5, "counts": []int{5, 0, 0, 0}, "blank": 0, "undervotes": 0}}}
			return jsonOf(f.report)
		}, `its result differs from result.json (contest "main" has counts [5 0 0 0], result.json [3 1 0 1]`},
		{"report with another ballot count", func(f *fixture, rec string) []byte {
			f.report["result"].(map[string]any)["ballotCount"] = 6
			return jsonOf(f.report)
		}, "its result differs from result.json (ballotCount 6, result.json 5"},
		{"report without contests", func(f *fixture, rec string) []byte {
			f.report["result"].(map[string]any)["contests"] = []any{}
			return jsonOf(f.report)
		}, "its result differs from result.json (0 contests, result.json 1"},
		{"report with other blank votes", func(f *fixture, rec string) []byte {
			f.report["result"].(map[string]any)["contests"].([]any)[0].(map[string]any)["blank"] = 1
			return jsonOf(f.report)
		}, `contest "main" has 1 blank votes, result.json 0`},
		{"report with other contest ballots", func(f *fixture, rec string) []byte {
			f.report["result"].(map[string]any)["contests"].([]any)[0].(map[string]any)["ballots"] = 4
			return jsonOf(f.report)
		}, `contest "main" counts 4 ballots, result.json 5`},
		{"result of another manifest's contests", func(f *fixture, rec string) []byte {
			put(t, rec, "result.json", strings.ReplaceAll(string(f.result), `"id":"main"`, `"id":"mayor"`))
			return nil
		}, `result.json: contests[0] is "mayor", the manifest's contest 0 is "main"`},
		{"result with a count too few", func(f *fixture, rec string) []byte {
			put(t, rec, "result.json", strings.Replace(string(f.result), `"counts":[3,1,0,1]`, `"counts":[3,1,0]`, 1))
			return nil
		}, `result.json: contest "main" has 3 counts for 4 options`},
		{"report with a result the record lacks", func(f *fixture, rec string) []byte {
			rm(t, rec, "result.json")
			return nil
		}, "has a result but the record has no result.json"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture("single")
			rec, rep := f.write(t)
			if r := tc.spoil(f, rec); r != nil {
				rep = r
			}
			parent := t.TempDir()
			out := filepath.Join(parent, "site")
			err := Build(rec, rep, out)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got error %v, want one containing %q", err, tc.want)
			}
			t.Logf("error: %v", err)
			if !strings.HasPrefix(err.Error(), "bboard: ") {
				t.Errorf("error %q does not say where it comes from", err)
			}
			if left, _ := os.ReadDir(parent); len(left) != 0 {
				t.Errorf("left behind: %v", left)
			}
		})
	}
}

// An output that exists and is not empty, or is a file, is refused and
// left as it was.
func TestBuildRefusesOutput(t *testing.T) {
	rec, rep := newFixture("single").write(t)
	cases := []struct {
		name  string
		setup func(out string)
		want  string
	}{
		{"non-empty directory", func(out string) {
			mkdir(t, out)
			put(t, out, "keep.txt", "mine")
		}, "is not empty"},
		{"a file", func(out string) { put(t, filepath.Dir(out), filepath.Base(out), "mine") }, "is not a directory"},
		{"no output given", nil, "no output directory given"},
		{"parent missing", func(out string) {}, "output: "},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			parent := t.TempDir()
			out := filepath.Join(parent, "site")
			switch {
			case tc.setup == nil:
				out = ""
			case tc.name == "parent missing":
				out = filepath.Join(parent, "missing", "site")
			default:
				tc.setup(out)
			}
			before := readTree(t, parent)
			err := Build(rec, rep, out)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got error %v, want one containing %q", err, tc.want)
			}
			after := readTree(t, parent)
			if len(after) != len(before) {
				t.Errorf("files before %v, after %v", before, after)
			}
			if entries, _ := os.ReadDir(parent); tc.setup != nil && tc.name != "parent missing" && len(entries) != 1 {
				t.Errorf("left behind: %v", entries)
			}
		})
	}
}

func rm(t *testing.T, dir, name string) {
	t.Helper()
	if err := os.Remove(filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}
}

func put(t *testing.T, dir, name, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}
