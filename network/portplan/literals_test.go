package portplan

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// portLiteral finds a port number written as a setting's default or as an
// address in a script, a make file or a Go command: every default port is
// the plan's, asked for by name.
var portLiteral = map[string]*regexp.Regexp{
	"shell": regexp.MustCompile(`(?i)((port|addr|prefix)[a-z_]*\s*(\?=|:=|=|:-)\s*"?(127\.0\.0\.1:)?[0-9]{2,5}([^0-9.]|$)|(127\.0\.0\.1|localhost):[0-9]{2,5}\b)`),
	"go":    regexp.MustCompile(`"(127\.0\.0\.1|localhost|0\.0\.0\.0)?:[0-9]{4,5}"`),
}

func TestNoPortLiterals(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("git", "-C", root, "ls-files", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Skip("not a git checkout:", err)
	}
	for _, f := range strings.Fields(string(out)) {
		kind := ""
		switch {
		case strings.HasSuffix(f, ".sh"), strings.HasSuffix(f, ".mk"), f == "Makefile", f == ".ci/run":
			kind = "shell"
		case strings.HasSuffix(f, ".go") && !strings.HasSuffix(f, "_test.go") && !strings.HasPrefix(f, "network/portplan/"):
			kind = "go"
		default:
			continue
		}
		for n, line := range codeLines(t, filepath.Join(root, f), kind) {
			if m := portLiteral[kind].FindString(line); m != "" {
				t.Errorf("%s:%d: %q writes a port of its own; ask the port plan (network/portplan, fabnet ports)", f, n, m)
			}
		}
	}
}

// codeLines is a file's lines by number, comments left out.
func codeLines(t *testing.T, path, kind string) map[int]string {
	f, err := os.Open(path)
	if os.IsNotExist(err) { // deleted in the work tree
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lines := map[int]string{}
	s := bufio.NewScanner(f)
	s.Buffer(nil, 1<<20)
	for n := 1; s.Scan(); n++ {
		l := strings.TrimSpace(s.Text())
		if strings.HasPrefix(l, "#") || strings.HasPrefix(l, "//") {
			continue
		}
		if kind == "go" {
			l, _, _ = strings.Cut(l, "// ")
		}
		lines[n] = l
	}
	return lines
}
