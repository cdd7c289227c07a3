package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/audit"
	"github.com/fabvote/fabvote/internal/cli/clitest"
)

// contractCase is one command of TestEveryCommand.
type contractCase struct {
	name     string
	missing  string   // message when run without flags ("": the command runs without flags)
	badValue []string // a typed flag given a value of the wrong type (nil: the command has none)
	badFlag  string   // the flag named in badValue's message
}

// TestEveryCommand checks the command-line contract of each command: --help
// exits 0 and prints the command's synopsis and flags; an unknown flag, a
// stray argument, a missing required flag and a badly typed value exit 2
// with a message that names the flag and points to --help. None of these
// cases touches the network or writes a file.
func TestEveryCommand(t *testing.T) {
	tests := []contractCase{
		{"election create", "--election is required", []string{"--max-voters", "ten"}, "--max-voters"},
		{"election open", "--manifest is required", []string{"--max-attempts", "x"}, "--max-attempts"},
		{"ea roll", "--out is required", []string{"--voters", "x"}, "--voters"},
		{"ea tls-cert", "--ca-cert is required", []string{"--days", "1.5"}, "--days"},
		{"ea init-state", "--manifest is required", nil, ""},
		{"ea serve", "--manifest is required", []string{"--lockout", "soon"}, "--lockout"},
		{"register", "--manifest is required", []string{"--offline=maybe"}, "--offline"},
		{"ballot", "--manifest is required", []string{"--concurrency", "x"}, "--concurrency"},
		{"cast", "exactly one of --ballot or --ballots", []string{"--concurrency", "x"}, "--concurrency"},
		{"box serve", "--tls-cert is required", []string{"--spoil-rate", "-1"}, "--spoil-rate"},
		{"receipt check", "--receipt is required", []string{"--max-attempts", "x"}, "--max-attempts"},
		{"tally", "--manifest is required", []string{"--wait=maybe"}, "--wait"},
		{"trustee keygen", "--out is required", nil, ""},
		{"ceremony config", "--k is required", []string{"--bits", "x"}, "--bits"},
		{"ceremony relay", "", nil, ""},
		{"trustee ceremony", "--config is required", []string{"--batch", "x"}, "--batch"},
		{"trustee decrypt", "--manifest is required", []string{"--quiet=maybe"}, "--quiet"},
		{"verify", "--election (or --manifest) is required", []string{"--max-attempts", "x"}, "--max-attempts"},
		{"record export", "--election is required", []string{"--max-attempts", "x"}, "--max-attempts"},
		{"record site", "--record is required", nil, ""},
		{"booth digest", "--dir is required", nil, ""},
		{"bench", "--ballots (or --work-delay) is required", []string{"--rate", "fast"}, "--rate"},
		{"version", "", []string{"--patches=maybe"}, "--patches"},
		{"calibrate", "", []string{"--exp-ops", "x"}, "--exp-ops"},
	}
	// Every command of the CLI is in the table, so a new one cannot skip these checks.
	covered := map[string]bool{}
	for _, tc := range tests {
		covered[tc.name] = true
	}
	for _, c := range commands {
		if !covered[c.name] {
			t.Errorf("command %q is not in TestEveryCommand's table", c.name)
		}
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			words := strings.Fields(tc.name)
			args := func(extra ...string) []string { return append(slices.Clone(words), extra...) }
			code, help := fv(t, args("--help")...)
			if code != 0 {
				t.Errorf("--help: exit %d, want 0", code)
			}
			if !strings.HasPrefix(help, "usage: fabvote "+tc.name+" ") || !strings.Contains(help, "  --") {
				t.Errorf("--help does not print the synopsis and the flags:\n%s", help)
			}
			for _, c := range usageMistakes(tc, args) {
				checkUsageError(t, c.what, c.args, append(c.want, "see `fabvote "+tc.name+" --help`"))
			}
		})
	}
}

// usageMistake is a command line that must exit 2 with a message saying
// each of want.
type usageMistake struct {
	what string
	args []string
	want []string
}

// usageMistakes are the usage errors TestEveryCommand makes with tc.
func usageMistakes(tc contractCase, args func(...string) []string) []usageMistake {
	ms := []usageMistake{
		{"unknown flag", args("--no-such-flag"), []string{"unknown flag: --no-such-flag"}},
		{"stray argument", args("stray"), []string{`unexpected argument "stray"`}},
	}
	if tc.missing != "" {
		ms = append(ms, usageMistake{"no flags", args(), []string{tc.missing}})
	}
	if tc.badValue != nil {
		ms = append(ms, usageMistake{"bad value", args(tc.badValue...), []string{"invalid", tc.badFlag}})
	}
	return ms
}

