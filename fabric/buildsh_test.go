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
