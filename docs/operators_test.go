package docs

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// yamlAfter returns the first ```yaml block after the line containing marker.
func yamlAfter(t *testing.T, path, marker string) string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	state := 0 // 0: before marker, 1: before the block, 2: in it
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case state == 0 && strings.Contains(line, marker):
			state = 1
		case state == 1 && line == "```yaml":
			state = 2
		case state == 2 && line == "```":
			return strings.Join(out, "\n") + "\n"
		case state == 2:
			out = append(out, line)
		}
	}
	t.Fatalf("%s: no ```yaml block after %q", path, marker)
	return ""
}

var fileRE = regexp.MustCompile(`(?m)^\s*(?:ca|cert|key)_file:\s*(\S+)\s*$`)

// The Prometheus scrape configuration in OPERATORS.md loads in the real
// promtool (Debian package prometheus). The TLS files it names are created
// empty in a temporary directory, where the relative paths point.
func TestOperatorsPrometheusConfig(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool is not installed (Debian package prometheus): the scrape configuration in OPERATORS.md is not checked")
	}
	cfg := yamlAfter(t, "OPERATORS.md", "A Prometheus scrape configuration")
	dir := t.TempDir()
	files := fileRE.FindAllStringSubmatch(cfg, -1)
	if len(files) == 0 {
		t.Fatal("the configuration names no TLS files: the test would not exercise them")
	}
	for _, m := range files {
		p := filepath.Join(dir, m[1])
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(promtool, "check", "config", path).CombinedOutput()
	if err != nil {
		t.Fatalf("promtool check config rejects the OPERATORS.md scrape configuration: %v\n%s", err, out)
	}
	// The check is real: the same tool refuses a configuration that
	// declares scrape_configs twice.
	twice := filepath.Join(dir, "twice.yml")
	if err := os.WriteFile(twice, []byte("scrape_configs:\n"+cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(promtool, "check", "config", twice).CombinedOutput(); err == nil {
		t.Fatalf("promtool accepted scrape_configs declared twice:\n%s", out)
	}
}
