package fabnet

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// fakeLifecycle writes a peer CLI and an osnadmin that keep a network's
// state in files under their directory (joined channels, installed
// packages, approvals by sequence, the committed sequence) and log every
// call that changes it, one line each, to calls.log.
func fakeLifecycle(t *testing.T) (bin string, calls func() []string) {
	t.Helper()
	bin = t.TempDir()
	peer := `#!/bin/sh
S=` + bin + `
seq=; pkg=
for a in "$@"; do case $prev in --sequence) seq=$a;; esac; prev=$a; done
last=$(eval echo \${$#})
case "$1 $2 $3" in
"channel list "*) [ -f $S/joined.$CORE_PEER_LOCALMSPID ] && printf 'Channels peers has joined: \nfabvote\n'; exit 0;;
"channel join "*) touch $S/joined.$CORE_PEER_LOCALMSPID; echo "join $CORE_PEER_LOCALMSPID" >> $S/calls.log;;
"channel getinfo "*) [ -f $S/joined.$CORE_PEER_LOCALMSPID ] || exit 1; echo 'Blockchain info: {"height":3}';;
"lifecycle chaincode calculatepackageid") echo "ballot:$(basename $4)";;
"lifecycle chaincode queryinstalled") cat $S/installed.$CORE_PEER_LOCALMSPID 2>/dev/null; exit 0;;
"lifecycle chaincode install") echo "Package ID: ballot:$(basename $4), Label: ballot" >> $S/installed.$CORE_PEER_LOCALMSPID
  echo "install $CORE_PEER_LOCALMSPID $(basename $4)" >> $S/calls.log;;
"lifecycle chaincode approveformyorg") touch $S/approved.$CORE_PEER_LOCALMSPID.$seq; echo "approve $CORE_PEER_LOCALMSPID $seq" >> $S/calls.log;;
"lifecycle chaincode checkcommitreadiness")
  printf '{"approvals":{'; sep=
  for m in EAMSP Party1MSP Party2MSP; do v=false; [ -f $S/approved.$m.$seq ] && v=true; printf '%s"%s":%s' "$sep" $m $v; sep=,; done
  echo '}}';;
"lifecycle chaincode commit") echo $seq > $S/committed; echo "commit $seq" >> $S/calls.log;;
"lifecycle chaincode querycommitted") [ -f $S/committed ] || { echo "Error: query failed with status: 404 - namespace ballot is not defined"; exit 1; }
  echo "{\"sequence\":$(cat $S/committed),\"version\":\"x\"}";;
*) echo "fake peer: $*" >&2; exit 1;;
esac
`
	osn := `#!/bin/sh
S=` + bin + `
o=; for a in "$@"; do case $prev in -o) o=$a;; esac; prev=$a; done
case "$1 $2" in
"channel list") [ -f $S/osn.$o ] && echo '{"name": "fabvote", "status": "active"}' || echo 'Status: 404'; exit 0;;
"channel join") touch $S/osn.$o; echo "osnjoin $o" >> $S/calls.log;;
esac
`
	for name, text := range map[string]string{"peer": peer, "osnadmin": osn} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(text), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return bin, func() []string {
		b, _ := os.ReadFile(filepath.Join(bin, "calls.log"))
		os.Remove(filepath.Join(bin, "calls.log"))
		return strings.Fields(strings.ReplaceAll(strings.TrimSpace(string(b)), " ", "_"))
	}
}

// channelHome is a shared home with a genesis block and a package per org.
func channelHome(t *testing.T) (*Topology, Home) {
	t.Helper()
	top, err := Profile("three-orgs", 7050, nil, []Chaincode{{Name: "ballot", Version: "1.0", Ballot: true}})
	if err != nil {
		t.Fatal(err)
	}
	h, err := OpenLocalHome(t.TempDir(), top)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"configtx/fabvote.block", "packages/ballot.ea.tgz", "packages/ballot.party1.tgz", "packages/ballot.party2.tgz"} {
		p := h.path(f)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return top, h
}

func TestJoinChannelSkipsWhatIsDone(t *testing.T) {
	top, h := channelHome(t)
	bin, calls := fakeLifecycle(t)
	tools := Tools{Fabric: bin, ConfigSrc: t.TempDir()}
	if err := JoinChannel(context.Background(), top, h, tools); err != nil {
		t.Fatal(err)
	}
	want := "osnjoin_127.0.0.1:7051 osnjoin_127.0.0.1:7061 osnjoin_127.0.0.1:7071 join_EAMSP join_Party1MSP join_Party2MSP"
	if got := strings.Join(calls(), " "); got != want {
		t.Errorf("first join: %s, want %s", got, want)
	}
	if err := JoinChannel(context.Background(), top, h, tools); err != nil {
		t.Fatal(err)
	}
	if got := calls(); len(got) != 0 {
		t.Errorf("second join changed %v; every node had joined", got)
	}
	if n, err := Height(context.Background(), top, h, tools, "party1"); err != nil || n != 3 {
		t.Errorf("Height(party1) = %d, %v; want 3", n, err)
	}
}

