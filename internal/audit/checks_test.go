package audit

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// specCheck is a check as docs/VERIFY.md states it.
type specCheck struct {
	Check
	line int
}

// readVerifySpec reads VERIFY.md's checks: a heading "### Vn Title", then a
// paragraph that starts "*record.*", "*optional*", "*record, optional*" or
// neither, under the step heading "## Step `name`".
func readVerifySpec(t *testing.T) []specCheck {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "docs", "VERIFY.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	heading := regexp.MustCompile("^### (V[0-9]+) (.+)$")
	step := regexp.MustCompile("^## Step `([a-z-]+)`")
	var out []specCheck
	cur := ""
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if m := step.FindStringSubmatch(line); m != nil {
			cur = m[1]
		}
		if m := heading.FindStringSubmatch(line); m != nil {
			out = append(out, specCheck{Check{ID: m[1], Title: m[2], Step: cur}, n})
			continue
		}
		if len(out) > 0 && strings.HasPrefix(line, "*") && out[len(out)-1].line == n-1 {
			flags := strings.SplitN(line[1:], "*", 2)[0]
			out[len(out)-1].RecordOnly = strings.Contains(flags, "record")
			out[len(out)-1].Optional = strings.Contains(flags, "optional")
		}
	}
	return out
}

// TestVerifySpec: docs/VERIFY.md and Checks list the same checks, in the
// same order, with the same titles, steps and marks.
func TestVerifySpec(t *testing.T) {
	spec := readVerifySpec(t)
	if len(spec) != len(Checks) {
		t.Errorf("docs/VERIFY.md has %d checks, Checks %d", len(spec), len(Checks))
	}
	for i := range min(len(spec), len(Checks)) {
		got, want := Checks[i], spec[i].Check
		got.Needs = 0 // the page states a check's input in prose
		if got != want {
			t.Errorf("check %d: the verifier has %+v, docs/VERIFY.md line %d %+v", i+1, got, spec[i].line, want)
		}
	}
}

// TestCheckOf: every check of the spec is one that some failure belongs
// to, and no failure belongs to a check the spec lacks.
func TestCheckOf(t *testing.T) {
	seen := map[string]bool{}
	for _, tc := range []struct {
		f    Failure
		want string
	}{
		{Failure{Kind: KindRecord, Subject: "record.json"}, "V1"},
		{Failure{Kind: KindRecord, Subject: "files"}, "V2"},
		{Failure{Kind: KindRecord, Subject: "ballots.json"}, "V3"},
		{Failure{Kind: KindRecord, Subject: "result.json"}, "V4"},
		{Failure{Kind: KindBlockChain, Subject: "block 3"}, "V5"},
		{Failure{Kind: KindBlockChain, Subject: "block 0", Check: CheckGenesisAnchor}, "V6"},
		{Failure{Kind: KindBlockSignature, Subject: "block 0"}, "V7"},
		{Failure{Kind: KindBlockSignature, Subject: "block 4"}, "V8"},
		{Failure{Kind: KindRecordBallots, Subject: "ballots.json"}, "V9"},
		{Failure{Kind: KindRecordBallots, Subject: "ballot ab (tx t)"}, "V10"},
		{Failure{Kind: KindManifest, Code: "MANIFEST", Subject: "manifest"}, "V11"},
		{Failure{Kind: KindManifest, Subject: "manifest", Check: CheckManifestIsOwn}, "V12"},
		{Failure{Kind: KindManifest, Subject: "manifest", Check: CheckPublishedAnchor}, "V13"},
		{Failure{Kind: KindKeyOrigin, Code: "MANIFEST", Subject: "manifest"}, "V33"},
		{Failure{Kind: KindBallotDecode, Code: "DECODE"}, "V14"},
		{Failure{Kind: KindBallotKey}, "V15"},
		{Failure{Kind: KindBallotInvalid, Code: "NO_ELECTION"}, "V16"},
		{Failure{Kind: KindBallotInvalid, Code: "CIPHERTEXT"}, "V16"},
		{Failure{Kind: KindBallotInvalid, Code: "TOKEN"}, "V17"},
		{Failure{Kind: KindBallotInvalid, Code: "SIGNATURE"}, "V18"},
		{Failure{Kind: KindBallotInvalid, Code: "PROOF"}, "V19"},
		{Failure{Kind: KindBallotInvalid, Code: "LIMIT"}, "V19"},
		{Failure{Kind: KindDuplicate, Code: "DUPLICATE"}, "V20"},
		{Failure{Kind: KindBallotInvalid, Code: "NOT_IN_STYLE"}, "V31"},
		{Failure{Kind: KindBallotInvalid, Code: "CONTEST_REPEAT"}, "V31"},
		{Failure{Kind: KindBallotInvalid, Code: "CONTEST_ORDER"}, "V31"},
		{Failure{Kind: KindBallotInvalid, Code: "CONTEST_MISSING"}, "V31"},
		{Failure{Kind: KindSpoiled, Code: "OPENING", Subject: "tracker ab (tx t)"}, "V32"},
		{Failure{Kind: KindTracker, Code: "SPOILED", Subject: "ballot ab (tx t)"}, "V32"},
		{Failure{Kind: KindOrder, Subject: "manifest", Check: CheckOpening}, "V21"},
		{Failure{Kind: KindOrder, Subject: "ballot ab (tx t)"}, "V22"},
		{Failure{Kind: KindOrder, Subject: "ballot ab (tx t)", Check: CheckStoredTxID}, "V23"},
		{Failure{Kind: KindOrder, Subject: "result", Check: CheckResultWrite}, "V24"},
		{Failure{Kind: KindSource, Subject: "blocks", Check: CheckResultWrite}, "V24"},
		{Failure{Kind: KindResultMissing}, "V25"},
		{Failure{Kind: KindResultDecode, Code: "DECODE"}, "V26"},
		{Failure{Kind: KindResultCount}, "V27"},
		{Failure{Kind: KindResultProduct}, "V28"},
		{Failure{Kind: KindResult, Code: "RESULT"}, "V29"},
		{Failure{Kind: KindExpectedCounts, Check: CheckExpectedCounts}, "V30"},
		{Failure{Kind: KindSource, Subject: "ballots"}, ""}, // a failure to read is no check
	} {
		if got := CheckOf(tc.f); got != tc.want {
			t.Errorf("CheckOf(%+v) = %q, want %q", tc.f, got, tc.want)
		}
		seen[tc.want] = true
	}
	for _, c := range Checks {
		if !seen[c.ID] {
			t.Errorf("no failure belongs to %s %q", c.ID, c.Title)
		}
	}
}

// TestNamedChecksFound: each check a finder must name is named where a
// failure of it is found, outside this package's list.
func TestNamedChecksFound(t *testing.T) {
	uses := map[string]int{}
	named := []string{"CheckGenesisAnchor", "CheckManifestIsOwn", "CheckPublishedAnchor", "CheckOpening", "CheckStoredTxID",
		"CheckResultWrite", "CheckExpectedCounts"}
	for _, dir := range []string{".", filepath.Join("..", "record"), filepath.Join("..", "..", "cmd", "fabvote")} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") || filepath.Base(f) == "checks.go" {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range named {
				uses[n] += strings.Count(string(b), n)
			}
		}
	}
	for _, n := range named {
		if uses[n] == 0 {
			t.Errorf("%s is named by no finder", n)
		}
	}
}
