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
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"help", []string{"--help"}, 0, "usage: netready --network network.json"},
		{"missing file", []string{"--network", filepath.Join(dir, "none.json"), "--timeout", "1s"}, 1, "none.json"},
		{"invalid description", []string{"--network", bad, "--timeout", "1s"}, 1, "channel"},
		{"no user1 identity", []string{"-network", noUser, "-timeout", "1s"}, 1, `"user1"`},
		{"no --network", nil, 2, "--network is required (see `netready --help`)"},
		{"bad timeout", []string{"--network", bad, "--timeout", "soon"}, 2, `invalid argument "soon" for "--timeout"`},
		{"stray argument", []string{"--network", bad, "x"}, 2, `unexpected argument "x"`},
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
var updateReference = flag.Bool("update", false, "rewrite netready's pages in docs/cli from the command tree")

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
	cli.CheckReference(t, ref, "../../../docs/cli", *updateReference)
}
