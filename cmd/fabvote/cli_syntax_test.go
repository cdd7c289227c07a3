package main

import (
	"io"
	"os"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/internal/cli/clitest"
)

// TestSingleDashCommandLines runs command lines written for Go's flag
// package: they parse as before.
func TestSingleDashCommandLines(t *testing.T) {
	clitest.CheckExit(t, newRootCommand, []clitest.Case{
		{Args: []string{"ea", "roll", "-voters", "0", "-out", "x"}, Code: 2, Want: "--voters 0: want at least 1"},
		{Args: []string{"ea", "roll", "-voters=0", "-out=x"}, Code: 2, Want: "--voters 0: want at least 1"},
		{Args: []string{"version", "-patches=maybe"}, Code: 2, Want: `invalid argument "maybe" for "--patches"`},
		{Args: []string{"election", "create", "-help"}, Code: 0, Want: "usage: fabvote election create "},
		{Args: []string{"cast", "-ballot", "a", "-ballots", "b"}, Code: 2, Want: "exactly one of --ballot or --ballots"},
	})
}

// TestCompletion checks that `fabvote completion SHELL` prints cobra's
// script for SHELL on standard output, and refuses other shells.
func TestCompletion(t *testing.T) {
	for shell, want := range map[string]string{"bash": "# bash completion V2 for fabvote", "zsh": "#compdef fabvote", "fish": "# fish completion for fabvote"} {
		var code int
		out := clitest.Capture(t, &os.Stdout, func() { code, _ = fv(t, "completion", shell) })
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

// TestDeprecatedFlagNames: each old flag name still sets the flag of its
// new name and prints a deprecation notice; giving both names is a usage
// error; the help lists the new name only.
func TestDeprecatedFlagNames(t *testing.T) {
	tests := []struct {
		command        string
		oldName, value string
		newName        string
	}{
		{"election create", "id", "e1", "election"},
		{"register", "key", "voter.key", "voter-key"},
		{"ea tls-cert", "cert", "tls.crt", "tls-cert"},
		{"ea tls-cert", "key", "tls.key", "tls-key"},
		{"ballot", "workers", "3", "concurrency"},
		{"cast", "limit", "3", "count"},
	}
	for _, tc := range tests {
		t.Run(tc.command+" --"+tc.oldName, func(t *testing.T) {
			words := strings.Fields(tc.command)
			cmd, _, err := newRootCommand(io.Discard).Find(words)
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.ParseFlags([]string{"--" + tc.oldName, tc.value}); err != nil {
				t.Fatalf("--%s: %v", tc.oldName, err)
			}
			if got := cmd.Flags().Lookup(tc.newName).Value.String(); got != tc.value {
				t.Fatalf("--%s %s set --%s to %q", tc.oldName, tc.value, tc.newName, got)
			}
			_, stderr := fv(t, append(words, "--"+tc.oldName, tc.value)...)
			if want := "Flag --" + tc.oldName + " has been deprecated, use --" + tc.newName + " instead"; !strings.Contains(stderr, want) {
				t.Errorf("stderr %q does not say %q", stderr, want)
			}
			code, stderr := fv(t, append(words, "--"+tc.newName, tc.value, "--"+tc.oldName, tc.value)...)
			if code != 2 || !strings.Contains(stderr, "not both") {
				t.Errorf("both names: exit %d, stderr %q; want 2 and not both", code, stderr)
			}
			_, help := fv(t, append(words, "--help")...)
			if !strings.Contains(help, "--"+tc.newName+" ") || strings.Contains(help, "--"+tc.oldName+" ") {
				t.Errorf("help does not list --%s alone:\n%s", tc.newName, help)
			}
		})
	}
}
