package bboard

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/a11y"
	"github.com/fabvote/fabvote/internal/record"
)

// build runs Build on f into a fresh outDir and returns the site's files.
func build(t *testing.T, f *fixture) (string, map[string]string) {
	t.Helper()
	rec, rep := f.write(t)
	out := filepath.Join(t.TempDir(), "site")
	if err := Build(rec, rep, out); err != nil {
		t.Fatalf("Build: %v", err)
	}
	return out, readTree(t, out)
}

func readTree(t testing.TB, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// stepRow matches a row of the verification table, checkRow one of the
// numbered checks.
var (
	stepRow  = regexp.MustCompile(`<tr><th scope="row"><code>([a-z-]+)</code></th><td>[^<]*</td><td><span class="status \w+">([a-z ]+)</span></td></tr>`)
	checkRow = regexp.MustCompile(`<tr><th scope="row"><code>(V[0-9]+)</code></th><td>([^<]*)</td><td><span class="status \w+">([a-z ]+)</span></td></tr>`)
)

// squash removes the markup so that assertions can read the page's text.
var tags = regexp.MustCompile(`<[^>]*>`)

// text is the page's text, with each verification step's outcome written
// as "step NAME OUTCOME" so that a test can assert it.
func text(html string) string {
	html = stepRow.ReplaceAllString(html, "step $1 $2")
	html = checkRow.ReplaceAllString(html, "check $1 $2 $3")
	return strings.Join(strings.Fields(tags.ReplaceAllString(html, " ")), " ")
}

func TestBuildPages(t *testing.T) {
	late, bad, counted := ballotN(5), ballotN(6), ballotN(0)
	cases := []struct {
		name string
		fx   func() *fixture
		want map[string][]string // file → texts it must contain
		not  map[string][]string
	}{
		{"single key, failed verification", func() *fixture { return newFixture("single") }, map[string][]string{
			"index.html": {"Test election e-single", "Verification failed", "Alice 3 60.0 %", "Bob 1 20.0 %",
				"Carol 0 0.0 %", "Ballots counted 5", "step ballots failed", "step result passed", "V19 BALLOT_INVALID PROOF",
				"check V1 record.json passed", "validity proofs failed",
				"validity proof does not verify", genesis, "A single key", "2026-11-01 08:00:00 UTC",
				"7 ballots recorded", "5 counted", "1 late: not counted", "1 invalid: not counted", "Manifest hash"},
			"ballots.html":      {"Page 1", "7"},
			"ballots-0001.html": {counted.BallotHash + " 3 0 " + counted.TxID + " counted", late.BallotHash + " 3 5 " + late.TxID + " late: not counted", bad.BallotHash + " 3 6 " + bad.TxID + " invalid: not counted (BALLOT_INVALID PROOF)", "First page", "Last page"},
			"verify.html":       {"fabvote verify --record DIR", "python -m fabvote_verifier --record DIR", genesis, "--genesis-hash", "Compare the manifest", "--manifest"},
			"search.html":       {"Ballot hash or tracker from your receipt"},
			"report.json":       {`"electionID":"e-single"`},
		}, map[string][]string{"index.html": {"Verification passed"}}},
		{"threshold, passed", func() *fixture { return newFixture("threshold").passing() }, map[string][]string{
			"index.html": {"Verification passed", "Shared among 3 trustees: any 2", "Alice 2 40.0 %", "Dave 0 0.0 %",
				"Key made by a dealer (one machine held the whole key while it ran: for tests and benchmarks)",
				"The verifier reported no failure", "6 ballots recorded", "step record passed", "step commit-order passed",
				"validity proofs passed"},
		}, map[string][]string{"index.html": {"Verification failed", "invalid: not counted"}}},
		{"no result yet", func() *fixture {
			f := newFixture("single").passing()
			f.result = nil
			f.report["result"] = nil
			f.report["lateBallots"] = []any{}
			return f
		}, map[string][]string{
			"index.html":        {"No result has been published", "6 valid, no result published yet"},
			"ballots-0001.html": {counted.BallotHash + " 3 0 " + counted.TxID + " valid, no result published yet"},
		}, map[string][]string{"index.html": {"Ballots counted"}}},
		{"stopped at the blocks", func() *fixture {
			f := newFixture("single")
			f.report["steps"] = []any{map[string]any{"step": "record", "ok": true}, map[string]any{"step": "blocks", "ok": false}}
			f.report["ballots"], f.report["result"], f.report["lateBallots"] = nil, nil, []any{}
			f.report["failures"] = []any{map[string]any{"kind": "BLOCK_CHAIN", "subject": "block 4", "error": "previous_hash mismatch"}}
			return f
		}, map[string][]string{
			"index.html":        {"step blocks failed", "step block-signatures not reached", "step result not reached", "7 not verified", "BLOCK_CHAIN – block 4"},
			"ballots-0001.html": {counted.BallotHash + " 3 0 " + counted.TxID + " not verified"},
		}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, files := build(t, tc.fx())
			for file, wants := range tc.want {
				got := files[file]
				if file != "report.json" {
					got = text(got)
				}
				for _, w := range wants {
					if !strings.Contains(got, w) {
						t.Errorf("%s lacks %q; text:\n%s", file, w, got)
					}
				}
			}
			for file, nots := range tc.not {
				for _, n := range nots {
					if strings.Contains(text(files[file]), n) {
						t.Errorf("%s has %q", file, n)
					}
				}
			}
		})
	}
}

