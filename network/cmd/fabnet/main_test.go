package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/fabvote/fabvote/internal/cli"
	"github.com/fabvote/fabvote/internal/cli/clitest"
	"github.com/fabvote/fabvote/network/fabnet"
	"github.com/fabvote/fabvote/network/fabrun"
	"github.com/fabvote/fabvote/network/netjson"
)

// fabnetRun runs fabnet's command line and returns its exit status and
// what it printed on stderr.
func fabnetRun(args ...string) (int, string) {
	var stderr bytes.Buffer
	code := run(args, &stderr)
	return code, stderr.String()
}

// fabnetErr runs fabnet's command line: nil when it exits 0, else an
// error holding its exit status and what it printed on stderr.
func fabnetErr(args []string) error {
	code, stderr := fabnetRun(args...)
	if code != 0 {
		return fmt.Errorf("exit status %d: %s", code, stderr)
	}
	return nil
}

// TestRunRefusesBadArguments: each kind of bad input is refused, a
// usage error with exit status 2, a failure with 1, and the message names
// what is wrong.
func TestRunRefusesBadArguments(t *testing.T) {
	dir := t.TempDir()
	topo := filepath.Join(dir, "topology.json")
	if err := fabnetErr([]string{"topology", "--profile", "three-orgs", "--chaincode", "ballot:ballot", "--out", topo}); err != nil {
		t.Fatal(err)
	}
	nodes := filepath.Join(dir, "nodes")
	if err := fabnetErr([]string{"node", "define", "--home", nodes, "--name", "n1", "--ready", "127.0.0.1:1", "--", "/bin/true"}); err != nil {
		t.Fatal(err)
	}
	fbin, fcfg := filepath.Join(dir, "fbin"), filepath.Join(dir, "fcfg")
	for _, f := range []string{filepath.Join(fbin, "peer"), filepath.Join(fbin, "osnadmin"), filepath.Join(fcfg, "core.yaml")} {
		if err := os.MkdirAll(filepath.Dir(f), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, nil, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	clitest.CheckExit(t, newRootCommand, []clitest.Case{
		{Name: "no step", Args: nil, Code: 2, Want: "usage: fabnet COMMAND"},
		{Name: "unknown step", Args: []string{"launch"}, Code: 2, Want: `unknown command "launch"`},
		{Name: "no topology", Args: []string{"peer", "--org", "ea", "--home", dir}, Code: 2, Want: "--topology is required"},
		{Name: "no home", Args: []string{"peer", "--topology", topo, "--org", "ea"}, Code: 2, Want: "--home is required"},
		{Name: "org not in the topology", Args: []string{"peer", "--topology", topo, "--org", "party9", "--home", dir}, Code: 2, Want: `no organisation "party9"`},
		{Name: "chaincode without binary", Args: []string{"peer", "--topology", topo, "--org", "ea", "--home", filepath.Join(dir, "ea"), "--chaincode", "ballot"}, Code: 2, Want: "want NAME=BINARY"},
		{Name: "node-env without =", Args: []string{"peer", "--topology", topo, "--org", "ea", "--home", dir, "--node-env", "GOGC"}, Code: 2, Want: "want KEY=VALUE"},
		{Name: "unknown runtime", Args: []string{"orderers", "--topology", topo, "--org", "orderer", "--home", dir, "--runtime", "podman"}, Code: 2, Want: `--runtime "podman": want native or compose`},
		{Name: "a flag of another step", Args: []string{"genesis", "--topology", topo, "--org", "orderer", "--home", dir, "--chaincode", "ballot=x"}, Code: 2, Want: "unknown flag: --chaincode"},
		{Name: "stray argument", Args: []string{"peer", "--topology", topo, "--org", "ea", "--home", dir, "extra"}, Code: 2, Want: `unexpected argument "extra"`},
		{Name: "topology without --out", Args: []string{"topology"}, Code: 2, Want: "--out is required"},
		{Name: "topology with an unknown org", Args: []string{"topology", "--host", "party9=10.0.0.9", "--out", filepath.Join(dir, "t2.json")}, Code: 2, Want: "party9"},
		{Name: "topology with a bad host", Args: []string{"topology", "--host", "ea=10.0.0.1,x", "--out", filepath.Join(dir, "t3.json")}, Code: 1, Want: "neither an IP address"},
		{Name: "topology with no batch", Args: []string{"topology", "--batch-size", "0", "--out", filepath.Join(dir, "t4.json")}, Code: 1, Want: "maxMessageCount"},
		{Name: "topology with a batch size that is no number", Args: []string{"topology", "--batch-size", "many", "--out", filepath.Join(dir, "t4.json")}, Code: 2, Want: `invalid argument "many" for "--batch-size"`},
		{Name: "add-org without an address", Args: []string{"topology", "--from", topo, "--add-org", "party3", "--out", filepath.Join(dir, "t5.json")}, Code: 2, Want: "want NAME=VALUE"},
		{Name: "--from with --host", Args: []string{"topology", "--from", topo, "--host", "ea=10.0.0.1", "--out", filepath.Join(dir, "t8.json")}, Code: 2, Want: "--host does not apply with --from"},
		{Name: "add-org of a member", Args: []string{"topology", "--from", topo, "--add-org", "party1=10.0.0.9", "--out", filepath.Join(dir, "t6.json")}, Code: 1, Want: "twice"},
		{Name: "add-org without --new", Args: []string{"add-org", "--topology", topo, "--org", "ea", "--home", filepath.Join(dir, "ea"), "--out", filepath.Join(dir, "u.pb")}, Code: 2, Want: "--new and --out are required"},
		{Name: "sign-update without --update", Args: []string{"sign-update", "--topology", topo, "--org", "ea", "--home", filepath.Join(dir, "ea")}, Code: 2, Want: "--update and --new are required"},
		{Name: "configtx without --msp of an org", Args: []string{"configtx", "--topology", topo, "--orderer-msp", dir, "--msp", "ea=" + dir,
			"--consenter-cert", "orderer0=c", "--consenter-cert", "orderer1=c", "--consenter-cert", "orderer2=c", "--out", filepath.Join(dir, "c1.yaml")}, Code: 1, Want: "no MSP directory for party1"},
		{Name: "configtx without a consenter", Args: []string{"configtx", "--topology", topo, "--orderer-msp", dir, "--out", filepath.Join(dir, "c2.yaml")}, Code: 1, Want: "no TLS certificate for orderer orderer0"},
		{Name: "topology with a bad batch timeout", Args: []string{"topology", "--batch-timeout", "soon", "--out", filepath.Join(dir, "t7.json")}, Code: 1, Want: "timeout"},
		{Name: "receive without --bundle", Args: []string{"receive", "--topology", topo, "--org", "ea", "--home", dir, "--from", "party1"}, Code: 2, Want: "are required"},
		{Name: "receive from an org not in the topology", Args: []string{"receive", "--topology", topo, "--org", "ea", "--home", dir, "--from", "party9", "--bundle", dir}, Code: 1, Want: `no organisation "party9"`},
		{Name: "down without --home", Args: []string{"down"}, Code: 2, Want: "--home is required"},
		{Name: "containers with --host", Args: []string{"topology", "--containers", "--host", "ea=10.0.0.1", "--out", filepath.Join(dir, "t9.json")}, Code: 2, Want: "not with --from or --host"},
		{Name: "configtx with --crypto and --msp", Args: []string{"configtx", "--topology", topo, "--crypto", dir, "--msp", "ea=" + dir, "--out", filepath.Join(dir, "c3.yaml")}, Code: 2, Want: "not with --msp"},
		{Name: "configtx with --crypto and --orderer-msp", Args: []string{"configtx", "--topology", topo, "--crypto", dir, "--orderer-msp", dir, "--out", filepath.Join(dir, "c4.yaml")}, Code: 2, Want: "one of --orderer-msp and --crypto"},
		{Name: "cryptogen-config without --out", Args: []string{"cryptogen-config", "--topology", topo}, Code: 2, Want: "--topology and --out are required"},
		{Name: "local-connection without --crypto", Args: []string{"local-connection", "--topology", topo, "--profile", "p", "--out", filepath.Join(dir, "n1.json")}, Code: 2, Want: "--crypto"},
		{Name: "local-connection with both names of --home", Args: []string{"local-connection", "--topology", topo, "--crypto", dir, "--profile", "p", "--home", dir, "--run-dir", dir, "--out", filepath.Join(dir, "n3.json")}, Code: 2, Want: "not both"},
		{Name: "package without --address", Args: []string{"package", "--label", "ballot_1.0", "--out", filepath.Join(dir, "p.tgz")}, Code: 2, Want: "--label, --address and --out are required"},
		{Name: "ops without a path", Args: []string{"ops", "--topology", topo, "--crypto", dir, "orderer0"}, Code: 2, Want: "want NODE PATH"},
		{Name: "ops of an unknown node", Args: []string{"ops", "--topology", topo, "--crypto", dir, "orderer9", "/healthz"}, Code: 1, Want: `no orderer or peer "orderer9"`},
		{Name: "wait-orderer without --home", Args: []string{"wait-orderer", "--topology", topo, "--crypto", dir, "orderer0"}, Code: 2, Want: "--home is required"},
		{Name: "node without a subcommand", Args: []string{"node"}, Code: 2, Want: "usage: fabnet node SUBCOMMAND"},
		{Name: "node without --home", Args: []string{"node", "status"}, Code: 2, Want: "--home is required"},
		{Name: "node with an unknown subcommand", Args: []string{"node", "launch"}, Code: 2, Want: `unknown command "launch"`},
		{Name: "node define without a binary", Args: []string{"node", "define", "--home", nodes, "--name", "n2", "--ready", "127.0.0.1:1"}, Code: 2, Want: "the binary are required"},
		{Name: "node define with a bad environment entry", Args: []string{"node", "define", "--home", nodes, "--name", "n2", "--ready", "127.0.0.1:1", "--env", "GOGC", "--", "/bin/true"}, Code: 2, Want: `"GOGC": want KEY=VALUE`},
		{Name: "node start of an unknown node", Args: []string{"node", "start", "--home", nodes, "orderer9"}, Code: 1, Want: `unknown node "orderer9"; nodes: n1`},
		{Name: "node stop of an unknown node", Args: []string{"node", "stop", "--home", nodes, "orderer9"}, Code: 1, Want: `unknown node "orderer9"; nodes: n1`},
		{Name: "node pid of a stopped node", Args: []string{"node", "pid", "--home", nodes, "n1"}, Code: 1, Want: "n1 is not running"},
		{Name: "node stop without a name", Args: []string{"node", "stop", "--home", nodes}, Code: 2, Want: "want NAME"},
		{Name: "local-channel without a step", Args: []string{"local-channel"}, Code: 2, Want: "usage: fabnet local-channel SUBCOMMAND"},
		{Name: "local-channel with an unknown step", Args: []string{"local-channel", "create"}, Code: 2, Want: `unknown command "create"`},
		{Name: "local-channel without --home", Args: []string{"local-channel", "join", "--topology", topo}, Code: 2, Want: "--topology and --home are required"},
		{Name: "local-channel with a stray argument", Args: []string{"local-channel", "join", "--topology", topo, "--home", dir, "now"}, Code: 2, Want: `unexpected argument "now"`},
		{Name: "local-channel in a missing home", Args: []string{"local-channel", "join", "--topology", topo, "--home", filepath.Join(dir, "none"), "--bin", fbin, "--config-src", fcfg}, Code: 1, Want: "not a directory"},
		{Name: "local-channel without the peer CLI", Args: []string{"local-channel", "join", "--topology", topo, "--home", dir, "--bin", fcfg, "--config-src", fcfg}, Code: 1, Want: "fcfg/peer not found: run 'make fabric'"},
		{Name: "local-channel without core.yaml", Args: []string{"local-channel", "join", "--topology", topo, "--home", dir, "--bin", fbin, "--config-src", fbin}, Code: 1, Want: "fbin/core.yaml not found"},
		{Name: "local-channel deploy without --packages", Args: []string{"local-channel", "deploy", "--topology", topo, "--home", dir}, Code: 2, Want: "--packages is required"},
		{Name: "local-channel height without --org", Args: []string{"local-channel", "height", "--topology", topo, "--home", dir}, Code: 2, Want: "--org is required"},
		{Name: "local-connection of a bad topology", Args: []string{"local-connection", "--topology", filepath.Join(dir, "none.json"), "--crypto", dir, "--profile", "p", "--out", filepath.Join(dir, "n2.json")}, Code: 1, Want: "none.json"},
		{Name: "ports check of an unknown stack", Args: []string{"ports", "check", "--stack", "mine"}, Code: 1, Want: `no stack "mine"`},
		{Name: "ports env in a slot the stack lacks", Args: []string{"ports", "env", "--slot", "9"}, Code: 2, Want: "--slot 9"},
	})
	if names, err := (fabrun.Home{Dir: nodes}).DefinedNodes(); err != nil || len(names) != 1 {
		t.Errorf("refused node definitions were recorded: %v, %v", names, err)
	}
	for _, f := range []string{"t2.json", "t3.json", "t4.json", "t5.json", "t6.json", "t7.json", "t8.json", "t9.json", "u.pb", "c1.yaml", "c2.yaml", "c3.yaml", "c4.yaml", "n1.json", "n2.json", "n3.json", "p.tgz"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("a refused topology command wrote %s", f)
		}
	}
}

func TestTopologyAddOrg(t *testing.T) {
	dir := t.TempDir()
	topo := filepath.Join(dir, "topology.json")
	if err := fabnetErr([]string{"topology", "--profile", "three-orgs", "--chaincode", "ballot:ballot", "--out", topo}); err != nil {
		t.Fatal(err)
	}
	if err := fabnetErr([]string{"topology", "--from", topo, "--add-org", "party3=10.0.0.14", "--out", topo}); err != nil {
		t.Fatal(err)
	}
	// A topology on another base port keeps its plan for the added org.
	topo9 := filepath.Join(dir, "topology-9050.json")
	if err := fabnetErr([]string{"topology", "--profile", "three-orgs", "--base-port", "9050", "--out", topo9}); err != nil {
		t.Fatal(err)
	}
	if err := fabnetErr([]string{"topology", "--from", topo9, "--add-org", "party3=10.0.0.14", "--out", topo9}); err != nil {
		t.Fatal(err)
	}
	if t9, err := fabnet.Load(topo9); err != nil || t9.Orgs[3].Peer.Port != 9180 {
		t.Fatalf("party3 on a 9050 plan: %v, %v", t9, err)
	}
	if err := fabnetErr([]string{"topology", "--from", topo, "--out", topo}); err != nil {
		t.Fatal(err)
	}
	top, err := fabnet.Load(topo)
	if err != nil {
		t.Fatal(err)
	}
	p3, err := top.PeerOrg("party3")
	if err != nil || p3.Host != "10.0.0.14" || p3.Peer.Port != 7180 || len(top.Orgs) != 4 {
		t.Fatalf("after --add-org: %d orgs, party3 %+v, %v", len(top.Orgs), p3, err)
	}
}

func TestTopologyWritesTheHosts(t *testing.T) {
	out := filepath.Join(t.TempDir(), "topology.json")
	err := fabnetErr([]string{"topology", "--profile", "three-orgs", "--base-port", "9050", "--host", "party1=10.0.0.12",
		"--chaincode", "ballot:ballot:ballotvscc", "--batch-size", "100", "--out", out})
	if err != nil {
		t.Fatal(err)
	}
	top, err := fabnet.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	p1, _ := top.PeerOrg("party1")
	ea, _ := top.PeerOrg("ea")
	if p1.Host != "10.0.0.12" || ea.Host != "127.0.0.1" || top.OrdererOrg.Orderers[0].Port != 9050 || top.Batch.MaxMessageCount != 100 {
		t.Errorf("topology: party1 at %s, ea at %s, orderer0 on %d, batch %d", p1.Host, ea.Host, top.OrdererOrg.Orderers[0].Port, top.Batch.MaxMessageCount)
	}
	if cc := top.Chaincodes[0]; !cc.Ballot || cc.ValidationPlugin != "ballotvscc" {
		t.Errorf("chaincode %+v, want the ballot contract with the ballotvscc plugin", cc)
	}
}

// TestCallersSyntax: the command lines of the scripts written for Go's
// flag package still run: single-dash long flags, -flag=value, and the
// old names of renamed flags, which print a deprecation notice.
func TestCallersSyntax(t *testing.T) {
	dir := t.TempDir()
	topo := filepath.Join(dir, "topology.json")
	tests := []struct {
		name, out, notice string
		args              []string
	}{
		{"single dash", topo, "", []string{"topology", "-profile", "solo-org", "-base-port=9050", "-out", topo}},
		{"--run-dir for --home", filepath.Join(dir, "n1.json"), "Flag --run-dir has been deprecated, use --home instead",
			[]string{"local-connection", "--topology", topo, "--crypto", dir, "--run-dir", "/etc/fabvote", "--profile", "docker", "--out", filepath.Join(dir, "n1.json")}},
		{"--home", filepath.Join(dir, "n2.json"), "",
			[]string{"local-connection", "--topology", topo, "--crypto", dir, "--home", "/etc/fabvote", "--profile", "docker", "--out", filepath.Join(dir, "n2.json")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stderr := fabnetRun(tc.args...)
			if code != 0 || !strings.Contains(stderr, tc.notice) {
				t.Fatalf("fabnet %q: exit %d, stderr %q; want exit 0 and %q", tc.args, code, stderr, tc.notice)
			}
			if _, err := os.Stat(tc.out); err != nil {
				t.Errorf("fabnet %q wrote no %s: %v", tc.args, tc.out, err)
			}
		})
	}
	if top, err := fabnet.Load(topo); err != nil || top.OrdererOrg.Orderers[0].Port != 9050 || len(top.Orgs) != 1 {
		t.Fatalf("the single-dash topology: %v, %v", top, err)
	}
	for _, f := range []string{"n1.json", "n2.json"} {
		n, err := netjson.Load(filepath.Join(dir, f))
		if err != nil || n.RunDir != "/etc/fabvote" {
			t.Errorf("%s: run dir %v, %v; want /etc/fabvote", f, n, err)
		}
	}
}

// TestHelp: --help on any command prints its usage and flags on stderr
// and exits 0.
func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"node", "start", "--help"}, {"local-channel", "deploy", "-h"}} {
		code, stderr := fabnetRun(args...)
		if code != 0 || !strings.HasPrefix(stderr, "usage: fabnet") {
			t.Errorf("fabnet %q: exit %d, stderr %q; want exit 0 and the usage", args, code, stderr)
		}
	}
	if _, stderr := fabnetRun("local-channel", "deploy", "--help"); !strings.Contains(stderr, "--sequence int") {
		t.Errorf("local-channel deploy --help names no --sequence:\n%s", stderr)
	}
}

// TestInterruptedExit: a command that a signal ended exits 130, other
// failures 1.
func TestInterruptedExit(t *testing.T) {
	tests := []struct {
		err  error
		code int
	}{
		{interrupted{errors.New("waited for orderer0: context canceled")}, exitInterrupted},
		{fmt.Errorf("local-up: %w", interrupted{errors.New("stopped")}), exitInterrupted},
		{errors.New("orderer0 exited during start-up"), 1},
	}
	for _, tc := range tests {
		root := &cobra.Command{Use: "fabnet"}
		root.AddCommand(&cobra.Command{Use: "up", RunE: func(*cobra.Command, []string) error { return tc.err }})
		cli.Configure(root, io.Discard)
		if code := execute(root, []string{"up"}, io.Discard); code != tc.code {
			t.Errorf("%v: exit %d, want %d", tc.err, code, tc.code)
		}
	}
}