// A required number flag left off the command line is a usage error naming
// it, not the failure of a later check of its zero value.
func TestRequiredNumberFlag(t *testing.T) {
	dir := t.TempDir()
	checkUsageError(t, "election create without --max-voters",
		[]string{"election", "create", "--election", "e1", "--candidates", "A,B", "--out", filepath.Join(dir, "el")},
		[]string{"--max-voters is required"})
	if _, err := os.Stat(filepath.Join(dir, "el")); !os.IsNotExist(err) {
		t.Fatalf("a refused election create left %s behind (stat: %v)", filepath.Join(dir, "el"), err)
	}
}

// election create refuses bad flags before it makes --out: a refused
// command leaves no directory behind.
func TestElectionCreateRefusalLeavesNoDir(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		extra      []string
	}{
		{"bad id", "electionID", []string{"--election", "bad id"}},
		{"duplicate candidates", `options[1] "A" repeats`, []string{"--candidates", "A,A"}},
		{"modulus too small", "bits", []string{"--bits", "1000"}},
		{"end before start", "--end", []string{"--start", "+2h", "--end", "+1h"}},
		{"booth digest not sha256", "--booth-digest", []string{"--booth-digest", "md5:00"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "el")
			args := append([]string{"election", "create", "--election", "e1", "--candidates", "A,B", "--max-voters", "10", "--out", out}, tc.extra...)
			var code int
			var stderr string
			clitest.Capture(t, &os.Stderr, func() { code, stderr = fv(t, args...) })
			if code == 0 || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, stderr %q; want a failure naming %q", code, stderr, tc.want)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Fatalf("the refused command left %s behind (stat: %v)", out, err)
			}
		})
	}
}

// ea roll never replaces a roll: its one-time codes may be in voters' hands.
func TestEARollRefusesExistingRoll(t *testing.T) {
	roll := filepath.Join(t.TempDir(), "roll.csv")
	if code, _ := fv(t, "ea", "roll", "--voters", "3", "--out", roll); code != 0 {
		t.Fatalf("first ea roll: exit %d", code)
	}
	before, err := os.ReadFile(roll)
	if err != nil {
		t.Fatal(err)
	}
	var code int
	var stderr string
	clitest.Capture(t, &os.Stderr, func() { code, stderr = fv(t, "ea", "roll", "--voters", "2", "--out", roll) })
	if code != 1 || !strings.Contains(stderr, "exists") {
		t.Fatalf("second ea roll to the same file: exit %d, stderr %q; want exit 1 saying it exists", code, stderr)
	}
	after, err := os.ReadFile(roll)
	if err != nil || !bytes.Equal(before, after) {
		t.Fatalf("the refused ea roll changed %s (read error %v)", roll, err)
	}
}

// checkUsageError runs args and checks that they exit 2 with a message
// saying each of want.
func checkUsageError(t *testing.T, what string, args, want []string) {
	t.Helper()
	var code int
	var stderr string
	clitest.Capture(t, &os.Stderr, func() { code, stderr = fv(t, args...) })
	if code != 2 {
		t.Errorf("%s: exit %d, want 2 (usage error); stderr:\n%s", what, code, stderr)
	}
	for _, w := range want {
		if !strings.Contains(stderr, w) {
			t.Errorf("%s: stderr %q does not say %q", what, stderr, w)
		}
	}
}

// TestCheckExpectedCounts checks that verify's --expect-counts turns a
// mismatch into a failure that names the candidate and both numbers.
func TestCheckExpectedCounts(t *testing.T) {
	tests := []struct {
		name   string
		spec   string
		counts []uint64
		want   string // "" means no failure
	}{
		{"equal", "3,0,2", []uint64{3, 0, 2}, ""},
		{"spaces allowed", " 3, 0 ,2 ", []uint64{3, 0, 2}, ""},
		{"one count differs", "3,1,2", []uint64{3, 0, 2}, "Bob has 0 votes in contest main, the voters' recorded choices give 1"},
		{"named contest", "main=3,0,2", []uint64{3, 0, 2}, ""},
		{"unknown contest", "mayor=3,0,2", []uint64{3, 0, 2}, `"mayor" is no contest`},
		{"too few numbers", "3,0", []uint64{3, 0, 2}, `contest "main": 2 counts for 3 options`},
		{"not a number", "3,x,2", []uint64{3, 0, 2}, `"x" is not a count`},
		{"no result", "3,0,2", nil, "no result to compare"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := expectReport(tc.counts)
			(&expectFlags{counts: tc.spec}).check(rep)
			if tc.want == "" {
				if !rep.OK() {
					t.Fatalf("unexpected failures: %v", rep.Failures)
				}
				return
			}
			if rep.OK() || len(rep.Failures) != 1 {
				t.Fatalf("got %d failures %v, want one saying %q", len(rep.Failures), rep.Failures, tc.want)
			}
			if f := rep.Failures[0]; f.Kind != "EXPECTED_COUNTS" || !strings.Contains(f.Err, tc.want) {
				t.Fatalf("failure %s does not say %q", f, tc.want)
			}
		})
	}
}