// The search data holds every ballot once, in the shard of its prefix,
// with the status the tables show.
func TestSearchShards(t *testing.T) {
	_, files := build(t, newFixture("single"))
	shards := 0
	for name := range files {
		if strings.HasPrefix(name, "data/") {
			shards++
		}
	}
	if shards != 256 {
		t.Errorf("%d shards, want 256", shards)
	}
	for n, code := range map[int]string{0: "c", 5: "l", 6: "i"} {
		b := ballotN(n)
		shard := files["data/"+b.BallotHash[:2]+".js"]
		want := fmt.Sprintf(`[%q,%d,%d,%q,%q,`, b.BallotHash, b.Block, b.Index, b.TxID, code)
		if !strings.Contains(shard, want) || !strings.HasPrefix(shard, `fabvoteShard("`+b.BallotHash[:2]+`",`) {
			t.Errorf("ballot %d: shard %s lacks %s:\n%s", n, b.BallotHash[:2], want, shard)
		}
	}
}

// search.js and the tables must name the statuses alike.
func TestSearchScriptStatuses(t *testing.T) {
	js, err := assetFS.ReadFile("assets/search.js")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range statusInfo {
		if !bytes.Contains(js, []byte(fmt.Sprintf(`%s: { label: %q`, s.code, s.label))) {
			t.Errorf("search.js lacks status %s %q", s.code, s.label)
		}
	}
}

func TestPagination(t *testing.T) {
	f := newFixture("single").passing()
	f.ballots = nil
	for n := range 2500 {
		f.ballots = append(f.ballots, ballotN(n))
	}
	sortBallots(f.ballots)
	f.report["lateBallots"] = []any{}
	_, files := build(t, f)
	for i, want := range []int{1000, 1000, 500} {
		page := files[fmt.Sprintf("ballots-%04d.html", i+1)]
		if got := strings.Count(page, "<tr><td><code>"); got != want {
			t.Errorf("page %d has %d rows, want %d", i+1, got, want)
		}
		if hasPrev := strings.Contains(page, `rel="prev"`); hasPrev != (i > 0) {
			t.Errorf("page %d: prev link %v", i+1, hasPrev)
		}
		if hasNext := strings.Contains(page, `rel="next"`); hasNext != (i < 2) {
			t.Errorf("page %d: next link %v", i+1, hasNext)
		}
	}
	if _, ok := files["ballots-0004.html"]; ok {
		t.Error("a fourth page")
	}
	if !strings.Contains(files["ballots-0002.html"], `<a href="ballots-0003.html" rel="next">`) {
		t.Error("page 2 does not link to page 3")
	}
}

func TestEmptyElection(t *testing.T) {
	f := newFixture("single").passing()
	f.ballots = []record.Entry{}
	f.result, f.report["result"], f.report["lateBallots"] = nil, nil, []any{}
	_, files := build(t, f)
	if !strings.Contains(files["ballots-0001.html"], "No ballot was recorded") {
		t.Error("empty page 1 does not say there is no ballot")
	}
}

