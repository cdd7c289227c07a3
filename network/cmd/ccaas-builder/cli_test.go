package main

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/fabvote/fabvote/internal/cli"
	"github.com/fabvote/fabvote/internal/cli/clitest"
)

// TestExitStatus runs each step's command line in-process: success (and
// for detect, a ccaas package) exits 0, a failure (for detect, another
// package type) 1, bad usage 2, each error naming what is wrong.
func TestExitStatus(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return filepath.Dir(p)
	}
	ccaas := write("ccaas/metadata.json", `{"type":"ccaas","label":"kv_1"}`)
	golang := write("golang/metadata.json", `{"type":"golang","label":"kv_1"}`)
	src := write("src/connection.json", `{"address":"127.0.0.1:9999","tls_required":false}`)
	pemFile := filepath.Join(write("pem/c.pem", testPEM), "c.pem")
	conn := []string{"connection", "--address", "a:1", "--root-cert", pemFile, "--client-cert", pemFile, "--client-key", pemFile}
	clitest.CheckExit(t, newRootCommand, []clitest.Case{
		{Name: "help", Args: []string{"--help"}, Code: 0, Want: "  detect      exit 0 if METADATA_DIR/metadata.json has type ccaas"},
		{Name: "detect ccaas", Args: []string{"detect", src, ccaas}, Code: 0, Want: ""},
		{Name: "build", Args: []string{"build", src, ccaas, filepath.Join(dir, "out")}, Code: 0, Want: ""},
		{Name: "release", Args: []string{"release", filepath.Join(dir, "out"), filepath.Join(dir, "rel")}, Code: 0, Want: ""},
		{Name: "connection", Args: append(conn, "--out", filepath.Join(dir, "conn.json")), Code: 0, Want: ""},
		{Name: "connection, single dash", Args: []string{"connection", "-address", "a:1", "-root-cert", pemFile, "-client-cert", pemFile,
			"-client-key", pemFile, "-out", filepath.Join(dir, "conn2.json")}, Code: 0, Want: ""},
		{Name: "detect golang", Args: []string{"detect", src, golang}, Code: 1, Want: ""},
		{Name: "detect without metadata", Args: []string{"detect", src, dir}, Code: 1, Want: "ccaas-builder detect: "},
		{Name: "build without connection.json", Args: []string{"build", dir, ccaas, filepath.Join(dir, "out2")}, Code: 1, Want: "ccaas-builder build: open "},
		{Name: "connection, missing PEM file", Args: append(slices.Clone(conn[:len(conn)-1]), filepath.Join(dir, "none"), "--out", filepath.Join(dir, "c3.json")), Code: 1, Want: "--client-key"},
		{Name: "no step", Args: nil, Code: 2, Want: "usage: ccaas-builder STEP ARGS"},
		{Name: "unknown step", Args: []string{"launch"}, Code: 2, Want: `unknown command "launch"`},
		{Name: "detect, one directory", Args: []string{"detect", src}, Code: 2, Want: "want SOURCE_DIR METADATA_DIR (see `ccaas-builder detect --help`)"},
		{Name: "build, two directories", Args: []string{"build", src, ccaas}, Code: 2, Want: "want SOURCE_DIR METADATA_DIR OUTPUT_DIR"},
		{Name: "release, three directories", Args: []string{"release", src, ccaas, dir}, Code: 2, Want: "want OUTPUT_DIR RELEASE_DIR"},
		{Name: "connection without --out", Args: conn, Code: 2, Want: "--out is required"},
		{Name: "connection without --root-cert", Args: []string{"connection", "--address", "a:1", "--out", "x"}, Code: 2, Want: "--root-cert is required"},
	})
}

// TestStepArgs: run through a link named after a peer step, the binary
// runs that step; under any other name, the command line as given.
func TestStepArgs(t *testing.T) {
	tests := []struct {
		argv, want []string
	}{
		{[]string{"/peer/builder/bin/detect", "src", "meta"}, []string{"detect", "src", "meta"}},
		{[]string{"bin/release", "out", "rel"}, []string{"release", "out", "rel"}},
		{[]string{"ccaas-builder", "build", "src", "meta", "out"}, []string{"build", "src", "meta", "out"}},
		{[]string{"bin/connection", "--out", "x"}, []string{"--out", "x"}},
	}
	for _, tc := range tests {
		if got := stepArgs(tc.argv); !slices.Equal(got, tc.want) {
			t.Errorf("stepArgs(%q) = %q, want %q", tc.argv, got, tc.want)
		}
	}
}

// TestCLIReference fails, naming the file, where ccaas-builder's pages in
// docs/cli differ from the command tree; with -update it writes them.
func TestCLIReference(t *testing.T) {
	ref := cli.Reference{
		Root:   newRootCommand(io.Discard),
		Source: "network/cmd/ccaas-builder",
		About: "The chaincode package holds only connection.json, the address of the running chaincode service " +
			"and the TLS material the peer uses to dial it; the peer never starts a process. " +
			"The peer runs the steps detect, build and release through links of those names to the binary " +
			"(`detect SOURCE_DIR METADATA_DIR` is `ccaas-builder detect SOURCE_DIR METADATA_DIR`); " +
			"the network tools run connection.",
		Failures: "detect finding a package that is not ccaas",
	}
	clitest.CheckReference(t, ref, "../../../docs/cli")
}
