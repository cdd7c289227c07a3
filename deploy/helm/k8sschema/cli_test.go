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
	sw := filepath.Join(dir, "swagger.json")
	if err := os.WriteFile(sw, []byte(miniSwagger), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"help", []string{"--help"}, 0, "usage: k8sschema --swagger swagger.json --out DIR"},
		{"schemas", []string{"--swagger", sw, "--out", filepath.Join(dir, "out")}, 0, ""},
		{"single-dash flags", []string{"-swagger", sw, "-out", filepath.Join(dir, "out2")}, 0, ""},
		{"unknown kind", []string{"--swagger", sw, "--out", filepath.Join(dir, "o"), "--kinds", "CronJob"}, 1, "k8sschema: kind CronJob is not in"},
		{"missing swagger file", []string{"--swagger", filepath.Join(dir, "none.json"), "--out", dir}, 1, "none.json"},
		{"no --swagger", []string{"--out", dir}, 2, "--swagger is required (see `k8sschema --help`)"},
		{"no --out", []string{"--swagger", sw}, 2, "--out is required"},
		{"unknown flag", []string{"--nope"}, 2, "unknown flag: --nope"},
		{"stray argument", []string{"--swagger", sw, "--out", dir, "x"}, 2, `unexpected argument "x"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			if code := run(tc.args, &stderr); code != tc.code || !strings.Contains(stderr.String(), tc.want) {
				t.Fatalf("exit %d, want %d; stderr %q does not say %q", code, tc.code, stderr.String(), tc.want)
			}
		})
	}
}

// updateReference makes TestCLIReference write docs/cli instead of
// checking it: `make docs`.
var updateReference = flag.Bool("update", false, "rewrite k8sschema's pages in docs/cli from the command tree")

// TestCLIReference fails, naming the file, where k8sschema's pages in
// docs/cli differ from the command tree; with -update it writes them.
func TestCLIReference(t *testing.T) {
	ref := cli.Reference{
		Root:   newRootCommand(io.Discard),
		Source: "deploy/helm/k8sschema",
		About: "`make helm-test` runs it once per Kubernetes release to write the schemas of the kinds the charts use " +
			"(deploy/helm/README.md), so that kubeconform needs no network.",
	}
	cli.CheckReference(t, ref, "../../../docs/cli", *updateReference)
}
