package audit

import (
	"strings"
	"testing"
)

// reportText is Report.JSON of a passing and of a failing report.
func reportText(t *testing.T, failing bool) string {
	t.Helper()
	r := &Report{ElectionID: "e", Source: SourceRecord, Tally: &Tally{Entries: 1, Valid: 1}, Counted: 1}
	if failing {
		r.Failures = []Failure{{Kind: KindManifest, Subject: "manifest", Err: "bad"}}
	}
	b, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestParseJSONReport reads both verdicts back, and refuses each kind of
// text that is no report, naming what is wrong.
func TestParseJSONReport(t *testing.T) {
	pass, fail := reportText(t, false), reportText(t, true)
	for _, tc := range []struct {
		name, text string
		ok         bool
	}{{"passing", pass, true}, {"failing", fail, false}, {"unknown field", strings.Replace(pass, "{", `{"extra": 1,`, 1), true}} {
		r, err := ParseJSONReport([]byte(tc.text))
		if err != nil || r.OK == nil || *r.OK != tc.ok || r.ElectionID != "e" || r.Source != SourceRecord {
			t.Errorf("%s: %+v, %v", tc.name, r, err)
		}
	}
	bad := []struct{ name, text, want string }{
		{"not JSON", "RESULT: PASS\n", "malformed JSON"},
		{"not an object", "[]", "malformed JSON"},
		{"trailing data", pass + "{}", "trailing data"},
		{"ok in capitals", strings.Replace(pass, `"ok": true`, `"OK": true`, 1), `field "OK": the format spells it "ok"`},
		{"ok of a step in capitals", strings.Replace(fail, `"step": "`, `"OK": true, "step": "`, 1), `steps: element 0: field "OK": the format spells it "ok"`},
		{"election id in other case", strings.Replace(pass, `"electionID"`, `"electionId"`, 1), `field "electionId"`},
		{"another format", strings.Replace(pass, ReportFormat, "other-report", 1), `format "other-report"`},
		{"another version", strings.Replace(pass, `"version": 1`, `"version": 2`, 1), "version 2"},
		{"no ok", strings.Replace(pass, `"ok": true,`, ``, 1), `no "ok" field`},
		{"ok with a failure", strings.Replace(fail, `"ok": false`, `"ok": true`, 1), "says ok but lists"},
		{"not ok without a failure", strings.Replace(pass, `"ok": true`, `"ok": false`, 1), "says not ok but lists no"},
	}
	for _, tc := range bad {
		if _, err := ParseJSONReport([]byte(tc.text)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

// FuzzParseJSONReport: any input is read or refused, without panic, and
// a report read says a verdict.
func FuzzParseJSONReport(f *testing.F) {
	f.Add([]byte(`{"format":"fabvote-verify-report","version":1,"ok":true,"steps":[]}`))
	f.Add([]byte(`{"OK":true}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if r, err := ParseJSONReport(b); err == nil && r.OK == nil {
			t.Fatalf("a report without a verdict was read: %q", b)
		}
	})
}
