package audit_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/election/electiontest"
	"github.com/fabvote/fabvote/internal/audit"
)

// TestKeyOrigin: V33 runs on every sound manifest; a dealt key and a
// distributed key whose ceremony verifies pass it, and the report says who
// made the key; a distributed key whose modulus proof does not verify
// fails it with KEY_ORIGIN (code MANIFEST, subject manifest), and the
// ballots are checked all the same.
func TestKeyOrigin(t *testing.T) {
	fx := electiontest.Load()
	dist, _, _ := fx.DistributedManifest("ko-dist")
	bad, _, _ := fx.DistributedManifest("ko-bad")
	bad.KeyCeremony.ModulusProof[len(bad.KeyCeremony.ModulusProof)-1] ^= 1
	none := func(func(election.BallotEntry) error) error { return nil }
	cases := []struct {
		name     string
		m        *election.Manifest
		ok       bool
		reported string
	}{
		{"dealer", fx.Manifest("ko-dealt"), true, "key made by:     a dealer (one machine held the whole key"},
		{"distributed", dist, true, "key made by:     the trustees' ceremony, no dealer (ceremony "},
		{"distributed, bad proof", bad, false, "key made by:     the trustees' ceremony, no dealer (ceremony "},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, err := tc.m.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			rep := audit.Run(&audit.Ledger{Manifest: b, Ballots: none}, audit.Options{})
			var outcome *audit.CheckOutcome
			for _, c := range rep.ChecksRun() {
				if c.ID == "V33" {
					outcome = &c
				}
			}
			if outcome == nil || outcome.OK != tc.ok || rep.Tally == nil {
				t.Fatalf("V33 %+v, ballots checked %v; want ok=%v and the ballots checked", outcome, rep.Tally != nil, tc.ok)
			}
			if !tc.ok {
				// No result is published: RESULT_MISSING follows.
				f := rep.Failures[0]
				if len(rep.Failures) != 2 || f.Kind != audit.KindKeyOrigin || f.Code != election.CodeManifest || f.Subject != "manifest" {
					t.Fatalf("failures %+v, want KEY_ORIGIN MANIFEST on the manifest, then RESULT_MISSING", rep.Failures)
				}
			}
			var w bytes.Buffer
			rep.Write(&w)
			if !strings.Contains(w.String(), tc.reported) {
				t.Errorf("the report does not say %q:\n%s", tc.reported, w.String())
			}
		})
	}
}
