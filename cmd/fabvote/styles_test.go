package main

import (
	"bufio"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/election/electiontest"
	"github.com/fabvote/fabvote/internal/nettest"
)

// TestIssuingPathsSignStyles: in an election of two ballot styles, the
// roll's styles end up in the tokens of register --offline --roll, the
// offline voters of --voters N and ballot --bulk get the styles in turn
// and answer their style's contests, and a roll with a voter of no style,
// or of a style the election lacks, issues nothing.
func TestIssuingPathsSignStyles(t *testing.T) {
	e := newServeEnv(t, 2, 20)
	m := e.manifest("styles-1")
	m.Contests, m.Styles = electiontest.Contests3(), electiontest.Styles2()
	raw, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(e.p("manifest.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := election.Prepare(m)
	if err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (int, string) { return fv(t, args...) }
	if code, errs := run("ea", "roll", "--voters", "3", "--styles", "south,north", "--out", e.p("styled.csv")); code != 0 {
		t.Fatal(errs)
	}
	offline := func(out string, args ...string) (int, string) {
		return run(append([]string{"register", "--offline", "--manifest", e.p("manifest.json"), "--ea-key", e.p("ea.key"), "--out", e.p(out)}, args...)...)
	}
	if code, errs := offline("styled.jsonl", "--roll", e.p("styled.csv")); code != 0 {
		t.Fatal(errs)
	}
	if got := tokenStyles(t, p, e.p("styled.jsonl")); strings.Join(got, ",") != "1,0,1" {
		t.Fatalf("styles of the roll's tokens %v, want south, north, south", got)
	}
	if code, errs := offline("turns.jsonl", "--voters", "3"); code != 0 || strings.Join(tokenStyles(t, p, e.p("turns.jsonl")), ",") != "0,1,0" {
		t.Fatalf("exit %d (%s): offline voters do not get the styles in turn", code, errs)
	}
	// The roll of newServeEnv has no styles; another has one the election lacks.
	if err := os.WriteFile(e.p("foreign.csv"), []byte("voter_id,code,style\nv1,"+strings.Repeat("A", 20)+",east\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for roll, want := range map[string]string{"roll.csv": "has no ballot style", "foreign.csv": `"east" is no ballot style`} {
		code, errs := offline("refused.jsonl", "--roll", e.p(roll))
		if code != 1 || !strings.Contains(errs, want) {
			t.Fatalf("%s: exit %d, %q; want a refusal saying %q", roll, code, errs, want)
		}
		if _, err := os.Lstat(e.p("refused.jsonl")); err == nil {
			t.Fatalf("%s: the refusal left its output", roll)
		}
	}
	if code, errs := run("ballot", "--bulk", "--quiet", "--manifest", e.p("manifest.json"), "--voters-file", e.p("styled.jsonl"),
		"--choices", "random", "--out", e.p("ballots.bin")); code != 0 {
		t.Fatal(errs)
	}
	lists := bulkContestLists(t, e.p("ballots.bin")) // in the order the workers finish
	slices.Sort(lists)
	if strings.Join(lists, " ") != "[0 1 2] [0 2] [0 2]" {
		t.Fatalf("the bulk ballots answer %v, want the contests of north, and of south twice", lists)
	}
}

// tokenStyles are the style indexes of a voters file's tokens.
func tokenStyles(t *testing.T, p *election.Prepared, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		v, _, err := parseVoterLine(sc.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		s, err := p.TokenStyle(v.Token)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(rune('0'+s)))
	}
	return out
}

// bulkContestLists are the contests lists of a ballot stream's ballots.
func bulkContestLists(t *testing.T, path string) []string {
	t.Helper()
	var out []string
	for _, raw := range nettest.ReadBallotStream(t, path) {
		b, err := election.ParseBallot(raw)
		if err != nil {
			t.Fatal(err)
		}
		var s []string
		for _, c := range b.Contests {
			s = append(s, string(rune('0'+c)))
		}
		out = append(out, "["+strings.Join(s, " ")+"]")
	}
	return out
}
