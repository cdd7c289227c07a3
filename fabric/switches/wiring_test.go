package switches

import (
	"bytes"
	"cmp"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// builtPackages is what `fabric/build.sh packages` says it copies into the
// patched tree: the extension packages' sources and the in-tree packages'
// names.
func builtPackages(t *testing.T) (ext, intree []string) {
	t.Helper()
	out, err := exec.Command("bash", filepath.Join(root, "fabric/build.sh"), "packages").Output()
	if err != nil {
		t.Fatalf("fabric/build.sh packages: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		switch f := strings.Fields(line); {
		case len(f) == 3 && f[0] == "ext":
			ext = append(ext, f[1])
		case len(f) == 2 && f[0] == "intree":
			intree = append(intree, f[1])
		default:
			t.Fatalf("fabric/build.sh packages: unexpected line %q", line)
		}
	}
	return ext, intree
}

// Every switch's package is one fabric/build.sh copies into the patched
// tree: an extension package or one of fabric/intree, and it has Go files.
func TestEveryPackageIsBuilt(t *testing.T) {
	ext, intree := builtPackages(t)
	if len(ext) == 0 || len(intree) == 0 {
		t.Fatalf("fabric/build.sh packages: ext %q, intree %q", ext, intree)
	}
	for _, s := range Table {
		name, in := strings.CutPrefix(s.Package, "fabric/intree/")
		if !slices.Contains(ext, s.Package) && !(in && slices.Contains(intree, name)) {
			t.Errorf("%s: package %s is neither an extension package %q nor an in-tree one %q of fabric/build.sh", s.Env, s.Package, ext, intree)
		}
		if files, _ := filepath.Glob(filepath.Join(root, s.Package, "*.go")); len(files) == 0 {
			t.Errorf("%s: package %s has no Go files", s.Env, s.Package)
		}
	}
}

// Every patch the table names is in fabric/patches.
func TestEveryPatchExists(t *testing.T) {
	for _, s := range Table {
		for _, p := range s.Patches {
			if _, err := os.Stat(filepath.Join(root, "fabric/patches", p+".patch")); err != nil {
				t.Errorf("%s: %v", s.Env, err)
			}
		}
	}
}

// bench/lib.sh's bench_config_env prints, for every configuration (with
// -nobatch, tunings and BENCH_PROOF_BATCH), exactly the lines it printed
// when it wrote each configuration's switches itself (the golden file was
// taken from that lib.sh and is not regenerated).
func TestBenchConfigEnv(t *testing.T) {
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "testdata/dump_config_env.sh", abs)
	// Only what the script needs: a benchmark variable exported by the
	// caller (BENCH_PROOF_BATCH, BENCH_BASE_PORT, …) would change the lines.
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("dump_config_env.sh: %v\n%s", err, out)
	}
	want, err := os.ReadFile("testdata/bench_config_env.golden")
	if err != nil {
		t.Fatal(err)
	}
	got, wantLines := strings.Split(string(out), "\n"), strings.Split(string(want), "\n")
	for i := range max(len(got), len(wantLines)) {
		g, w := line(got, i), line(wantLines, i)
		if g != w {
			t.Fatalf("bench_config_env output line %d: %q, want %q", i+1, g, w)
		}
	}
}

func line(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "<none>"
}

// Every log text of a peer switch is what a patch of the series logs
// (O-I's line is written by O-II's patch): `Infof("fabvote: <text before
// the value>`, the value quoted (or true/false for a flag); a switch the
// peer does not read has none.
func TestPeerLogTexts(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(root, "fabric/patches/*.patch"))
	var patches []byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		patches = append(patches, b...)
	}
	for _, s := range Table {
		for _, v := range s.Values {
			if s.ReadBy != ReadByPeer {
				if v.Logs != "" {
					t.Errorf("%s=%s: log text %q for a switch the peer does not read", s.Env, v.Name, v.Logs)
				}
				continue
			}
			i := strings.LastIndex(v.Logs, " ")
			stem, shown := v.Logs[:i+1], v.Logs[i+1:]
			if i < 0 || strings.ContainsAny(v.Logs, "|\t") || !bytes.Contains(patches, []byte(`Infof("fabvote: `+stem)) {
				t.Errorf("%s=%s: log text %q is not one that a patch logs", s.Env, v.Name, v.Logs)
			}
			if shown != strconv.Quote(v.Name) && shown != "true" && shown != "false" {
				t.Errorf("%s=%s: log text %q does not show the value", s.Env, v.Name, v.Logs)
			}
		}
	}
}

// The peer configurations set every switch a peer reads, and nothing else:
// the fork's (or checking) value in one, the default in the other.
func TestPeerConfigs(t *testing.T) {
	cs := PeerConfigs()
	if len(cs) != 2 || cs[0].Name != PeerFork || cs[1].Name != PeerStock {
		t.Fatalf("peer configurations %+v", cs)
	}
	var peer []Switch
	for _, s := range Table {
		if s.ReadBy == ReadByPeer {
			peer = append(peer, s)
		} else if s.ReadBy != ReadByChaincode {
			t.Errorf("%s: ReadBy %q", s.Env, s.ReadBy)
		}
	}
	for _, c := range cs {
		if len(c.Env) != len(peer) || len(c.Logs) != len(peer) {
			t.Fatalf("%s: %d settings and %d log texts for %d peer switches", c.Name, len(c.Env), len(c.Logs), len(peer))
		}
		for i, s := range peer {
			want := s.Default
			if c.Name == PeerFork {
				want = cmp.Or(s.Check, s.Fork)
			}
			if c.Env[i] != (Setting{s.Env, want}) || c.Logs[i] == "" {
				t.Errorf("%s: %v (log %q), want %s=%s", c.Name, c.Env[i], c.Logs[i], s.Env, want)
			}
		}
	}
}

// scripts/e2e.sh's peer_config reads back, for each peer configuration,
// the settings and the log texts that PeerConfigs makes: the script and
// the generated file agree on its columns.
func TestE2EReadsPeerSwitches(t *testing.T) {
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	// The function alone, taken out of the script, which otherwise starts a network.
	script := `set -eu; eval "$(sed -n '/^peer_config() {/,/^}/p' "$ROOT/scripts/e2e.sh")"; peer_config "$1" 2; peer_config "$1" 3`
	for _, c := range PeerConfigs() {
		cmd := exec.Command("bash", "-c", script, "bash", c.Name)
		cmd.Env = append(os.Environ(), "ROOT="+abs)
		out, err := cmd.CombinedOutput()
		want := envText(c.Env) + "\n" + strings.Join(c.Logs, "|") + "\n"
		if err != nil || string(out) != want {
			t.Errorf("%s: e2e.sh reads %q, %v; want %q", c.Name, out, err, want)
		}
	}
}
