package main

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/internal/cli"
)

// TestExitStatus runs the command line in-process: help and success exit
// 0, a failure 1, bad usage 2, each with a message naming what is wrong.
func TestExitStatus(t *testing.T) {
	dir := t.TempDir()
	base, override, out := filepath.Join(dir, "base.yaml"), filepath.Join(dir, "over.yaml"), filepath.Join(dir, "out.yaml")
	if err := os.WriteFile(base, []byte("a:\n  b: 1\n  c: 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(override, []byte("a:\n  b: 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	files := []string{"--base", base, "--override", override}
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"help", []string{"--help"}, 0, "usage: cfgmerge --base upstream.yaml"},
		{"merge", append(files, "--out", out), 0, ""},
		{"single-dash flags", []string{"-base", base, "-override", override, "-out", out}, 0, ""},
		{"missing base", []string{"--base", filepath.Join(dir, "none.yaml"), "--override", override, "--out", out}, 1, "cfgmerge: "},
		{"no --out", files, 2, "--out is required (see `cfgmerge --help`)"},
		{"no --base", []string{"--override", override, "--out", out}, 2, "--base is required"},
		{"unknown flag", []string{"--nope"}, 2, "unknown flag: --nope"},
		{"stray argument", append(files, "--out", out, "x"), 2, `unexpected argument "x"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			if code := run(tc.args, &stderr); code != tc.code || !strings.Contains(stderr.String(), tc.want) {
				t.Fatalf("exit %d, want %d; stderr %q does not say %q", code, tc.code, stderr.String(), tc.want)
			}
		})
	}
	if got, err := os.ReadFile(out); err != nil || !strings.Contains(string(got), "b: 3") || !strings.Contains(string(got), "c: 2") {
		t.Fatalf("merged file %q (%v)", got, err)
	}
}

// updateReference makes TestCLIReference write docs/cli instead of
// checking it: `make docs`.
var updateReference = flag.Bool("update", false, "rewrite cfgmerge's pages in docs/cli from the command tree")

// TestCLIReference fails, naming the file, where cfgmerge's pages in
// docs/cli differ from the command tree; with -update it writes them.
func TestCLIReference(t *testing.T) {
	ref := cli.Reference{
		Root:   newRootCommand(io.Discard),
		Source: "network/cmd/cfgmerge",
		About: "The network scripts run it once per node to write its core.yaml or orderer.yaml " +
			"from upstream's sampleconfig and network/config's overrides (network/README.md).",
	}
	cli.CheckReference(t, ref, "../../../docs/cli", *updateReference)
}
