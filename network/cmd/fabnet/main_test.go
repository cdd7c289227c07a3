package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/network/fabnet"
	"github.com/fabvote/fabvote/network/fabrun"
)

func TestRunRefusesBadArguments(t *testing.T) {
	dir := t.TempDir()
	topo := filepath.Join(dir, "topology.json")
	if err := run([]string{"topology", "--profile", "three-orgs", "--chaincode", "ballot:ballot", "--out", topo}); err != nil {
		t.Fatal(err)
	}
	nodes := filepath.Join(dir, "nodes")
	if err := run([]string{"node", "define", "--home", nodes, "--name", "n1", "--ready", "127.0.0.1:1", "--", "/bin/true"}); err != nil {
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
		want string
	}{
		{"no step", nil, "want a step"},
		{"unknown step", []string{"launch", "--topology", topo, "--org", "ea", "--home", dir}, `unknown step "launch"`},
		{"no topology", []string{"peer", "--org", "ea", "--home", dir}, "--topology is required"},
		{"no home", []string{"peer", "--topology", topo, "--org", "ea"}, "--home is required"},
		{"org not in the topology", []string{"peer", "--topology", topo, "--org", "party9", "--home", dir}, `no organisation "party9"`},
		{"chaincode without binary", []string{"peer", "--topology", topo, "--org", "ea", "--home", filepath.Join(dir, "ea"), "--chaincode", "ballot"}, "want NAME=BINARY"},
		{"node-env without =", []string{"peer", "--topology", topo, "--org", "ea", "--home", dir, "--node-env", "GOGC"}, "want KEY=VALUE"},
		{"stray argument", []string{"peer", "--topology", topo, "--org", "ea", "--home", dir, "extra"}, `unexpected argument "extra"`},
		{"topology without --out", []string{"topology"}, "--out is required"},
		{"topology with an unknown org", []string{"topology", "--host", "party9=10.0.0.9", "--out", filepath.Join(dir, "t2.json")}, "party9"},
		{"topology with a bad host", []string{"topology", "--host", "ea=10.0.0.1,x", "--out", filepath.Join(dir, "t3.json")}, "neither an IP address"},
		{"topology with no batch", []string{"topology", "--batch-size", "0", "--out", filepath.Join(dir, "t4.json")}, "maxMessageCount"},
		{"add-org without an address", []string{"topology", "--from", topo, "--add-org", "party3", "--out", filepath.Join(dir, "t5.json")}, "want NAME=VALUE"},
		{"--from with --host", []string{"topology", "--from", topo, "--host", "ea=10.0.0.1", "--out", filepath.Join(dir, "t8.json")}, "--host does not apply with --from"},
		{"add-org of a member", []string{"topology", "--from", topo, "--add-org", "party1=10.0.0.9", "--out", filepath.Join(dir, "t6.json")}, "twice"},
		{"add-org without --new", []string{"add-org", "--topology", topo, "--org", "ea", "--home", filepath.Join(dir, "ea"), "--out", filepath.Join(dir, "u.pb")}, "--new and --out are required"},
		{"sign-update without --update", []string{"sign-update", "--topology", topo, "--org", "ea", "--home", filepath.Join(dir, "ea")}, "--update and --new are required"},
		{"configtx without --msp of an org", []string{"configtx", "--topology", topo, "--orderer-msp", dir, "--msp", "ea=" + dir,
			"--consenter-cert", "orderer0=c", "--consenter-cert", "orderer1=c", "--consenter-cert", "orderer2=c", "--out", filepath.Join(dir, "c1.yaml")}, "no MSP directory for party1"},
		{"configtx without a consenter", []string{"configtx", "--topology", topo, "--orderer-msp", dir, "--out", filepath.Join(dir, "c2.yaml")}, "no TLS certificate for orderer orderer0"},
		{"topology with a bad batch timeout", []string{"topology", "--batch-timeout", "soon", "--out", filepath.Join(dir, "t7.json")}, "timeout"},
		{"receive without --bundle", []string{"receive", "--topology", topo, "--org", "ea", "--home", dir, "--from", "party1"}, "are required"},
		{"receive from an org not in the topology", []string{"receive", "--topology", topo, "--org", "ea", "--home", dir, "--from", "party9", "--bundle", dir}, `no organisation "party9"`},
		{"down without --home", []string{"down"}, "--home is required"},
		{"containers with --host", []string{"topology", "--containers", "--host", "ea=10.0.0.1", "--out", filepath.Join(dir, "t9.json")}, "not with --from or --host"},
		{"configtx with --crypto and --msp", []string{"configtx", "--topology", topo, "--crypto", dir, "--msp", "ea=" + dir, "--out", filepath.Join(dir, "c3.yaml")}, "not with --msp"},
		{"configtx with --crypto and --orderer-msp", []string{"configtx", "--topology", topo, "--crypto", dir, "--orderer-msp", dir, "--out", filepath.Join(dir, "c4.yaml")}, "one of --orderer-msp and --crypto"},
		{"cryptogen-config without --out", []string{"cryptogen-config", "--topology", topo}, "--topology and --out are required"},
		{"local-connection without --crypto", []string{"local-connection", "--topology", topo, "--profile", "p", "--out", filepath.Join(dir, "n1.json")}, "--crypto"},
		{"package without --address", []string{"package", "--label", "ballot_1.0", "--out", filepath.Join(dir, "p.tgz")}, "--label, --address and --out are required"},
		{"ops without a path", []string{"ops", "--topology", topo, "--crypto", dir, "orderer0"}, "usage: fabnet ops"},
		{"ops of an unknown node", []string{"ops", "--topology", topo, "--crypto", dir, "orderer9", "/healthz"}, `no orderer or peer "orderer9"`},
		{"wait-orderer without --home", []string{"wait-orderer", "--topology", topo, "--crypto", dir, "orderer0"}, "--home DIR ORDERER"},
		{"node without a subcommand", []string{"node"}, "want a subcommand"},
		{"node without --home", []string{"node", "status"}, "--home is required"},
		{"node with an unknown subcommand", []string{"node", "launch", "--home", nodes}, `unknown subcommand "launch"`},
		{"node define without a binary", []string{"node", "define", "--home", nodes, "--name", "n2", "--ready", "127.0.0.1:1"}, "the binary are required"},
		{"node define with a bad environment entry", []string{"node", "define", "--home", nodes, "--name", "n2", "--ready", "127.0.0.1:1", "--env", "GOGC", "--", "/bin/true"}, `"GOGC": want KEY=VALUE`},
		{"node start of an unknown node", []string{"node", "start", "--home", nodes, "orderer9"}, `unknown node "orderer9"; nodes: n1`},
		{"node pid of a stopped node", []string{"node", "pid", "--home", nodes, "n1"}, "n1 is not running"},
		{"node stop without a name", []string{"node", "stop", "--home", nodes}, "usage: fabnet node stop"},
		{"local-channel without a step", []string{"local-channel"}, "want join, deploy or height"},
		{"local-channel with an unknown step", []string{"local-channel", "create", "--topology", topo, "--home", dir}, `unknown step "create"`},
		{"local-channel without --home", []string{"local-channel", "join", "--topology", topo}, "--topology and --home are required"},
		{"local-channel with a stray argument", []string{"local-channel", "join", "--topology", topo, "--home", dir, "now"}, `unexpected argument "now"`},
		{"local-channel in a missing home", []string{"local-channel", "join", "--topology", topo, "--home", filepath.Join(dir, "none"), "--bin", fbin, "--config-src", fcfg}, "not a directory"},
		{"local-channel without the peer CLI", []string{"local-channel", "join", "--topology", topo, "--home", dir, "--bin", fcfg, "--config-src", fcfg}, "fcfg/peer not found: run 'make fabric'"},
		{"local-channel without core.yaml", []string{"local-channel", "join", "--topology", topo, "--home", dir, "--bin", fbin, "--config-src", fbin}, "fbin/core.yaml not found"},
		{"local-channel deploy without --packages", []string{"local-channel", "deploy", "--topology", topo, "--home", dir}, "--packages is required"},
		{"local-channel height without --org", []string{"local-channel", "height", "--topology", topo, "--home", dir}, "--org is required"},
		{"local-connection of a bad topology", []string{"local-connection", "--topology", filepath.Join(dir, "none.json"), "--crypto", dir, "--profile", "p", "--out", filepath.Join(dir, "n2.json")}, "none.json"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := run(tc.args)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("run(%q) = %v, want an error containing %q", tc.args, err, tc.want)
			}
		})
	}
	if names, err := (fabrun.Home{Dir: nodes}).DefinedNodes(); err != nil || len(names) != 1 {
		t.Errorf("refused node definitions were recorded: %v, %v", names, err)
	}
	for _, f := range []string{"t2.json", "t3.json", "t4.json", "t5.json", "t6.json", "t7.json", "t8.json", "t9.json", "u.pb", "c1.yaml", "c2.yaml", "c3.yaml", "c4.yaml", "n1.json", "n2.json", "p.tgz"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("a refused topology command wrote %s", f)
		}
	}
}

func TestTopologyAddOrg(t *testing.T) {
	dir := t.TempDir()
	topo := filepath.Join(dir, "topology.json")
	if err := run([]string{"topology", "--profile", "three-orgs", "--chaincode", "ballot:ballot", "--out", topo}); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"topology", "--from", topo, "--add-org", "party3=10.0.0.14", "--out", topo}); err != nil {
		t.Fatal(err)
	}
	// A topology on another base port keeps its plan for the added org.
	topo9 := filepath.Join(dir, "topology-9050.json")
	if err := run([]string{"topology", "--profile", "three-orgs", "--base-port", "9050", "--out", topo9}); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"topology", "--from", topo9, "--add-org", "party3=10.0.0.14", "--out", topo9}); err != nil {
		t.Fatal(err)
	}
	if t9, err := fabnet.Load(topo9); err != nil || t9.Orgs[3].Peer.Port != 9180 {
		t.Fatalf("party3 on a 9050 plan: %v, %v", t9, err)
	}
	if err := run([]string{"topology", "--from", topo, "--out", topo}); err != nil {
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
	err := run([]string{"topology", "--profile", "three-orgs", "--base-port", "9050", "--host", "party1=10.0.0.12",
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