func TestDeterministic(t *testing.T) {
	f := newFixture("threshold")
	_, a := build(t, f)
	_, b := build(t, f)
	if len(a) != len(b) {
		t.Fatalf("%d files, then %d", len(a), len(b))
	}
	for name, body := range a {
		if b[name] != body {
			t.Errorf("%s differs between two builds", name)
		}
	}
}

// An empty existing outDir is used; the site's directory is world-readable.
func TestEmptyOutDir(t *testing.T) {
	rec, rep := newFixture("single").write(t)
	out := t.TempDir()
	if err := Build(rec, rep, out); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if di, _ := os.Stat(out); di.Mode().Perm() != 0o755 || fi.Mode().Perm() != 0o644 {
		t.Errorf("modes %v, %v", di.Mode(), fi.Mode())
	}
}

// TestManifestHashShown: the front page and the verification page show
// SHA-256 of the record's manifest.json, the hash an observer compares
// with the manifest the authority published.
func TestManifestHashShown(t *testing.T) {
	f := newFixture("threshold").passing()
	sum := sha256.Sum256(f.manifest)
	want := hex.EncodeToString(sum[:])
	_, files := build(t, f)
	for _, page := range []string{"index.html", "verify.html"} {
		if !strings.Contains(files[page], want) {
			t.Errorf("%s does not show the manifest hash %s", page, want)
		}
	}
}

// TestAnchorsShown: the front page says whether the verification was given
// both anchors; a report without them, or with an anchor of another record,
// is shown as unanchored, and verify.html's commands carry the genesis hash.
func TestAnchorsShown(t *testing.T) {
	for _, tc := range []struct {
		name    string
		anchors func(genesis, manifest string) any
		want    string
	}{
		{"none in the report", func(string, string) any { return nil }, "was not given either anchor"},
		{"both null", func(string, string) any { return map[string]any{"genesisHash": nil, "manifestSHA256": nil} }, "was not given either anchor"},
		{"genesis only", func(g, _ string) any { return map[string]any{"genesisHash": g, "manifestSHA256": nil} }, "was not given the published manifest"},
		{"another record's genesis", func(_, m string) any {
			return map[string]any{"genesisHash": strings.Repeat("ab", 32), "manifestSHA256": m}
		}, "was not given the channel's genesis hash"},
		{"both", func(g, m string) any { return map[string]any{"genesisHash": g, "manifestSHA256": m} }, "was given both anchors"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture("threshold").passing()
			sum := sha256.Sum256(f.manifest)
			genesis := f.report["genesisHash"].(string)
			if a := tc.anchors(genesis, hex.EncodeToString(sum[:])); a != nil {
				f.report["anchors"] = a
			}
			_, files := build(t, f)
			if got := text(files["index.html"]); !strings.Contains(got, tc.want) {
				t.Errorf("index.html does not say %q", tc.want)
			}
			if !strings.Contains(files["verify.html"], "--genesis-hash "+genesis+" --manifest MANIFEST") {
				t.Errorf("verify.html's commands lack the genesis hash")
			}
		})
	}
}

