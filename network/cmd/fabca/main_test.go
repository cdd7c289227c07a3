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

// TestExitStatus runs the command line in-process: help exits 0, a
// failure 1, bad usage 2, each with a message naming what is wrong. (The
// enrollment itself runs against real servers in make fabca-test.)
func TestExitStatus(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good")
	bad := filepath.Join(dir, "bad")
	for path, body := range map[string]string{good: "registrar:pw\n", bad: "no colon\n"} {
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	base := []string{"--client", "/bin/false", "--domain", "ea.local", "--dir", dir, "--nodes", "peer0",
		"--ca", "127.0.0.1:1", "--ca-tls-cert", good, "--tlsca", "127.0.0.1:2", "--tlsca-tls-cert", good}
	with := func(extra ...string) []string { return append(append([]string{}, base...), extra...) }
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"help", []string{"--help"}, 0, "usage: fabca --client FILE"},
		{"missing registrar file", with("--ca-registrar-file", filepath.Join(dir, "none"), "--tlsca-registrar-file", good), 1, "fabca: --ca-registrar-file"},
		{"malformed registrar file", with("--ca-registrar-file", good, "--tlsca-registrar-file", bad), 1, "want one line user:password"},
		{"no registrar files", base, 2, "--ca-registrar-file is required (see `fabca --help`)"},
		{"no TLS CA registrar", with("--ca-registrar-file", good), 2, "--tlsca-registrar-file is required"},
		{"no domain", []string{"--client", "x"}, 2, "--domain is required"},
		{"bad timeout", with("--timeout", "soon"), 2, `invalid argument "soon" for "--timeout"`},
		{"stray argument", with("--ca-registrar-file", good, "--tlsca-registrar-file", good, "extra"), 2, `unexpected argument "extra"`},
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

func TestSplit(t *testing.T) {
	if got := split(" peer0, ,ccaas0,"); len(got) != 2 || got[0] != "peer0" || got[1] != "ccaas0" {
		t.Fatalf("split = %q", got)
	}
}

// updateReference makes TestCLIReference write docs/cli instead of
// checking it: `make docs`.
var updateReference = flag.Bool("update", false, "rewrite fabca's pages in docs/cli from the command tree")

// TestCLIReference fails, naming the file, where fabca's pages in docs/cli
// differ from the command tree; with -update it writes them.
func TestCLIReference(t *testing.T) {
	ref := cli.Reference{
		Root:   newRootCommand(io.Discard),
		Source: "network/cmd/fabca",
		About: "It enrolls one organisation's nodes and users from its two running Fabric CA servers, " +
			"MSP and TLS, and writes them in cryptogen's layout (package network/fabca). " +
			"Each registrar file holds user:password of that server's bootstrap registrar (0600, in the organisation's directory).",
	}
	cli.CheckReference(t, ref, "../../../docs/cli", *updateReference)
}
