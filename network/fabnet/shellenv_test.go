package fabnet

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestShellEnv: the scripts' view of solo-org with the ballot contract,
// every line.
func TestShellEnv(t *testing.T) {
	top, err := Profile("solo-org", 7050, nil, []Chaincode{{Name: "ballot", Version: "1.0", Ballot: true}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := ShellEnv(top, EnvContext{Profile: "solo-org", BasePort: 7050})
	if err != nil {
		t.Fatal(err)
	}
	want := `PROFILE=solo-org
BASE_PORT=7050
PORT_PREFIX=7
CHANNEL=fabvote
WRITERS=
BATCH_SIZE=500
BATCH_TIMEOUT=250ms
BATCH_PREFERRED_BYTES=4 MB
BATCH_ABSOLUTE_BYTES=10 MB
ORDERER_ORG=orderer
ORDERER_MSPID=OrdererMSP
ORDERER_DOMAIN=orderer.fabvote.local
ORDERER_HOST=127.0.0.1
ORDERER_CA_PORT=7440
ORDERER_TLSCA=ordererOrganizations/orderer.fabvote.local/tlsca/tlsca.orderer.fabvote.local-cert.pem
ORDERER_ADMIN_MSP=ordererOrganizations/orderer.fabvote.local/users/Admin@orderer.fabvote.local/msp
ORDERER_ADMIN_TLS=ordererOrganizations/orderer.fabvote.local/users/Admin@orderer.fabvote.local/tls
ORDERERS=(orderer0)
ORDERER_HOSTS=(127.0.0.1)
ORDERER_PORTS=(7050)
ORDERER_ADMIN_PORTS=(7051)
ORDERER_OPS_PORTS=(7052)
ORGS=(ea)
ORG_MSPIDS=(EAMSP)
ORG_DOMAINS=(ea.fabvote.local)
ORG_HOSTS=(127.0.0.1)
ORG_CA_PORTS=(7350)
ORG_TLSCAS=(peerOrganizations/ea.fabvote.local/tlsca/tlsca.ea.fabvote.local-cert.pem)
ORG_ADMIN_MSPS=(peerOrganizations/ea.fabvote.local/users/Admin@ea.fabvote.local/msp)
ORG_CLIENT_TLS=(peerOrganizations/ea.fabvote.local/users/User1@ea.fabvote.local/tls)
PEERS=(peer0)
PEER_NODES=(peer0.ea)
PEER_TLS=(peerOrganizations/ea.fabvote.local/peers/peer0.ea.fabvote.local/tls)
PEER_PORTS=(7150)
PEER_CC_PORTS=(7151)
PEER_OPS_PORTS=(7152)
CHAINCODES=(ballot)
CC_HOSTS_0=(127.0.0.1)
CC_PORTS_0=(7153)
CC_OPS_PORTS_0=(7250)
`
	if got != want {
		t.Errorf("ShellEnv(solo-org):\n%s\nwant:\n%s", got, want)
	}
}

// TestShellEnvLists: every list has one item per organisation (or
// orderer), in the topology's order, and a topology without a profile
// or a base gives neither.
func TestShellEnvLists(t *testing.T) {
	top := threeOrgs(t, map[string]string{"party2": "party2.example.org"})
	env, err := ShellEnv(top, EnvContext{})
	if err != nil {
		t.Fatal(err)
	}
	lines := map[string]string{}
	for _, l := range strings.Split(strings.TrimSuffix(env, "\n"), "\n") {
		name, v, _ := strings.Cut(l, "=")
		lines[name] = v
	}
	tests := []struct{ name, want string }{
		{"ORGS", "(ea party1 party2)"},
		{"ORG_HOSTS", "(127.0.0.1 127.0.0.1 party2.example.org)"},
		{"ORG_MSPIDS", "(EAMSP Party1MSP Party2MSP)"},
		{"ORDERERS", "(orderer0 orderer1 orderer2)"},
		{"ORDERER_PORTS", "(7050 7060 7070)"},
		{"PEER_PORTS", "(7150 7160 7170)"},
		{"PEER_NODES", "(peer0.ea peer0.party1 peer0.party2)"},
		{"CHAINCODES", "(ballot registry)"},
		{"CC_HOSTS_1", "(127.0.0.1 127.0.0.1 party2.example.org)"},
		{"CC_PORTS_1", "(7154 7164 7174)"},
		{"CC_OPS_PORTS_0", "(7250 7260 7270)"},
		{"CC_OPS_PORTS_1", "(0 0 0)"},
	}
	for _, tc := range tests {
		if lines[tc.name] != tc.want {
			t.Errorf("%s=%s, want %s", tc.name, lines[tc.name], tc.want)
		}
	}
	for _, name := range []string{"PROFILE", "BASE_PORT", "PORT_PREFIX"} {
		if _, ok := lines[name]; ok {
			t.Errorf("%s written for a topology without one", name)
		}
	}
}

// TestShellEnvRefused: a topology that fails its check, and a value a
// script could not read as it is, are errors, not lines.
func TestShellEnvRefused(t *testing.T) {
	bad := threeOrgs(t, nil)
	bad.Orgs[1].Name = "party/1"
	if _, err := ShellEnv(bad, EnvContext{}); err == nil || !strings.Contains(err.Error(), `"party/1"`) {
		t.Errorf("ShellEnv of an unchecked topology: %v, want its check's error", err)
	}
	tests := []struct {
		name  string
		write func(*shellEnv)
		want  string
	}{
		{"a newline in a scalar", func(e *shellEnv) { e.scalar("X", "a\nY=b") }, `X: "a\nY=b"`},
		{"a command substitution", func(e *shellEnv) { e.scalar("X", "$(rm -rf /)") }, `X: "$(rm -rf /)"`},
		{"a space in a list item", func(e *shellEnv) { e.list("XS", []string{"a", "b c"}) }, `XS: "b c"`},
		{"an empty list item", func(e *shellEnv) { e.list("XS", []string{""}) }, `XS: ""`},
		{"a name that is no variable", func(e *shellEnv) { e.scalar("CC_PORTS_my-cc", "1") }, `"CC_PORTS_my-cc" is not a variable name`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var e shellEnv
			tc.write(&e)
			e.scalar("AFTER", "ok")
			if e.err == nil || !strings.Contains(e.err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", e.err, tc.want)
			}
			if e.b.String() != "" {
				t.Errorf("wrote %q despite the error", e.b.String())
			}
		})
	}
}

// readTopology runs scripts/topology.sh's read_topology on out, as a
// fabnet that prints it, then the shell command after.
func readTopology(t *testing.T, out, after string) (string, error) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "env"), []byte(out), 0o600); err != nil {
		t.Fatal(err)
	}
	fake := filepath.Join(dir, "fabnet")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\n[ \"$1 $2\" = 'topology env' ] && exec cat \"$(dirname \"$0\")/env\"\nexit 2\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs("../../scripts/topology.sh")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "-c", `set -eu; . "$1"; read_topology T_ "$2" --profile x; `+after, "bash", script, fake)
	b, err := cmd.CombinedOutput()
	return string(b), err
}

