package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/fabvote/fabvote/network/fabnet"
	"github.com/fabvote/fabvote/network/fabrun"
)

// fakeLocalBins lays out what local-up looks for: Fabric's binaries (the
// peer a script printing version), the CA binaries, the configuration
// and the network tools. None of them is run by a refused up.
func fakeLocalBins(t *testing.T, dir string, forkPeer bool) (bin, cfg, tools string) {
	t.Helper()
	bin, cfg, tools = filepath.Join(dir, "bin"), filepath.Join(dir, "config"), filepath.Join(dir, "tools")
	for _, d := range []string{bin, cfg, tools} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	version := "peer:\n Version: 2.5.0\n"
	if forkPeer {
		version += " fabvote patch series\n"
	}
	write := func(path, text string, mode os.FileMode) {
		if err := os.WriteFile(path, []byte(text), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(bin, "peer"), "#!/bin/sh\nprintf '"+strings.ReplaceAll(version, "\n", `\n`)+"'\n", 0o755)
	for _, b := range []string{"orderer", "configtxgen", "osnadmin", "cryptogen", "fabric-ca-server", "fabric-ca-client"} {
		write(filepath.Join(bin, b), "#!/bin/sh\nexit 1\n", 0o755)
	}
	write(filepath.Join(cfg, "core.yaml"), "peer:\n  handlers:\n    validators:\n      ballotvscc:\n        name: BallotValidation\n", 0o644)
	write(filepath.Join(cfg, "orderer.yaml"), "General: {}\n", 0o644)
	for _, tool := range localTools {
		write(filepath.Join(tools, tool), "#!/bin/sh\n", 0o755)
	}
	return bin, cfg, tools
}

// TestLocalUpRefusals: each kind of bad input is refused with an error
// naming it, before the run directory is touched: an existing one keeps
// its files, a new one is never made.
func TestLocalUpRefusals(t *testing.T) {
	dir := t.TempDir()
	bin, cfg, tools := fakeLocalBins(t, dir, true)
	stockBin, _, _ := fakeLocalBins(t, filepath.Join(dir, "stock"), false)
	notRunDir := filepath.Join(dir, "notrun")
	if err := os.MkdirAll(notRunDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(notRunDir, "keep"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	stockCfg := filepath.Join(dir, "stockcfg")
	if err := os.MkdirAll(stockCfg, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"core.yaml", "orderer.yaml"} {
		if err := os.WriteFile(filepath.Join(stockCfg, f), []byte("peer: {}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	busyBase := ln.Addr().(*net.TCPAddr).Port - 100 // peer0.ea's port is base+100
	eight := []string{}
	for i := range 8 {
		eight = append(eight, "--chaincode", "cc"+strconv.Itoa(i)+"=./x")
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no home", []string{"--home", ""}, "--home and --tools are required"},
		{"unknown profile", []string{"--profile", "five-orgs"}, `profile "five-orgs"`},
		{"bad validation plugin", []string{"--validation-plugin", "fast"}, `--validation-plugin "fast"`},
		{"chaincode without package", []string{"--chaincode", "ballot"}, `chaincode "ballot": want name=./go/package/path`},
		{"chaincode with a bad name", []string{"--chaincode", "Ballot=./x"}, `chaincode "Ballot=./x"`},
		{"too many chaincodes", eight, "at most 7 chaincode services"},
		{"unknown stack", []string{"--stack", "mine"}, `no stack "mine" in the port plan`},
		{"a base over another stack", []string{"--base-port", "8100"}, "BASE_PORT=8100 puts the default network's ports 8100-8599 over stack e2e's 8050-8549"},
		{"peer-env without org", []string{"--peer-env", "GOGC=50"}, `--peer-env "GOGC=50": want ORG=KEY=VALUE`},
		{"peer-env of an org not in the profile", []string{"--peer-env", "party2=GOGC=50"}, `--peer-env "party2=GOGC=50"`},
		{"node-env without =", []string{"--node-env", "GOGC"}, `environment entry "GOGC": want KEY=VALUE`},
		{"bad identities", []string{"--identities", "pki"}, `--identities "pki": want ca or cryptogen`},
		{"missing Fabric binaries", []string{"--bin", filepath.Join(dir, "nowhere")}, "nowhere/peer not found: run 'make fabric'"},
		{"stock peer, fork configuration", []string{"--bin", stockBin}, "is not the fork's peer"},
		{"plugin without the fork's configuration", []string{"--validation-plugin", "ballotvscc", "--config-src", stockCfg}, "stockcfg/core.yaml registers no ballotvscc validator"},
		{"a directory that is not a run dir", []string{"--home", notRunDir}, "is not a network run dir"},
		{"ports in use", []string{"--base-port", strconv.Itoa(busyBase)}, fmt.Sprintf("port 127.0.0.1:%d, for default: ea's peer (gRPC), is taken by pid %d", busyBase+100, os.Getpid())},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			runDir := filepath.Join(dir, "run-"+strings.ReplaceAll(tc.name, " ", "-"))
			args := []string{"--home", runDir, "--tools", tools, "--bin", bin, "--ca-bin", bin, "--config-src", cfg, "--base-port", "39050"}
			err := fabnetErr(append([]string{"local-up"}, append(args, tc.args...)...))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to name %q", err, tc.want)
			}
			if _, err := os.Stat(runDir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the refused up made %s", runDir)
			}
			if b, err := os.ReadFile(filepath.Join(notRunDir, "keep")); err != nil || string(b) != "mine" {
				t.Errorf("a file of %s changed: %q, %v", notRunDir, b, err)
			}
			for _, tool := range localTools {
				if _, err := os.Stat(filepath.Join(tools, tool)); err != nil {
					t.Errorf("the refused up took the tools away: %v", err)
				}
			}
		})
	}
}

// TestLocalUpStateEnv: the settings later net.sh commands source come back
// unchanged through bash's quoting, whatever they hold.
func TestLocalUpStateEnv(t *testing.T) {
	u := newLocalUp(pflag.NewFlagSet("local-up", pflag.ContinueOnError))
	u.profile, u.basePort = "solo-org", 7050
	u.fabric.Fabric, u.fabric.ConfigSrc = "/opt/it's here/bin", "/cfg"
	u.batch.Timeout, u.batch.PreferredMaxBytes = "250ms", "4 MB"
	u.chaincodes = []string{"ballot=./chaincode/ballot/cmd/ballot-cc", "kv=./x"}
	tp, err := u.topology()
	if err != nil {
		t.Fatal(err)
	}
	got := string(u.stateEnv(tp))
	for _, want := range []string{`FABRIC_BIN='/opt/it'\''s here/bin'`, "BATCH_PREFERRED_BYTES='4 MB'",
		"CHAINCODES='ballot=./chaincode/ballot/cmd/ballot-cc kv=./x'", "CHANNEL='fabvote'", "BASE_PORT='7050'"} {
		if !strings.Contains(got, want+"\n") {
			t.Errorf("state.env lacks %s:\n%s", want, got)
		}
	}
}

// TestLocalUpTopology: the ballot contract, and only it, names the
// validation plugin; the version applies to every definition.
func TestLocalUpTopology(t *testing.T) {
	u := newLocalUp(pflag.NewFlagSet("local-up", pflag.ContinueOnError))
	u.chaincodes = []string{"ballot=" + ballotPackage, "kv=./chaincode/kvtransfer/cmd/kvtransfer-cc"}
	u.validation, u.version = "ballotvscc", "2.1"
	tp, err := u.topology()
	if err != nil {
		t.Fatal(err)
	}
	b, kv := tp.Chaincodes[0], tp.Chaincodes[1]
	if !b.Ballot || b.ValidationPlugin != "ballotvscc" || b.Version != "2.1" {
		t.Errorf("ballot: %+v", b)
	}
	if kv.Ballot || kv.ValidationPlugin != "" || kv.Version != "2.1" {
		t.Errorf("kv: %+v", kv)
	}
}

// TestLocalUpRefusesARunningNetwork: a run directory whose nodes still run
// is neither replaced nor touched.
func TestLocalUpRefusesARunningNetwork(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	out, err := exec.Command(py, "-c", "import os, sys; print(os.path.realpath(sys.executable))").Output()
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	bin, cfg, tools := fakeLocalBins(t, dir, true)
	runDir := filepath.Join(dir, "run")
	h := fabrun.Home{Dir: runDir}
	if err := os.MkdirAll(runDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(runDir, "profile"), []byte("solo-org\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	script := "import socket, time\ns = socket.socket()\ns.bind(('127.0.0.1', " + strconv.Itoa(port) + "))\ns.listen()\ntime.sleep(120)\n"
	p := fabnet.Proc{Name: "orderer0", Path: strings.TrimSpace(string(out)), Args: []string{"-c", script},
		Dir: h.Node("orderer0"), Ready: "127.0.0.1:" + strconv.Itoa(port)}
	if err := h.Define(p); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := h.Start(ctx, p); err != nil {
		t.Fatal(err)
	}
	defer h.StopAll(2 * time.Second)
	// Its port is orderer0's: the running node, not the port, is named.
	err = fabnetErr([]string{"local-up", "--home", runDir, "--tools", tools, "--bin", bin, "--ca-bin", bin, "--config-src", cfg, "--base-port", strconv.Itoa(port)})
	if err == nil || !strings.Contains(err.Error(), "a network is already up in "+runDir+" (orderer0 is running)") {
		t.Fatalf("err = %v, want it to say that orderer0 runs", err)
	}
	if _, ok := h.Running("orderer0"); !ok {
		t.Error("the refused up stopped the running node")
	}
	if _, err := os.Stat(filepath.Join(runDir, "profile")); err != nil {
		t.Errorf("the refused up touched the run dir: %v", err)
	}
}

// TestLocalUpRefusesAPathItCannotUse: a run dir whose path could not go
// into node configuration is refused before anything of it is removed.
func TestLocalUpRefusesAPathItCannotUse(t *testing.T) {
	dir := t.TempDir()
	bin, cfg, tools := fakeLocalBins(t, dir, true)
	runDir := filepath.Join(dir, "my run")
	if err := os.MkdirAll(runDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(runDir, "profile"), []byte("solo-org\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := fabnetErr([]string{"local-up", "--run-dir", runDir, "--tools", tools, "--bin", bin, "--ca-bin", bin, "--config-src", cfg, "--base-port", "39050"})
	if err == nil || !strings.Contains(err.Error(), "use letters, digits") {
		t.Fatalf("err = %v, want the path refused", err)
	}
	if _, err := os.Stat(filepath.Join(runDir, "profile")); err != nil {
		t.Errorf("the refused up removed the run dir: %v", err)
	}
}

// TestLocalUpRemovesItsTemporaryTools: with --remove-tools the build
// directory goes, whether the up is refused or not.
func TestLocalUpRemovesItsTemporaryTools(t *testing.T) {
	dir := t.TempDir()
	bin, cfg, _ := fakeLocalBins(t, dir, true)
	_, _, tools := fakeLocalBins(t, filepath.Join(dir, "build"), true)
	err := fabnetErr([]string{"local-up", "--home", filepath.Join(dir, "run"), "--tools", tools, "--remove-tools",
		"--bin", bin, "--ca-bin", bin, "--config-src", cfg, "--validation-plugin", "fast"})
	if err == nil {
		t.Fatal("the up was not refused")
	}
	if _, err := os.Stat(tools); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s is still there after a refused up with --remove-tools (%v)", tools, err)
	}
}
