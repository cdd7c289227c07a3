package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/fabvote/fabvote/internal/cli"
	"github.com/fabvote/fabvote/internal/cli/clitest"
)

// TestExitStatus runs the command line in-process: help and success exit
// 0, a failure 1, bad usage 2, each with a message naming what is wrong.
func TestExitStatus(t *testing.T) {
	dir := t.TempDir()
	sw := filepath.Join(dir, "swagger.json")
	if err := os.WriteFile(sw, []byte(miniSwagger), 0o644); err != nil {
		t.Fatal(err)
	}
	clitest.CheckExit(t, newRootCommand, []clitest.Case{
		{Name: "help", Args: []string{"--help"}, Code: 0, Want: "usage: k8sschema --swagger swagger.json --out DIR"},
		{Name: "schemas", Args: []string{"--swagger", sw, "--out", filepath.Join(dir, "out")}, Code: 0, Want: ""},
		{Name: "single-dash flags", Args: []string{"-swagger", sw, "-out", filepath.Join(dir, "out2")}, Code: 0, Want: ""},
		{Name: "unknown kind", Args: []string{"--swagger", sw, "--out", filepath.Join(dir, "o"), "--kinds", "CronJob"}, Code: 1, Want: "k8sschema: kind CronJob is not in"},
		{Name: "missing swagger file", Args: []string{"--swagger", filepath.Join(dir, "none.json"), "--out", dir}, Code: 1, Want: "none.json"},
		{Name: "no --swagger", Args: []string{"--out", dir}, Code: 2, Want: "--swagger is required (see `k8sschema --help`)"},
		{Name: "no --out", Args: []string{"--swagger", sw}, Code: 2, Want: "--out is required"},
		{Name: "unknown flag", Args: []string{"--nope"}, Code: 2, Want: "unknown flag: --nope"},
		{Name: "stray argument", Args: []string{"--swagger", sw, "--out", dir, "x"}, Code: 2, Want: `unexpected argument "x"`},
	})
}

// TestCLIReference fails, naming the file, where k8sschema's pages in
// docs/cli differ from the command tree; with -update it writes them.
func TestCLIReference(t *testing.T) {
	ref := cli.Reference{
		Root:   newRootCommand(io.Discard),
		Source: "deploy/helm/k8sschema",
		About: "`make helm-test` runs it once per Kubernetes release to write the schemas of the kinds the charts use " +
			"(deploy/helm/README.md), so that kubeconform needs no network.",
	}
	clitest.CheckReference(t, ref, "../../../docs/cli")
}
