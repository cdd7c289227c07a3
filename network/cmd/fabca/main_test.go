package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/fabvote/fabvote/internal/cli"
	"github.com/fabvote/fabvote/internal/cli/clitest"
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
	clitest.CheckExit(t, newRootCommand, []clitest.Case{
		{Name: "help", Args: []string{"--help"}, Code: 0, Want: "usage: fabca --client FILE"},
		{Name: "missing registrar file", Args: with("--ca-registrar-file", filepath.Join(dir, "none"), "--tlsca-registrar-file", good), Code: 1, Want: "fabca: --ca-registrar-file"},
		{Name: "malformed registrar file", Args: with("--ca-registrar-file", good, "--tlsca-registrar-file", bad), Code: 1, Want: "want one line user:password"},
		{Name: "no registrar files", Args: base, Code: 2, Want: "--ca-registrar-file is required (see `fabca --help`)"},
		{Name: "no TLS CA registrar", Args: with("--ca-registrar-file", good), Code: 2, Want: "--tlsca-registrar-file is required"},
		{Name: "no domain", Args: []string{"--client", "x"}, Code: 2, Want: "--domain is required"},
		{Name: "bad timeout", Args: with("--timeout", "soon"), Code: 2, Want: `invalid argument "soon" for "--timeout"`},
		{Name: "stray argument", Args: with("--ca-registrar-file", good, "--tlsca-registrar-file", good, "extra"), Code: 2, Want: `unexpected argument "extra"`},
	})
}

func TestSplit(t *testing.T) {
	if got := split(" peer0, ,ccaas0,"); len(got) != 2 || got[0] != "peer0" || got[1] != "ccaas0" {
		t.Fatalf("split = %q", got)
	}
}

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
	clitest.CheckReference(t, ref, "../../../docs/cli")
}
