package main

import (
	"strings"
	"testing"
)

// TestSingleDashCommandLines runs command lines written for Go's flag
// package: they parse as before.
func TestSingleDashCommandLines(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"ea", "roll", "-voters", "0", "-out", "x"}, 2, "--voters 0: want at least 1"},
		{[]string{"ea", "roll", "-voters=0", "-out=x"}, 2, "--voters 0: want at least 1"},
		{[]string{"version", "-patches=maybe"}, 2, `invalid argument "maybe" for "--patches"`},
		{[]string{"election", "create", "-help"}, 0, "usage: fabvote election create "},
		{[]string{"cast", "-ballot", "a", "-ballots", "b"}, 2, "exactly one of --ballot or --ballots"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, stderr := fv(t, tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, want %d; stderr %q does not say %q", code, tc.code, stderr, tc.want)
			}
		})
	}
}

// TestCompletion checks that `fabvote completion SHELL` prints cobra's
// script for SHELL on standard output, and refuses other shells.
func TestCompletion(t *testing.T) {
	for shell, want := range map[string]string{"bash": "# bash completion V2 for fabvote", "zsh": "#compdef fabvote", "fish": "# fish completion for fabvote"} {
		var code int
		out := captureStdout(t, func() { code, _ = fv(t, "completion", shell) })
		if code != 0 || !strings.HasPrefix(out, want) {
			t.Errorf("completion %s: exit %d, output starts %q, want %q", shell, code, out[:min(len(out), 40)], want)
		}
	}
	for _, args := range [][]string{{"completion"}, {"completion", "tcsh"}, {"completion", "bash", "zsh"}} {
		if code, stderr := fv(t, args...); code != 2 || !strings.Contains(stderr, "want one shell: bash, zsh, fish") {
			t.Errorf("%q: exit %d, stderr %q", args, code, stderr)
		}
	}
}
