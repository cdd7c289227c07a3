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
	tests := []struct {
		name string
		args []string
		code int // 2: a usage error; 1: a failure
		want string
	}{
		{"no step", nil, 2, "usage: fabnet COMMAND"},
		{"unknown step", []string{"launch"}, 2, `unknown command "launch"`},
		{"no topology", []string{"peer", "--org", "ea", "--home", dir}, 2, "--topology is required"},
		{"no home", []string{"peer", "--topology", topo, "--org", "ea"}, 2, "--home is required"},
		{"org not in the topology", []string{"peer", "--topology", topo, "--org", "party9", "--home", dir}, 2, `no organisation "party9"`},
		{"chaincode without binary", []string{"peer", "--topology", topo, "--org", "ea", "--home", filepath.Join(dir, "ea"), "--chaincode", "ballot"}, 2, "want NAME=BINARY"},
		{"node-env without =", []string{"peer", "--topology", topo, "--org", "ea", "--home", dir, "--node-env", "GOGC"}, 2, "want KEY=VALUE"},
		{"unknown runtime", []string{"orderers", "--topology", topo, "--org", "orderer", "--home", dir, "--runtime", "podman"}, 2, `--runtime "podman": want native or compose`},
		{"a flag of another step", []string{"genesis", "--topology", topo, "--org", "orderer", "--home", dir, "--chaincode", "ballot=x"}, 2, "unknown flag: --chaincode"},
		{"stray argument", []string{"peer", "--topology", topo, "--org", "ea", "--home", dir, "extra"}, 2, `unexpected argument "extra"`},
		{"topology without --out", []string{"topology"}, 2, "--out is required"},
		{"topology with an unknown org", []string{"topology", "--host", "party9=10.0.0.9", "--out", filepath.Join(dir, "t2.json")}, 2, "party9"},
		{"topology with a bad host", []string{"topology", "--host", "ea=10.0.0.1,x", "--out", filepath.Join(dir, "t3.json")}, 1, "neither an IP address"},
		{"topology with no batch", []string{"topology", "--batch-size", "0", "--out", filepath.Join(dir, "t4.json")}, 1, "maxMessageCount"},
		{"topology with a batch size that is no number", []string{"topology", "--batch-size", "many", "--out", filepath.Join(dir, "t4.json")}, 2, `invalid argument "many" for "--batch-size"`},
		{"add-org without an address", []string{"topology", "--from", topo, "--add-org", "party3", "--out", filepath.Join(dir, "t5.json")}, 2, "want NAME=VALUE"},
		{"--from with --host", []string{"topology", "--from", topo, "--host", "ea=10.0.0.1", "--out", filepath.Join(dir, "t8.json")}, 2, "--host does not apply with --from"},
		{"add-org of a member", []string{"topology", "--from", topo, "--add-org", "party1=10.0.0.9", "--out", filepath.Join(dir, "t6.json")}, 1, "twice"},
		{"add-org without --new", []string{"add-org", "--topology", topo, "--org", "ea", "--home", filepath.Join(dir, "ea"), "--out", filepath.Join(dir, "u.pb")}, 2, "--new and --out are required"},
		{"sign-update without --update", []string{"sign-update", "--topology", topo, "--org", "ea", "--home", filepath.Join(dir, "ea")}, 2, "--update and --new are required"},
		{"configtx without --msp of an org", []string{"configtx", "--topology", topo, "--orderer-msp", dir, "--msp", "ea=" + dir,
			"--consenter-cert", "orderer0=c", "--consenter-cert", "orderer1=c", "--consenter-cert", "orderer2=c", "--out", filepath.Join(dir, "c1.yaml")}, 1, "no MSP directory for party1"},
		{"configtx without a consenter", []string{"configtx", "--topology", topo, "--orderer-msp", dir, "--out", filepath.Join(dir, "c2.yaml")}, 1, "no TLS certificate for orderer orderer0"},
		{"topology with a bad batch timeout", []string{"topology", "--batch-timeout", "soon", "--out", filepath.Join(dir, "t7.json")}, 1, "timeout"},
		{"receive without --bundle", []string{"receive", "--topology", topo, "--org", "ea", "--home", dir, "--from", "party1"}, 2, "are required"},
		{"receive from an org not in the topology", []string{"receive", "--topology", topo, "--org", "ea", "--home", dir, "--from", "party9", "--bundle", dir}, 1, `no organisation "party9"`},
		{"down without --home", []string{"down"}, 2, "--home is required"},
		{"containers with --host", []string{"topology", "--containers", "--host", "ea=10.0.0.1", "--out", filepath.Join(dir, "t9.json")}, 2, "not with --from or --host"},
		{"configtx with --crypto and --msp", []string{"configtx", "--topology", topo, "--crypto", dir, "--msp", "ea=" + dir, "--out", filepath.Join(dir, "c3.yaml")}, 2, "not with --msp"},
		{"configtx with --crypto and --orderer-msp", []string{"configtx", "--topology", topo, "--crypto", dir, "--orderer-msp", dir, "--out", filepath.Join(dir, "c4.yaml")}, 2, "one of --orderer-msp and --crypto"},
		{"cryptogen-config without --out", []string{"cryptogen-config", "--topology", topo}, 2, "--topology and --out are required"},
		{"local-connection without --crypto", []string{"local-connection", "--topology", topo, "--profile", "p", "--out", filepath.Join(dir, "n1.json")}, 2, "--crypto"},
		{"local-connection with both names of --home", []string{"local-connection", "--topology", topo, "--crypto", dir, "--profile", "p", "--home", dir, "--run-dir", dir, "--out", filepath.Join(dir, "n3.json")}, 2, "not both"},
		{"package without --address", []string{"package", "--label", "ballot_1.0", "--out", filepath.Join(dir, "p.tgz")}, 2, "--label, --address and --out are required"},
		{"ops without a path", []string{"ops", "--topology", topo, "--crypto", dir, "orderer0"}, 2, "want NODE PATH"},
		{"ops of an unknown node", []string{"ops", "--topology", topo, "--crypto", dir, "orderer9", "/healthz"}, 1, `no orderer or peer "orderer9"`},
		{"wait-orderer without --home", []string{"wait-orderer", "--topology", topo, "--crypto", dir, "orderer0"}, 2, "--home is required"},
		{"node without a subcommand", []string{"node"}, 2, "usage: fabnet node SUBCOMMAND"},
		{"node without --home", []string{"node", "status"}, 2, "--home is required"},
		{"node with an unknown subcommand", []string{"node", "launch"}, 2, `unknown command "launch"`},
		{"node define without a binary", []string{"node", "define", "--home", nodes, "--name", "n2", "--ready", "127.0.0.1:1"}, 2, "the binary are required"},
		{"node define with a bad environment entry", []string{"node", "define", "--home", nodes, "--name", "n2", "--ready", "127.0.0.1:1", "--env", "GOGC", "--", "/bin/true"}, 2, `"GOGC": want KEY=VALUE`},
		{"node start of an unknown node", []string{"node", "start", "--home", nodes, "orderer9"}, 1, `unknown node "orderer9"; nodes: n1`},
		{"node stop of an unknown node", []string{"node", "stop", "--home", nodes, "orderer9"}, 1, `unknown node "orderer9"; nodes: n1`},
		{"node pid of a stopped node", []string{"node", "pid", "--home", nodes, "n1"}, 1, "n1 is not running"},
		{"node stop without a name", []string{"node", "stop", "--home", nodes}, 2, "want NAME"},
		{"local-channel without a step", []string{"local-channel"}, 2, "usage: fabnet local-channel SUBCOMMAND"},
		{"local-channel with an unknown step", []string{"local-channel", "create"}, 2, `unknown command "create"`},
		{"local-channel without --home", []string{"local-channel", "join", "--topology", topo}, 2, "--topology and --home are required"},
		{"local-channel with a stray argument", []string{"local-channel", "join", "--topology", topo, "--home", dir, "now"}, 2, `unexpected argument "now"`},
		{"local-channel in a missing home", []string{"local-channel", "join", "--topology", topo, "--home", filepath.Join(dir, "none"), "--bin", fbin, "--config-src", fcfg}, 1, "not a directory"},
		{"local-channel without the peer CLI", []string{"local-channel", "join", "--topology", topo, "--home", dir, "--bin", fcfg, "--config-src", fcfg}, 1, "fcfg/peer not found: run 'make fabric'"},
		{"local-channel without core.yaml", []string{"local-channel", "join", "--topology", topo, "--home", dir, "--bin", fbin, "--config-src", fbin}, 1, "fbin/core.yaml not found"},
		{"local-channel deploy without --packages", []string{"local-channel", "deploy", "--topology", topo, "--home", dir}, 2, "--packages is required"},
		{"local-channel height without --org", []string{"local-channel", "height", "--topology", topo, "--home", dir}, 2, "--org is required"},
		{"local-connection of a bad topology", []string{"local-connection", "--topology", filepath.Join(dir, "none.json"), "--crypto", dir, "--profile", "p", "--out", filepath.Join(dir, "n2.json")}, 1, "none.json"},
		{"ports check of an unknown stack", []string{"ports", "check", "--stack", "mine"}, 1, `no stack "mine"`},
		{"ports env in a slot the stack lacks", []string{"ports", "env", "--slot", "9"}, 2, "--slot 9"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stderr := fabnetRun(tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Fatalf("fabnet %q: exit %d, stderr %q; want exit %d and %q", tc.args, code, stderr, tc.code, tc.want)
			}
		})
	}
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
