package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/internal/easigner"
)

// TestIssuingRefusesAnotherPseudonymKey: every command that issues tokens
// (`ea serve`, `register --offline`, `ballot --bulk`) refuses a pseudonym
// key other than the one the manifest commits to — another election's, or
// one made again after the original was lost — names the problem, and
// leaves no file behind: no state, no voters file, no ballots.
func TestIssuingRefusesAnotherPseudonymKey(t *testing.T) {
	e := newServeEnv(t, 2, 10)
	if _, err := easigner.GeneratePseudonymKey(e.p("other.key")); err != nil {
		t.Fatal(err)
	}
	offline := []string{"register", "--offline", "--manifest", e.p("manifest.json"), "--voters", "2", "--ea-key", e.p("ea.key"), "--out", e.p("voters.jsonl")}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"ea serve --init-state", e.serveArgs("--init-state")},
		{"register --offline", offline},
		{"ballot --bulk", []string{"ballot", "--bulk", "--manifest", e.p("manifest.json"), "--voters", "2", "--ea-key", e.p("ea.key"),
			"--choices", "random", "--quiet", "--out", e.p("ballots.bin")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := dirNames(t, e.dir)
			code, errs := fv(t, append(slices.Clone(tc.args), "--pseudonym-key", e.p("other.key"))...)
			if code != 1 || !strings.Contains(errs, "pseudonym key does not match the manifest's pseudonymKeyCommitment") {
				t.Fatalf("another pseudonym key: exit %d\n%s", code, errs)
			}
			if after := dirNames(t, e.dir); !slices.Equal(before, after) {
				t.Fatalf("the refused command left files: before %v, after %v", before, after)
			}
		})
	}
	// The election's own key (pseudonym.key next to --ea-key) is accepted.
	if code, errs := fv(t, offline...); code != 0 {
		t.Fatalf("register --offline with the election's pseudonym key: %s", errs)
	}
}
