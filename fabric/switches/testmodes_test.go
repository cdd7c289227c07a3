package switches

import (
	"cmp"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fabricTestArrays is what bash reads from fabric/test.sh: its switch
// modes (FABRIC_TEST_MODES, "VAR=value ...|packages or all") and the
// packages of its entries (FABRIC_TEST_PKGS, "package;run;skip;race").
func fabricTestArrays(t *testing.T) (modes, pkgs []string) {
	t.Helper()
	script := `set -euo pipefail; source "$1"; printf '%s\n' "${FABRIC_TEST_MODES[@]}"; echo --; printf '%s\n' "${FABRIC_TEST_PKGS[@]}"`
	out, err := exec.Command("bash", "-c", script, "bash", filepath.Join(root, "fabric/test.sh")).Output()
	if err != nil {
		t.Fatalf("reading fabric/test.sh: %v", err)
	}
	m, p, ok := strings.Cut(strings.TrimSpace(string(out)), "\n--\n")
	if !ok {
		t.Fatalf("reading fabric/test.sh: no separator in %q", out)
	}
	for _, entry := range strings.Split(p, "\n") {
		pkg, _, _ := strings.Cut(entry, ";")
		pkgs = append(pkgs, pkg)
	}
	return strings.Split(m, "\n"), pkgs
}

// testModeProblems checks fabric/test.sh's switch modes against table: the
// first runs every package ("all") with peer switches at their default;
// then one mode per switch that a peer reads, at its Check value if it has
// one, else its Fork value, on packages of FABRIC_TEST_PKGS. A switch that
// the chaincode reads has no mode: the peer's tests cannot see it.
func testModeProblems(modes, pkgs []string, table []Switch) []string {
	var problems []string
	peer := map[string]Switch{}
	for _, s := range table {
		if s.ReadBy == ReadByPeer {
			peer[s.Env] = s
		}
	}
	seen := map[string]bool{}
	for i, mode := range modes {
		envs, list, _ := strings.Cut(mode, "|")
		settings := strings.Fields(envs)
		if i == 0 {
			if list != "all" {
				problems = append(problems, fmt.Sprintf("the first mode %q does not run all packages", mode))
			}
			for _, set := range settings {
				env, v, _ := strings.Cut(set, "=")
				if s, ok := peer[env]; !ok || v != s.Default {
					problems = append(problems, fmt.Sprintf("the default mode sets %s: not a peer switch at its default", set))
				}
			}
			continue
		}
		if len(settings) != 1 {
			problems = append(problems, fmt.Sprintf("mode %q: want one switch", mode))
			continue
		}
		env, v, _ := strings.Cut(settings[0], "=")
		s, ok := peer[env]
		want := cmp.Or(s.Check, s.Fork)
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("mode %q: %s is no switch a peer reads", mode, env))
		case seen[env]:
			problems = append(problems, fmt.Sprintf("mode %q: a second mode of %s", mode, env))
		case v != want:
			problems = append(problems, fmt.Sprintf("mode %q: %s=%s, want %s=%s (its Check value, else its Fork value)", mode, env, v, env, want))
		}
		seen[env] = true
		if len(strings.Fields(list)) == 0 {
			problems = append(problems, fmt.Sprintf("mode %q: no package", mode))
		}
		for _, p := range strings.Fields(list) {
			if !slices.Contains(pkgs, p) {
				problems = append(problems, fmt.Sprintf("mode %q: %s is not a package of FABRIC_TEST_PKGS", mode, p))
			}
		}
	}
	for _, s := range table {
		if s.ReadBy == ReadByPeer && !seen[s.Env] {
			problems = append(problems, fmt.Sprintf("%s: no mode of fabric/test.sh runs it at %s", s.Env, cmp.Or(s.Check, s.Fork)))
		}
	}
	return problems
}

// fabric/test.sh runs every switch a peer reads in a mode of its own at
// the table's value: a switch added to the table, or a value changed, fails
// here until test.sh follows.
func TestFabricTestModes(t *testing.T) {
	modes, pkgs := fabricTestArrays(t)
	for _, p := range testModeProblems(modes, pkgs, Table) {
		t.Error("fabric/test.sh: " + p)
	}
}

// testModeProblems refuses each kind of mode that does not match the
// table.
func TestTestModeProblems(t *testing.T) {
	table := []Switch{
		{Env: "A", Default: "off", Fork: "on", ReadBy: ReadByPeer},
		{Env: "B", Default: "off", Fork: "on", Check: "check", ReadBy: ReadByPeer},
		{Env: "C", Default: "off", Fork: "on", ReadBy: ReadByChaincode},
	}
	pkgs := []string{"./a", "./b"}
	good := []string{"A=off|all", "A=on|./a", "B=check|./a ./b"}
	tests := []struct {
		name  string
		modes []string
		want  string // in the one problem; "" for none
	}{
		{"good", good, ""},
		{"default mode not all", []string{"A=off|./a", good[1], good[2]}, "does not run all packages"},
		{"default mode not the default", []string{"A=on|all", good[1], good[2]}, "A=on: not a peer switch at its default"},
		{"a switch without a mode", good[:2], "B: no mode of fabric/test.sh runs it at check"},
		{"the fork value where a check value is", []string{good[0], good[1], "B=on|./a"}, "B=on, want B=check"},
		{"a chaincode switch", append(slices.Clone(good), "C=on|./a"), "C is no switch a peer reads"},
		{"two modes of a switch", append(slices.Clone(good), "A=on|./b"), "a second mode of A"},
		{"two switches in a mode", []string{good[0], "A=on B=check|./a"}, "want one switch"},
		{"no package", []string{good[0], "A=on|", good[2]}, "no package"},
		{"an unknown package", []string{good[0], "A=on|./c", good[2]}, "./c is not a package of FABRIC_TEST_PKGS"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := testModeProblems(tc.modes, pkgs, table)
			switch {
			case tc.want == "" && len(got) > 0:
				t.Errorf("problems %q, want none", got)
			case tc.want != "" && !slices.ContainsFunc(got, func(p string) bool { return strings.Contains(p, tc.want) }):
				t.Errorf("problems %q, want one saying %q", got, tc.want)
			}
		})
	}
}
