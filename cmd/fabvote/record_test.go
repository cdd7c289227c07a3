package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/internal/audit"
	"github.com/fabvote/fabvote/internal/cli/clitest"
)

const recordFixtures = "../../internal/record/testdata/records"

// TestVerifyRecordExit: exit 0 for a passing record, 1 for a failing one,
// 2 for no record at all or a bad flag; the human report ends in its verdict.
func TestVerifyRecordExit(t *testing.T) {
	cases := []struct {
		name string
		args []string
		code int
		out  string // the stdout's last line, or stderr's text for exit 2
	}{
		{"good", []string{"--record", recordFixtures + "/good"}, 0, "RESULT: PASS"},
		{"late ballot", []string{"--record", recordFixtures + "/late-ballot"}, 0, "RESULT: PASS (1 ballot(s) committed after the result, not counted)"},
		{"count changed", []string{"--record", recordFixtures + "/result-count"}, 1, "RESULT: FAIL"},
		{"genesis hash mismatch", []string{"--record", recordFixtures + "/good", "--genesis-hash", strings.Repeat("00", 32)}, 1, "RESULT: FAIL"},
		{"no record", []string{"--record", t.TempDir()}, 2, "not a readable election record"},
		{"bad genesis hash", []string{"--record", recordFixtures + "/good", "--genesis-hash", "xyz"}, 2, "is not 64 hex digits"},
		{"record with election", []string{"--record", recordFixtures + "/good", "--election", "e"}, 2, "no --election"},
		{"published manifest", []string{"--record", recordFixtures + "/good", "--manifest", recordFixtures + "/good/manifest.json"}, 0, "RESULT: PASS"},
		{"another election's manifest", []string{"--record", recordFixtures + "/good", "--manifest", recordFixtures + "/late-ballot/manifest.json"}, 1, "RESULT: FAIL"},
		// Compared byte for byte, as the Python verifier does: a file that is
		// no manifest is not the record's (a report, exit 1); an unreadable one is a usage error.
		{"a manifest file that is no manifest", []string{"--record", recordFixtures + "/good", "--manifest", recordFixtures + "/good/record.json"}, 1, "RESULT: FAIL"},
		{"an unreadable manifest file", []string{"--record", recordFixtures + "/good", "--manifest", recordFixtures + "/good/none.json"}, 2, "--manifest"},
		// An unset shell variable: an empty anchor is never taken for none.
		{"empty genesis hash", []string{"--record", recordFixtures + "/good", "--genesis-hash", ""}, 2, "--genesis-hash was given an empty value"},
		{"empty manifest", []string{"--record", recordFixtures + "/good", "--manifest", ""}, 2, "--manifest was given an empty value"},
		{"empty record", []string{"--record", ""}, 2, "--record was given an empty value"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var code int
			var stderr string
			out := clitest.Capture(t, &os.Stdout, func() { code, stderr = fv(t, append([]string{"verify"}, tc.args...)...) })
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr %s; stdout %s", code, tc.code, stderr, out)
			}
			got := strings.TrimSpace(out)
			if i := strings.LastIndex(got, "\n"); i >= 0 {
				got = got[i+1:]
			}
			if tc.code == 2 {
				got = stderr
			}
			if !strings.Contains(got, tc.out) {
				t.Fatalf("got %q, want %q", got, tc.out)
			}
		})
	}
}

