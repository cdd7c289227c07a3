package fabric

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fakeGo writes a go command that reports version v for `go env GOVERSION`
// and fails for anything else.
func fakeGo(t *testing.T, v string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "go")
	script := "#!/bin/sh\n[ \"$1 $2\" = \"env GOVERSION\" ] && { echo " + v + "; exit 0; }\necho fake go: \"$@\" >&2\nexit 3\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// build.sh refuses a Go toolchain below the floor in floors/floors.txt
// before doing anything, and lets one at the floor through.
func TestBuildScriptGoFloor(t *testing.T) {
	run := func(v string) string {
		cmd := exec.Command("bash", "build.sh", "verify")
		cmd.Env = append(os.Environ(), "GO="+fakeGo(t, v), "BUILD="+t.TempDir(), "BIN="+t.TempDir())
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Fatalf("build.sh verify with fake %s succeeded", v)
		}
		return string(out)
	}
	for _, old := range []string{"go1.26.5", "go1.25.9", "go1.20"} {
		if out := run(old); !strings.Contains(out, "older than the floor 1.26.6") {
			t.Errorf("%s: %s", old, out)
		}
	}
	for _, ok := range []string{"go1.26.6", "go1.27.0"} {
		if out := run(ok); strings.Contains(out, "older than the floor") || !strings.Contains(out, "fake go: mod download") {
			t.Errorf("%s was not let through to the download: %s", ok, out)
		}
	}
}

// buildTree makes a repository root holding build.sh and UPSTREAM and the
// given files (path: content), for build.sh packages.
func buildTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for _, f := range []string{"build.sh", "UPSTREAM"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		files["fabric/"+f] = string(b)
	}
	for path, content := range files {
		full := filepath.Join(root, path)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if content == "" { // a directory
			continue
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// build.sh packages lists only directories that hold a Go package (a
// non-test .go file), skips what the go command ignores, and refuses two
// packages copied to one destination.
func TestBuildScriptPackages(t *testing.T) {
	const pkg = "package p\n"
	base := map[string]string{
		"fabric/ext/memo/memo.go":    pkg,
		"fabric/intree/vscc/vscc.go": pkg,
		"txmgr/lockless/lockless.go": pkg,
	}
	tests := []struct {
		name  string
		extra map[string]string
		want  string // the output, or the error's text when fail
		fail  bool
	}{
		{"packages only", nil,
			"ext fabric/ext/memo fabvote/memo\next txmgr/lockless fabvote/lockless\nintree vscc\n", false},
		{"directories without a package skipped", map[string]string{
			"fabric/ext/empty/x":                  "",
			"fabric/ext/testsonly/a_test.go":      pkg,
			"fabric/ext/notes/README.md":          "notes\n",
			"fabric/ext/testdata/x.go":            pkg,
			"fabric/ext/_old/x.go":                pkg,
			"fabric/ext/.hidden/x.go":             pkg,
			"fabric/intree/testdata/fixture.json": "{}\n",
			"fabric/intree/leftover/x":            "",
			"fabric/intree/_wip/x.go":             pkg,
		}, "ext fabric/ext/memo fabvote/memo\next txmgr/lockless fabvote/lockless\nintree vscc\n", false},
		{"an ext package named as txmgr/lockless", map[string]string{"fabric/ext/lockless/l.go": pkg},
			"txmgr/lockless and fabric/ext/lockless are both copied to fabvote/lockless", true},
		{"an in-tree package named as an ext one", map[string]string{"fabric/intree/memo/m.go": pkg},
			"fabric/intree/memo and fabric/ext/memo are both copied to fabvote/memo", true},
		{"an ext package named mod", map[string]string{"fabric/ext/mod/m.go": pkg},
			"fabric/ext/mod and the root module's packages (MOD_PKGS) are both copied to fabvote/mod", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{}
			for _, m := range []map[string]string{base, tc.extra} {
				for k, v := range m {
					files[k] = v
				}
			}
			root := buildTree(t, files)
			cmd := exec.Command("bash", filepath.Join(root, "fabric/build.sh"), "packages")
			cmd.Env = append(os.Environ(), "ROOT="+root, "FABRIC_GO_TAGS=")
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			switch {
			case tc.fail && (err == nil || !strings.Contains(stderr.String(), tc.want)):
				t.Errorf("build.sh packages: %v, stderr %q; want a failure saying %q", err, stderr.String(), tc.want)
			case !tc.fail && err != nil:
				t.Errorf("build.sh packages: %v\n%s", err, stderr.String())
			case !tc.fail && string(out) != tc.want:
				t.Errorf("build.sh packages said\n%s\nwant\n%s", out, tc.want)
			}
		})
	}
}
