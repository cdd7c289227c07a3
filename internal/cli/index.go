package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// IndexFile is the page of a reference directory that lists its tools.
const IndexFile = "README.md"

// IndexPage is the README.md of a reference directory: a link to each
// tool's index page with the summary its title gives ("# TOOL: SHORT").
func IndexPage(dir string) ([]byte, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString("<!-- Generated from the tools' index pages by `make docs`; do not edit. -->\n\n")
	b.WriteString("# Command-line reference\n\n")
	b.WriteString("One page per command of each tool, generated from its command tree. " +
		"Every tool prints its help with `--help` and a shell completion script with `TOOL completion bash|zsh|fish`, " +
		"and exits 0 on success, 1 on failure and 2 on bad usage.\n\n")
	for _, e := range entries {
		tool, ok := strings.CutSuffix(e.Name(), ".md")
		if !ok || e.Name() == IndexFile || strings.Contains(tool, "_") {
			continue
		}
		short, err := indexTitle(filepath.Join(dir, e.Name()), tool)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, "- [%s](%s): %s\n", tool, e.Name(), short)
	}
	return b.Bytes(), nil
}

// indexTitle is the summary in the title "# TOOL: SHORT" of a tool's index
// page.
func indexTitle(path, tool string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if short, ok := strings.CutPrefix(line, "# "+tool+": "); ok {
			return short, nil
		}
	}
	return "", fmt.Errorf("%s: no title \"# %s: SUMMARY\": not a tool's index page", path, tool)
}
