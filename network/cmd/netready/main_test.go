package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/fabvote/fabvote/internal/cli"
	"github.com/fabvote/fabvote/internal/cli/clitest"
)

// The probe itself runs at the end of every `net.sh up` (make network-test);
// here: the exit status of help (0), a failure (1) and bad usage (2), each
// error naming what is wrong.
func TestExitStatus(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"channel":""}`), 0o644); err != nil {
		t.Fatal(err)
	}
	noUser := filepath.Join(dir, "nouser.json")
	if err := os.WriteFile(noUser, []byte(`{"channel":"c","chaincodes":["kv"],"orgs":[{"name":"ea","mspID":"EAMSP",
		"peers":[{"endpoint":"127.0.0.1:1","tlsCACert":"/nonexistent"}],"identities":{}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	clitest.CheckExit(t, newRootCommand, []clitest.Case{
		{Name: "help", Args: []string{"--help"}, Code: 0, Want: "usage: netready --network network.json"},
		{Name: "missing file", Args: []string{"--network", filepath.Join(dir, "none.json"), "--timeout", "1s"}, Code: 1, Want: "none.json"},
		{Name: "invalid description", Args: []string{"--network", bad, "--timeout", "1s"}, Code: 1, Want: "channel"},
		{Name: "no user1 identity", Args: []string{"-network", noUser, "-timeout", "1s"}, Code: 1, Want: `"user1"`},
		{Name: "no --network", Args: nil, Code: 2, Want: "--network is required (see `netready --help`)"},
		{Name: "bad timeout", Args: []string{"--network", bad, "--timeout", "soon"}, Code: 2, Want: `invalid argument "soon" for "--timeout"`},
		{Name: "stray argument", Args: []string{"--network", bad, "x"}, Code: 2, Want: `unexpected argument "x"`},
	})
}

// TestCLIReference fails, naming the file, where netready's pages in
// docs/cli differ from the command tree; with -update it writes them.
func TestCLIReference(t *testing.T) {
	ref := cli.Reference{
		Root:   newRootCommand(io.Discard),
		Source: "network/cmd/netready",
		About: "network-up runs it last, so that clients can submit at once: it endorses, but never submits, " +
			"the read-only transaction org.hyperledger.fabric:GetMetadata until every org's gateway " +
			"collects endorsements that satisfy each chaincode's policy.",
		Failures: "the timeout passing before the network is ready",
	}
	clitest.CheckReference(t, ref, "../../../docs/cli")
}