// TestReadTopologyScript: what ShellEnv writes, the scripts read back as
// arrays and strings, and a line they cannot take as it is stops them.
func TestReadTopologyScript(t *testing.T) {
	top := threeOrgs(t, nil)
	env, err := ShellEnv(top, EnvContext{Profile: "three-orgs", BasePort: 7050})
	if err != nil {
		t.Fatal(err)
	}
	got, err := readTopology(t, env, `echo "${#T_ORGS[@]} ${T_ORGS[2]} ${T_PEER_PORTS[1]} ${#T_CC_OPS_PORTS_1[@]} [$T_BATCH_PREFERRED_BYTES] [$T_WRITERS] $(topo_get T_ORG_MSPIDS T_ORGS party1)"`)
	if want := "3 party2 7160 3 [4 MB] [] Party1MSP\n"; err != nil || got != want {
		t.Errorf("read back: %q, %v; want %q", got, err, want)
	}
	tests := []struct{ name, line string }{
		{"a command substitution", "X=$(touch /tmp/owned)"},
		{"a line without a name", "=x"},
		{"a lower-case name", "x=1"},
		{"a list not closed", "XS=(a b"},
		{"a quote", "X='a'"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := readTopology(t, "A=1\n"+tc.line+"\n", `echo read`)
			if err == nil || !strings.Contains(out, "unexpected line from fabnet topology env: "+tc.line) {
				t.Fatalf("read_topology took %q: %q, %v", tc.line, out, err)
			}
		})
	}
}