// expectReport is a passing audit report of a three-candidate election with
// the given published counts (no result when counts is nil).
func expectReport(counts []uint64) *audit.Report {
	contests, styles := election.OneContest("x", []string{"Alice", "Bob", "Carol"})
	rep := &audit.Report{ElectionID: "x", Manifest: &election.Manifest{ElectionID: "x", Contests: contests, Styles: styles}}
	if counts != nil {
		rep.Result = &election.Result{ElectionID: "x", Contests: []election.ContestResult{{ID: election.OneContestID, Counts: counts}}}
	}
	return rep
}

// TestCalibrate: the probe writes its JSON whole, and refuses to time
// nothing without writing a file.
func TestCalibrate(t *testing.T) {
	out := filepath.Join(t.TempDir(), "probe.json")
	if code, msg := fv(t, "calibrate", "--exp-ops", "1", "--verify-ops", "1", "--json", out); code != 0 {
		t.Fatalf("calibrate: exit %d: %s", code, msg)
	}
	var r struct {
		ExpNs    float64 `json:"expNsPerOp"`
		VerifyNs float64 `json:"verifyNsPerOp"`
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &r); err != nil || r.ExpNs <= 0 || r.VerifyNs <= 0 {
		t.Fatalf("probe %s: %+v, %v", b, r, err)
	}
	none := filepath.Join(t.TempDir(), "none.json")
	if code, _ := fv(t, "calibrate", "--exp-ops", "0", "--json", none); code != 1 {
		t.Fatalf("calibrate --exp-ops 0: exit %d, want 1", code)
	}
	if _, err := os.Stat(none); !os.IsNotExist(err) {
		t.Fatalf("a refused calibrate left %s behind", none)
	}
}

// TestElectionCreateContests: --contests makes an election of the file's
// contests and styles, each contest in the encoding of the cost rule
// unless the file gives one; a bad file is refused naming what is wrong,
// and leaves nothing behind.
func TestElectionCreateContests(t *testing.T) {
	dir := t.TempDir()
	good := `{"contests":[
  {"id":"mayor","title":"Mayor","options":["Ana","Ben","Cleo","Dev"],"minSelections":1,"maxSelections":1,"blank":false},
  {"id":"council","title":"Council","options":["a","b","c","d","e","f","g","h","i"],"minSelections":0,"maxSelections":3,"blank":true},
  {"id":"referendum","title":"Referendum","options":["Yes","No"],"minSelections":1,"maxSelections":1,"blank":false,"encoding":"per-option"}],
 "styles":[{"id":"north","contests":["mayor","council","referendum"]},{"id":"south","contests":["mayor","referendum"]}]}`
	create := func(name, body string) (int, string, string) {
		path, out := filepath.Join(dir, name+".json"), filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		var code int
		var stderr string
		clitest.Capture(t, &os.Stderr, func() {
			code, stderr = fv(t, "election", "create", "--election", "e-"+name, "--contests", path, "--max-voters", "10", "--out", out)
		})
		return code, stderr, out
	}
	code, stderr, out := create("good", good)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	m, _, err := loadManifest(filepath.Join(out, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Contests) != 3 || len(m.Styles) != 2 || m.Contests[0].Encoding != "packed" || m.Contests[1].Encoding != "per-option" || m.Contests[2].Encoding != "per-option" {
		t.Fatalf("contests %+v, styles %+v", m.Contests, m.Styles)
	}
	for _, tc := range []struct{ name, body, want string }{
		{"unknown-field", strings.Replace(good, `"blank":false}`, `"blank":false,"seats":1}`, 1), `unknown field "seats"`},
		{"unknown-contest-in-style", strings.Replace(good, `["mayor","referendum"]`, `["mayor","senate"]`, 1), `styles[1].contests[1] "senate" is no contest`},
		{"contest-in-no-style", strings.Replace(good, `["mayor","council","referendum"]`, `["mayor","referendum"]`, 1), `contests[1] "council" is in no style`},
		{"bad-limits", strings.Replace(good, `"minSelections":0,"maxSelections":3`, `"minSelections":4,"maxSelections":3`, 1), "contests[1]"},
		{"bad-encoding", strings.Replace(good, `"encoding":"per-option"`, `"encoding":"zip"`, 1), `encoding "zip"`},
		{"trailing", good + "{}", "trailing data"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stderr, out := create(tc.name, tc.body)
			if code == 0 || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, stderr %q; want a failure naming %q", code, stderr, tc.want)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Fatalf("the refused command left %s behind (stat: %v)", out, err)
			}
		})
	}
}