// TestVerifyRecordAnchors: both reports say which anchors were checked;
// with none, the human one says that only the record's consistency was.
func TestVerifyRecordAnchors(t *testing.T) {
	good := recordFixtures + "/good"
	manifest, err := os.ReadFile(good + "/manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	var genesis string
	out := clitest.Capture(t, &os.Stdout, func() { fv(t, "verify", "--json", "--record", good) })
	var rep struct {
		GenesisHash string
		Anchors     map[string]*string
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.GenesisHash) != 64 {
		t.Fatalf("report %s: %v", out, err)
	}
	genesis = rep.GenesisHash
	if len(rep.Anchors) != 2 || rep.Anchors["genesisHash"] != nil || rep.Anchors["manifestSHA256"] != nil {
		t.Errorf("without anchors: %s, want both null", out)
	}
	human := clitest.Capture(t, &os.Stdout, func() { fv(t, "verify", "--record", good) })
	if !strings.Contains(human, "anchors:         none given: only the record's internal consistency was checked") {
		t.Errorf("without anchors the human report does not say so:\n%s", human)
	}
	anchored := []string{"--record", good, "--genesis-hash", genesis, "--manifest", good + "/manifest.json"}
	out = clitest.Capture(t, &os.Stdout, func() { fv(t, append([]string{"verify", "--json"}, anchored...)...) })
	rep.Anchors = nil
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(manifest)
	if g, m := rep.Anchors["genesisHash"], rep.Anchors["manifestSHA256"]; g == nil || *g != genesis || m == nil || *m != hex.EncodeToString(sum[:]) {
		t.Errorf("with both anchors: %s", out)
	}
	human = clitest.Capture(t, &os.Stdout, func() { fv(t, append([]string{"verify"}, anchored...)...) })
	for _, w := range []string{"genesis hash " + genesis + " (--genesis-hash): checked", "SHA-256 " + hex.EncodeToString(sum[:]) + " (--manifest): checked"} {
		if !strings.Contains(human, w) || strings.Contains(human, "none given") {
			t.Errorf("with both anchors the human report lacks %q:\n%s", w, human)
		}
	}
}

// TestVerifyRecordJSON: --json prints the section-7 report, with its
// counts, and the same exit status.
func TestVerifyRecordJSON(t *testing.T) {
	for _, tc := range []struct {
		dir   string
		code  int
		late  int
		kinds string
	}{{"late-ballot", 0, 1, ""}, {"result-foreign-partial", 1, 0, "RESULT"}} {
		var code int
		out := clitest.Capture(t, &os.Stdout, func() { code, _ = fv(t, "verify", "--json", "--record", recordFixtures+"/"+tc.dir) })
		if code != tc.code {
			t.Fatalf("%s: exit %d, want %d", tc.dir, code, tc.code)
		}
		var rep audit.JSONReport
		if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.OK == nil || rep.Ballots == nil {
			t.Fatalf("%s: the JSON report does not decode: %v\n%s", tc.dir, err, out)
		}
		var kinds []string
		for _, f := range rep.Failures {
			kinds = append(kinds, f.Kind)
		}
		if rep.Format != audit.ReportFormat || rep.Source != audit.SourceRecord || len(rep.GenesisHash) != 64 || len(rep.Steps) != 7 ||
			*rep.OK != (tc.code == 0) || rep.Ballots.Late != uint64(tc.late) || len(rep.LateBallots) != tc.late || strings.Join(kinds, ",") != tc.kinds {
			t.Fatalf("%s: report %+v", tc.dir, rep)
		}
	}
}

// TestRecordSite: the bulletin board of a record, with this command's own
// verification or another verifier's report; a failing record still gets
// its board (showing the failure), and every refusal leaves no site.
func TestRecordSite(t *testing.T) {
	good := recordFixtures + "/good"
	r := writeSiteReports(t, good)
	cases := []siteCase{
		{"pass", []string{"--record", good}, 0, "Verification passed", "verification PASS"},
		{"fail shown", []string{"--record", recordFixtures + "/result-count"}, 0, "Verification failed", "verification FAIL"},
		{"genesis mismatch shown", []string{"--record", good, "--genesis-hash", strings.Repeat("00", 32)}, 0, "Verification failed", "verification FAIL"},
		{"report of another election", []string{"--record", good, "--report", r.other}, 1, `report is of election "another"`, ""},
		{"report not JSON", []string{"--record", good, "--report", r.notJSON}, 1, "is not a JSON verification report", ""},
		{"report of other files", []string{"--record", good, "--report", r.otherFiles}, 0, "A report given for this site was not shown", "is not this record's"},
		{"report with OK in capitals", []string{"--record", good, "--report", r.capitals}, 1, "is not a JSON verification report", ""},
		{"another verifier's report", []string{"--record", good, "--report", r.good}, 0, "were also verified by the report in good.json", "verification PASS; the report in good.json: PASS"},
		{"another verifier's failing report", []string{"--record", good, "--report", r.failing}, 0, "Verification failed", "verification PASS; the report in failing.json: FAIL"},
		{"report without a digest", []string{"--record", good, "--report", r.noDigest}, 0, "A report given for this site was not shown", "is not this record's"},
		{"published manifest", []string{"--record", good, "--manifest", good + "/manifest.json"}, 0, "Verification passed", "verification PASS"},
		{"another manifest", []string{"--record", good, "--manifest", recordFixtures + "/late-ballot/manifest.json"}, 0, "Verification failed", "verification FAIL"},
		{"no record", []string{"--record", t.TempDir()}, 2, "not a readable election record", ""},
		{"no out", []string{"--record", good, "--out", ""}, 2, "--out", ""},
		{"report and a wrong genesis hash", []string{"--record", good, "--report", r.good, "--genesis-hash", strings.Repeat("00", 32)}, 0, "Verification failed", "verification FAIL"},
		{"empty genesis hash", []string{"--record", good, "--genesis-hash", ""}, 2, "--genesis-hash was given an empty value", ""},
		{"empty manifest", []string{"--record", good, "--manifest", ""}, 2, "--manifest was given an empty value", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { checkRecordSite(t, tc) })
	}
}

// siteCase is one `record site` run of TestRecordSite.
type siteCase struct {
	name   string
	args   []string // --out is added
	code   int
	want   string // in index.html for exit 0, in stderr otherwise
	stdout string
}

// checkRecordSite runs tc: a site that says tc.want, or a refusal that
// says it and leaves no site.
func checkRecordSite(t *testing.T, tc siteCase) {
	site := filepath.Join(t.TempDir(), "site")
	var code int
	var stderr string
	out := clitest.Capture(t, &os.Stdout, func() {
		code, stderr = fv(t, append([]string{"record", "site", "--out", site}, tc.args...)...)
	})
	if code != tc.code {
		t.Fatalf("exit %d, want %d; stderr %s; stdout %s", code, tc.code, stderr, out)
	}
	if tc.code != 0 {
		if !strings.Contains(stderr, tc.want) {
			t.Fatalf("stderr %q, want %q", stderr, tc.want)
		}
		if _, err := os.Stat(site); !os.IsNotExist(err) {
			t.Fatalf("a refused site left %s behind (%v)", site, err)
		}
		return
	}
	index, err := os.ReadFile(filepath.Join(site, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(index), tc.want) || !strings.Contains(out, tc.stdout) {
		t.Fatalf("index.html lacks %q or stdout %q lacks %q", tc.want, out, tc.stdout)
	}
}

// TestRecordSiteForgedReport: an honest report cannot dress up a record
// whose manifest renames a candidate: the site verifies the record itself,
// shows it failing, and does not show the report of other files.
func TestRecordSiteForgedReport(t *testing.T) {
	good := recordFixtures + "/good"
	r := writeSiteReports(t, good)
	forged := filepath.Join(t.TempDir(), "forged")
	if err := os.CopyFS(forged, os.DirFS(good)); err != nil {
		t.Fatal(err)
	}
	m := filepath.Join(forged, "manifest.json")
	b, err := os.ReadFile(m)
	if err != nil || !strings.Contains(string(b), `"Alice"`) {
		t.Fatalf("manifest: %v", err)
	}
	if err := os.WriteFile(m, []byte(strings.Replace(string(b), `"Alice"`, `"Mallory"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	checkRecordSite(t, siteCase{"Mallory", []string{"--record", forged, "--report", r.good}, 0, "Verification failed", "is not this record's"})
}

// siteReports are JSON reports of TestRecordSite's good record: another
// verifier's, and reports that must not be taken for it.
type siteReports struct {
	good, other, otherFiles, failing, noDigest, capitals, notJSON string
}

// writeSiteReports writes the reports of the record good.
func writeSiteReports(t *testing.T, good string) siteReports {
	goodJSON := clitest.Capture(t, &os.Stdout, func() { fv(t, "verify", "--json", "--record", good) })
	var genesis struct{ GenesisHash, ElectionID, RecordDigest string }
	if err := json.Unmarshal([]byte(goodJSON), &genesis); err != nil || len(genesis.GenesisHash) != 64 || len(genesis.RecordDigest) != 64 {
		t.Fatalf("verify --json: %v\n%s", err, goodJSON)
	}
	reports := t.TempDir()
	r := siteReports{good: filepath.Join(reports, "good.json"), other: filepath.Join(reports, "election.json"),
		otherFiles: filepath.Join(reports, "files.json"), failing: filepath.Join(reports, "failing.json"), noDigest: filepath.Join(reports, "nodigest.json"), capitals: filepath.Join(reports, "caps.json"),
		notJSON: filepath.Join(reports, "report.txt")}
	for path, text := range map[string]string{
		r.good:       goodJSON,
		r.other:      strings.Replace(goodJSON, `"`+genesis.ElectionID+`"`, `"another"`, 1),
		r.otherFiles: strings.Replace(goodJSON, genesis.RecordDigest, strings.Repeat("ab", 32), 1),
		r.failing:    strings.ReplaceAll(goodJSON, `"ok": true`, `"ok": false`),
		r.noDigest:   strings.Replace(goodJSON, `"recordDigest"`, `"recordDigestX"`, 1),
		r.capitals:   strings.Replace(goodJSON, `"ok": true`, `"OK": true`, 1),
		r.notJSON:    "RESULT: PASS\n",
	} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// TestReceiptCheckRecord: a voter checks a receipt against a record with
// no network file and no identity.
func TestReceiptCheckRecord(t *testing.T) {
	good := recordFixtures + "/good"
	b, err := os.ReadFile(good + "/ballots.json")
	if err != nil {
		t.Fatal(err)
	}
	var index []struct{ Pseudonym, BallotHash, TxID string }
	if err := json.Unmarshal(b, &index); err != nil || len(index) == 0 {
		t.Fatalf("ballots.json: %v", err)
	}
	var rec struct{ ElectionID string }
	rb, _ := os.ReadFile(good + "/record.json")
	if err := json.Unmarshal(rb, &rec); err != nil {
		t.Fatal(err)
	}
	write := func(pseudonym, hash string) string {
		p := filepath.Join(t.TempDir(), "receipt.json")
		j, _ := json.Marshal(map[string]string{"electionID": rec.ElectionID, "pseudonym": pseudonym, "ballotHash": hash, "txID": index[0].TxID})
		if err := os.WriteFile(p, j, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	mine := write(index[0].Pseudonym, index[0].BallotHash)
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"mine", []string{"--receipt", mine, "--record", good, "--network", "/nonexistent/network.json"}, 0, "is in the verified record"},
		{"another hash", []string{"--receipt", write(index[0].Pseudonym, strings.Repeat("00", 32)), "--record", good}, 1, "not yours"},
		{"empty record", []string{"--receipt", mine, "--record", ""}, 2, "--record was given an empty value"},
		{"anchor without record", []string{"--receipt", mine, "--genesis-hash", strings.Repeat("00", 32)}, 2, "go with --record"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var code int
			var stderr string
			out := clitest.Capture(t, &os.Stdout, func() { code, stderr = fv(t, append([]string{"receipt", "check"}, tc.args...)...) })
			if code != tc.code || !strings.Contains(out+stderr, tc.want) {
				t.Fatalf("exit %d (want %d); stdout %s; stderr %s; want %q", code, tc.code, out, stderr, tc.want)
			}
		})
	}
}
