package switches

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/fabvote/fabvote/internal/docsplice"
	"github.com/fabvote/fabvote/internal/gentest"
)

// root is the repository, from this package's directory.
const root = "../.."

// generated is every file derived from Table, by its path, as Table makes it.
func generated(t *testing.T) map[string][]byte {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(root, ForkDoc))
	if err != nil {
		t.Fatal(err)
	}
	spliced, err := docsplice.Splice(string(doc), BeginTable, EndTable, MarkdownTable())
	if err != nil {
		t.Fatal(err)
	}
	return map[string][]byte{ConfigsFile: ConfigsTSV(), PeerFile: PeerSwitchesTSV(), ForkDoc: []byte(spliced)}
}

// TestGenerated fails, naming the file and the command, where a generated
// file differs from what Table makes, so that none goes stale. With -update
// (gentest.Update) it writes them instead.
func TestGenerated(t *testing.T) {
	for name, want := range generated(t) {
		gentest.Check(t, filepath.Join(root, name), want, Regenerate)
	}
}

// The table is consistent with itself: every field set, values unique with
// the default first, one ablation configuration per switch.
func TestTable(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range Table {
		if s.Env == "" || s.Lever == "" || s.Package == "" || len(s.Patches) == 0 || s.Summary == "" || s.Invalid == "" || s.Logged == "" {
			t.Errorf("%s (%s): a field is empty: %+v", s.Env, s.Lever, s)
		}
		var names []string
		for _, v := range s.Values {
			names = append(names, v.Name)
		}
		if len(names) < 2 || names[0] != s.Default || !slices.Contains(names, s.Fork) || s.Fork == s.Default {
			t.Errorf("%s: values %q, default %q, fork %q", s.Env, names, s.Default, s.Fork)
		}
		for _, k := range []string{s.Env, s.Lever, s.Config} {
			if seen[k] {
				t.Errorf("%s: %q is used twice", s.Env, k)
			}
			seen[k] = true
		}
	}
}

// The configurations are the ones bench/lib.sh has always run, in the
// report's order, and each ablation differs from fork-off in its switch alone.
func TestConfigs(t *testing.T) {
	var names []string
	cs := Configs()
	for _, c := range cs {
		names = append(names, c.Name)
	}
	want := []string{"fork-off", "o1", "o2", "o3", "o4", "o5", "o6", "o7", "all", "all-o4", "fork"}
	if !slices.Equal(names, want) {
		t.Fatalf("configurations %q, want %q", names, want)
	}
	off := cs[0].Env
	for i, s := range Table {
		env := cs[i+1].Env
		var diff []Setting
		for _, e := range env {
			if !slices.Contains(off, e) {
				diff = append(diff, e)
			}
		}
		if len(diff) != 1 || diff[0] != (Setting{s.Env, s.Fork}) {
			t.Errorf("%s differs from fork-off by %v", s.Config, diff)
		}
	}
}
