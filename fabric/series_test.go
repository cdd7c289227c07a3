package fabric

import (
	"os/exec"
	"strings"
	"testing"
	"testing/fstest"
)

func TestLoad(t *testing.T) {
	s, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if s.Release != "2.5.0" || s.Module != "github.com/hyperledger/fabric" || s.Commit == "" {
		t.Fatalf("pin %+v", s)
	}
	if len(s.Patches) == 0 || !strings.HasPrefix(s.Patches[0], "0001-") {
		t.Fatalf("patches %v", s.Patches)
	}
	last := s.Patches[len(s.Patches)-1]
	if !strings.HasPrefix(s.Level, last[:4]+"+sha256:") || len(s.Level) != len("0000+sha256:")+12 {
		t.Fatalf("level %q for last patch %s", s.Level, last)
	}
}

// The Go digest and build.sh's (stamped into peer and orderer) agree.
func TestPatchLevelMatchesBuildScript(t *testing.T) {
	s, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("bash", "build.sh", "patch-level").Output()
	if err != nil {
		t.Fatalf("build.sh patch-level: %v", err)
	}
	if got := strings.TrimSpace(string(out)); got != s.Level {
		t.Fatalf("build.sh says %q, fabvote says %q", got, s.Level)
	}
}

// Known answer: the digest covers names and contents, so renaming or editing
// a patch changes the level.
func TestPatchLevelKnownAnswer(t *testing.T) {
	fsys := fstest.MapFS{"p/0001-a.patch": {Data: []byte("x")}, "p/0002-b.patch": {Data: []byte("y")}}
	// printf '0001-a.patch\nx0002-b.patch\ny' | sha256sum
	const want = "0002+sha256:b3075bb30b77"
	got, err := PatchLevel(fsys, []string{"p/0001-a.patch", "p/0002-b.patch"})
	if err != nil || got != want {
		t.Fatalf("PatchLevel = %q, %v; want %q", got, err, want)
	}
	renamed := fstest.MapFS{"p/0001-a.patch": {Data: []byte("x")}, "p/0002-c.patch": {Data: []byte("y")}}
	if other, _ := PatchLevel(renamed, []string{"p/0001-a.patch", "p/0002-c.patch"}); other == want {
		t.Fatal("renaming a patch left the level unchanged")
	}
}

func TestParseUpstreamRejects(t *testing.T) {
	for _, bad := range []string{"", "MODULE=x\nVERSION=y\nRELEASE=z\n", "garbage\n"} {
		if _, err := parseUpstream(bad); err == nil {
			t.Errorf("parseUpstream(%q) accepted", bad)
		}
	}
}