// TestContestsRendered: an election of three contests in two ballot
// styles gets one section per contest, each with its rule, its ballots,
// its outcome, a chart of its own (unique ids, a title naming every bar)
// and a table with the blank votes and the undervotes; the manifest's
// description lists the contests with their options and the styles.
func TestContestsRendered(t *testing.T) {
	_, files := build(t, newFixture("contests").passing())
	page := files["index.html"]
	if n := strings.Count(page, `<svg class="chart" role="img"`); n != 3 {
		t.Errorf("%d charts, want one per contest (3)", n)
	}
	sections := strings.Split(page, `<section class="contest"`)[1:]
	if len(sections) != 3 {
		t.Fatalf("%d contest sections, want 3", len(sections))
	}
	for i, tc := range []struct {
		id    string
		bars  int
		texts []string
	}{
		{"mayor", 4, []string{"Mayor", "Rule: choose 1 of 4. 5 ballots answer this contest.",
			"Ana received the most votes: 3 of 5 ballots counted (60.0 %).", "Ana 3 60.0 %", "Dev 0 0.0 %",
			"Undervotes (selections left unused) 0", "Ballots counted 5 100.0 %"}},
		{"council", 6, []string{"Council", "Rule: up to 2 of 5, or blank. 3 ballots answer this contest.",
			"Eli leads with 2 votes, of 3 ballots counted (66.7 %). Each ballot could select up to 2 options",
			"Eli 2 66.7 %", "Fay 1 33.3 %", "Blank votes 1 33.3 %", "Undervotes (selections left unused) 1 –",
			"Ballots counted 3 100.0 %"}},
		{"referendum", 2, []string{"Referendum", "Rule: choose 1 of 2. 5 ballots answer this contest.",
			"Yes received the most votes: 3 of 5 ballots counted (60.0 %).", "No 2 40.0 %"}},
	} {
		s := sections[i]
		for _, id := range []string{`id="contest-` + tc.id + `"`, `id="outcome-` + tc.id + `"`,
			`aria-labelledby="chart-title-` + tc.id + `"`, `<title id="chart-title-` + tc.id + `">`} {
			if !strings.Contains(s, id) {
				t.Errorf("contest %s: section lacks %s", tc.id, id)
			}
		}
		if n := strings.Count(s, "<rect "); n != tc.bars {
			t.Errorf("contest %s: %d bars, want %d", tc.id, n, tc.bars)
		}
		got := text(s)
		for _, w := range tc.texts {
			if !strings.Contains(got, w) {
				t.Errorf("contest %s lacks %q; text:\n%s", tc.id, w, got)
			}
		}
	}
	if !strings.Contains(sections[1], `class="bar blank"`) || strings.Contains(sections[0], `class="bar blank"`) {
		t.Error("the blank votes' bar is not the council's alone")
	}
	if !strings.Contains(sections[1], "blank votes 1</title>") {
		t.Error("the council chart's title does not name the blank votes")
	}
	all := text(page)
	for _, w := range []string{"5 ballots counted, over 3 contests",
		"Contests Mayor ( mayor ): choose 1 of 4 Ana Ben Cleo Dev", "Council ( council ): up to 2 of 5, or blank Eli Fay Gus Hal Ida",
		"Ballot styles north : Mayor, Council, Referendum south : Mayor, Referendum"} {
		if !strings.Contains(all, w) {
			t.Errorf("index.html lacks %q; text:\n%s", w, all)
		}
	}
	for _, p := range a11y.Problems(strings.NewReader(page)) {
		t.Errorf("index.html: %s", p)
	}
}

// An index out of order is the verifier's finding (its report says so),
// not a file the board cannot read: the board is built and lists every
// entry, so that an observer sees the record and the verdict side by side.
func TestIndexOutOfOrderShown(t *testing.T) {
	f := newFixture("single")
	f.ballots[0], f.ballots[1] = f.ballots[1], f.ballots[0]
	_, files := build(t, f)
	var pages strings.Builder
	for name, text := range files {
		if strings.HasPrefix(name, "ballots") {
			pages.WriteString(text)
		}
	}
	for _, b := range f.ballots {
		if !strings.Contains(pages.String(), b.BallotHash) {
			t.Errorf("ballot %s is on no page of the board", b.BallotHash)
		}
	}
}

// TestBoothDigestShown: the front page shows the manifest's booth digest,
// so that observers can tell which booth the voters ran, and says nothing
// of a booth when the manifest names none.
func TestBoothDigestShown(t *testing.T) {
	digest := "sha256:" + strings.Repeat("ab", 32)
	for _, tc := range []struct {
		name, digest string
	}{{"with a booth", digest}, {"without", ""}} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture("threshold").passing()
			m, err := election.ParseManifest(f.manifest)
			check(err)
			m.BoothDigest = tc.digest
			f.manifest, err = m.Marshal()
			check(err)
			_, files := build(t, f)
			shown := strings.Contains(files["index.html"], `id="booth-digest"`)
			if shown != (tc.digest != "") || !strings.Contains(files["index.html"], tc.digest) {
				t.Errorf("index.html shows a booth digest: %v, want %q", shown, tc.digest)
			}
		})
	}
}