func TestDeploySkipsWhatIsDoneAndUpgrades(t *testing.T) {
	top, h := channelHome(t)
	bin, calls := fakeLifecycle(t)
	tools := Tools{Fabric: bin, ConfigSrc: t.TempDir()}
	pkgs := func(dir string) func(string) string {
		return func(org string) string { return h.path(dir, "ballot."+org+".tgz") }
	}
	d := Deployment{Chaincode: "ballot", Sequence: 1, Package: pkgs("packages")}
	steps := []struct {
		name   string
		before func()
		d      Deployment
		want   string
	}{
		{"fresh", nil, d,
			"install_EAMSP_ballot.ea.tgz approve_EAMSP_1 install_Party1MSP_ballot.party1.tgz approve_Party1MSP_1 install_Party2MSP_ballot.party2.tgz approve_Party2MSP_1 commit_1"},
		{"again", nil, d, ""},
		{"upgrade", func() {
			if err := os.Rename(h.path("packages"), h.path("v2")); err != nil {
				t.Fatal(err)
			}
		}, Deployment{Chaincode: "ballot", Version: "1.1", Sequence: 2, Package: pkgs("v2")},
			"install_EAMSP_ballot.ea.tgz approve_EAMSP_2 install_Party1MSP_ballot.party1.tgz approve_Party1MSP_2 install_Party2MSP_ballot.party2.tgz approve_Party2MSP_2 commit_2"},
		{"an older sequence", nil, d, ""},
	}
	// The fake names a package by its file name: the upgrade's packages
	// are new ones only if their files are, so reset what was installed.
	for _, s := range steps {
		if s.before != nil {
			s.before()
			for _, m := range []string{"EAMSP", "Party1MSP", "Party2MSP"} {
				os.Remove(filepath.Join(bin, "installed."+m))
			}
		}
		if err := Deploy(context.Background(), top, h, tools, s.d); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if got := strings.Join(calls(), " "); got != s.want {
			t.Errorf("%s: %s, want %s", s.name, got, s.want)
		}
	}
}

func TestDeployFinishesAHalfDoneDeployment(t *testing.T) {
	top, h := channelHome(t)
	bin, calls := fakeLifecycle(t)
	tools := Tools{Fabric: bin, ConfigSrc: t.TempDir()}
	// The authority installed and approved before the run was cut short.
	os.WriteFile(filepath.Join(bin, "installed.EAMSP"), []byte("Package ID: ballot:ballot.ea.tgz, Label: ballot\n"), 0o600)
	os.WriteFile(filepath.Join(bin, "approved.EAMSP.1"), nil, 0o600)
	d := Deployment{Chaincode: "ballot", Sequence: 1, Package: func(org string) string { return h.path("packages", "ballot."+org+".tgz") }}
	if err := Deploy(context.Background(), top, h, tools, d); err != nil {
		t.Fatal(err)
	}
	want := "install_Party1MSP_ballot.party1.tgz approve_Party1MSP_1 install_Party2MSP_ballot.party2.tgz approve_Party2MSP_1 commit_1"
	if got := strings.Join(calls(), " "); got != want {
		t.Errorf("%s, want %s", got, want)
	}
}

func TestDeployRefusals(t *testing.T) {
	top, h := channelHome(t)
	bin, calls := fakeLifecycle(t)
	tools := Tools{Fabric: bin, ConfigSrc: t.TempDir()}
	pkg := func(org string) string { return h.path("packages", "ballot."+org+".tgz") }
	notShared, err := NewHome(t.TempDir(), "ea")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		h    Home
		d    Deployment
		want string
	}{
		{"sequence 0", h, Deployment{Chaincode: "ballot", Package: pkg}, `sequence 0`},
		{"unknown chaincode", h, Deployment{Chaincode: "tally", Sequence: 1, Package: pkg}, `no chaincode "tally"`},
		{"one org's home", notShared, Deployment{Chaincode: "ballot", Sequence: 1, Package: pkg}, `holds every organisation`},
		{"missing package", h, Deployment{Chaincode: "ballot", Sequence: 1,
			Package: func(org string) string { return h.path("nowhere", org+".tgz") }}, `nowhere/ea.tgz`},
		{"the last org's package missing", h, Deployment{Chaincode: "ballot", Sequence: 1, Package: func(org string) string {
			if org == "party2" {
				return h.path("nowhere", org+".tgz")
			}
			return pkg(org)
		}}, `nowhere/party2.tgz`},
	}
	for _, c := range cases {
		err := Deploy(context.Background(), top, c.h, tools, c.d)
		if err == nil || !regexp.MustCompile(regexp.QuoteMeta(c.want)).MatchString(err.Error()) {
			t.Errorf("%s: %v, want an error naming %q", c.name, err, c.want)
		}
		if got := calls(); len(got) != 0 {
			t.Errorf("%s: changed %v", c.name, got)
		}
	}
}

func TestOpenLocalHomeLeavesModes(t *testing.T) {
	top, err := Profile("three-orgs", 7050, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "docker")
	if _, err := OpenLocalHome(dir, top); err == nil {
		t.Error("OpenLocalHome made a home that did not exist")
	}
	if err := os.Mkdir(dir, 0o750); err != nil {
		t.Fatal(err)
	}
	h, err := OpenLocalHome(dir, top)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o750 {
		t.Errorf("mode after OpenLocalHome: %v, %v; want 0750 as it was", fi.Mode().Perm(), err)
	}
	if got, want := h.as("party1").Crypto(), filepath.Join(dir, "crypto", "peerOrganizations", "party1.fabvote.local"); got != want {
		t.Errorf("party1's crypto: %s, want %s", got, want)
	}
}
