package main

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/internal/cli"
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
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"help", []string{"--help"}, 0, "  detect      exit 0 if METADATA_DIR/metadata.json has type ccaas"},
		{"detect ccaas", []string{"detect", src, ccaas}, 0, ""},
		{"build", []string{"build", src, ccaas, filepath.Join(dir, "out")}, 0, ""},
		{"release", []string{"release", filepath.Join(dir, "out"), filepath.Join(dir, "rel")}, 0, ""},
		{"connection", append(conn, "--out", filepath.Join(dir, "conn.json")), 0, ""},
		{"connection, single dash", []string{"connection", "-address", "a:1", "-root-cert", pemFile, "-client-cert", pemFile,
			"-client-key", pemFile, "-out", filepath.Join(dir, "conn2.json")}, 0, ""},
		{"detect golang", []string{"detect", src, golang}, 1, ""},
		{"detect without metadata", []string{"detect", src, dir}, 1, "ccaas-builder detect: "},
		{"build without connection.json", []string{"build", dir, ccaas, filepath.Join(dir, "out2")}, 1, "ccaas-builder build: open "},
		{"connection, missing PEM file", append(slices.Clone(conn[:len(conn)-1]), filepath.Join(dir, "none"), "--out", filepath.Join(dir, "c3.json")), 1, "--client-key"},
		{"no step", nil, 2, "usage: ccaas-builder STEP ARGS"},
		{"unknown step", []string{"launch"}, 2, `unknown command "launch"`},
		{"detect, one directory", []string{"detect", src}, 2, "want SOURCE_DIR METADATA_DIR (see `ccaas-builder detect --help`)"},
		{"build, two directories", []string{"build", src, ccaas}, 2, "want SOURCE_DIR METADATA_DIR OUTPUT_DIR"},
		{"release, three directories", []string{"release", src, ccaas, dir}, 2, "want OUTPUT_DIR RELEASE_DIR"},
		{"connection without --out", conn, 2, "--out is required"},
		{"connection without --root-cert", []string{"connection", "--address", "a:1", "--out", "x"}, 2, "--root-cert is required"},
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
var updateReference = flag.Bool("update", false, "rewrite ccaas-builder's pages in docs/cli from the command tree")

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
	cli.CheckReference(t, ref, "../../../docs/cli", *updateReference)
}
