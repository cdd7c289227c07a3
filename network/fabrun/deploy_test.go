package fabrun

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fabvote/fabvote/network/fabnet"
)

// fakeLifecycle writes a peer CLI and an osnadmin that keep a network's
// state in files under their directory (joined channels, installed
// packages, approvals by sequence, the committed definition) and log
// every call that changes it, one line each, to calls.log. They refuse
// what Fabric refuses: a repeated join (osnadmin answers 405 with exit
// status 0), an approval without a package or of unchanged content, a
// commit that is not the next sequence. A file named lose-reply.<verb>
// makes the next such call take effect but fail, as a CLI that timed out
// waiting for its block does.
func fakeLifecycle(t *testing.T) (bin string, calls func() []string) {
	t.Helper()
	bin = t.TempDir()
	peer := `#!/bin/sh
S=` + bin + `
M=$CORE_PEER_LOCALMSPID
seq=; ver=; pkgid=
for a in "$@"; do case $prev in --sequence) seq=$a;; --version) ver=$a;; --package-id) pkgid=$a;; esac; prev=$a; done
lose() { [ -f $S/lose-reply.$1 ] && { rm $S/lose-reply.$1; echo "Error: timed out waiting for txid on all peers"; exit 1; }; true; }
case "$1 $2 $3" in
"channel list "*) printf 'Channels peers has joined: \n'; [ -f $S/joined.$M ] && echo fabvote; exit 0;;
"channel join "*) [ -f $S/joined.$M ] && { echo "Error: ledger [fabvote] already exists"; exit 1; }
  touch $S/joined.$M; echo "join $M" >> $S/calls.log; lose join;;
"channel getinfo "*) [ -f $S/joined.$M ] || exit 1; echo 'Blockchain info: {"height":3}';;
"lifecycle chaincode calculatepackageid") [ -f "$4" ] || { echo "Error: failed to read chaincode package at '$4'"; exit 1; }
  echo "ballot:$(basename $(dirname $4))/$(basename $4)";;
"lifecycle chaincode queryinstalled") cat $S/installed.$M 2>/dev/null; exit 0;;
"lifecycle chaincode install") id="ballot:$(basename $(dirname $4))/$(basename $4)"
  grep -q "$id," $S/installed.$M 2>/dev/null && { echo "Error: chaincode already successfully installed"; exit 1; }
  echo "Package ID: $id, Label: ballot" >> $S/installed.$M; echo "install $M $id" >> $S/calls.log; lose install;;
"lifecycle chaincode approveformyorg") [ -n "$pkgid" ] && [ -n "$ver" ] || { echo "Error: no package id or version"; exit 1; }
  [ "$(cat $S/approved.$M.$seq 2>/dev/null)" = "$pkgid" ] && { echo "Error: attempted to redefine uncommitted sequence ($seq) with unchanged content"; exit 1; }
  echo "$pkgid" > $S/approved.$M.$seq; echo "approve $M $seq $ver $pkgid" >> $S/calls.log; lose approve;;
"lifecycle chaincode queryapproved") [ -f $S/approved.$M.$seq ] || { echo "Error: query failed with status: 500 - could not fetch approved chaincode definition"; exit 1; }
  echo "Approved chaincode definition for chaincode 'ballot' on channel 'fabvote':"
  echo "sequence: $seq, version: x, init-required: false, package-id: $(cat $S/approved.$M.$seq), endorsement plugin: escc, validation plugin: vscc";;
"lifecycle chaincode checkcommitreadiness")
  printf '{\n\t"approvals": {'; sep=
  for m in EAMSP Party1MSP Party2MSP; do v=false; [ -f $S/approved.$m.$seq ] && v=true; printf '%s"%s": %s' "$sep" $m $v; sep=,; done
  printf '}\n}\n';;
"lifecycle chaincode commit") have=0; [ -f $S/committed ] && have=$(cut -d' ' -f1 $S/committed)
  [ "$seq" = $((have + 1)) ] || { echo "Error: new definition must be sequence $((have + 1))"; exit 1; }
  echo "$seq $ver" > $S/committed; echo "commit $seq $ver" >> $S/calls.log; lose commit;;
"lifecycle chaincode querycommitted") [ -f $S/committed ] || { echo "Error: query failed with status: 404 - namespace ballot is not defined"; exit 1; }
  read s v < $S/committed; echo "Warning: a warning line"; printf '{\n\t"sequence": %s,\n\t"version": "%s"\n}\n' $s $v;;
*) echo "fake peer: $*" >&2; exit 1;;
esac
`
	osn := `#!/bin/sh
S=` + bin + `
o=; for a in "$@"; do case $prev in -o) o=$a;; esac; prev=$a; done
case "$1 $2" in
"channel list") if [ -f $S/osn.$o ]; then printf 'Status: 200\n{\n\t"name": "fabvote",\n\t"status": "active"\n}\n'
  else printf 'Status: 404\n{\n\t"error": "channel not found"\n}\n'; fi;;
"channel join") if [ -f $S/osn.$o ]; then printf 'Status: 405\n{\n\t"error": "cannot join: channel already exists"\n}\n'
  else touch $S/osn.$o; echo "osnjoin $o" >> $S/calls.log; printf 'Status: 201\n{\n\t"name": "fabvote"\n}\n'; fi;;
esac
exit 0
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
func channelHome(t *testing.T) (*fabnet.Topology, Home) {
	t.Helper()
	top, err := fabnet.Profile("three-orgs", 7050, nil, []fabnet.Chaincode{{Name: "ballot", Version: "1.0", Ballot: true}})
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

// logged collects what a step logs.
func logged() (func(format string, args ...any), func() string) {
	var lines []string
	return func(format string, args ...any) { lines = append(lines, fmt.Sprintf(format, args...)) },
		func() string { s := strings.Join(lines, "\n"); lines = nil; return s }
}

func TestJoinChannelSkipsWhatIsDone(t *testing.T) {
	top, h := channelHome(t)
	bin, calls := fakeLifecycle(t)
	tools := Tools{Fabric: bin, ConfigSrc: t.TempDir()}
	logf, log := logged()
	if err := JoinChannel(context.Background(), top, h, tools, logf); err != nil {
		t.Fatal(err)
	}
	want := "osnjoin_127.0.0.1:7051 osnjoin_127.0.0.1:7061 osnjoin_127.0.0.1:7071 join_EAMSP join_Party1MSP join_Party2MSP"
	if got := strings.Join(calls(), " "); got != want {
		t.Errorf("first join: %s, want %s", got, want)
	}
	if got := strings.Count(log(), ": joined fabvote"); got != 6 {
		t.Errorf("first join logged %d joins, want 6", got)
	}
	if err := JoinChannel(context.Background(), top, h, tools, logf); err != nil {
		t.Fatal(err)
	}
	if got := calls(); len(got) != 0 {
		t.Errorf("second join changed %v; every node had joined", got)
	}
	if got := strings.Count(log(), ": already a member of fabvote"); got != 6 {
		t.Errorf("second join logged %d members, want 6", got)
	}
	if n, err := Height(context.Background(), top, h, tools, "party1"); err != nil || n != 3 {
		t.Errorf("Height(party1) = %d, %v; want 3", n, err)
	}
}

func TestJoinChannelWhenAJoinsReplyIsLost(t *testing.T) {
	top, h := channelHome(t)
	bin, calls := fakeLifecycle(t)
	os.WriteFile(filepath.Join(bin, "lose-reply.join"), nil, 0o600)
	logf, _ := logged()
	if err := JoinChannel(context.Background(), top, h, Tools{Fabric: bin, ConfigSrc: t.TempDir()}, logf); err != nil {
		t.Fatal(err) // the retry sees the peer joined, instead of failing on "already exists"
	}
	if got := strings.Count(strings.Join(calls(), " "), "join_EAMSP"); got != 1 {
		t.Errorf("the authority's peer joined %d times, want 1", got)
	}
}

// WithWait bounds the waits inside the steps: a peer that never has the
// ledger fails the join after the bound, not after DefaultWait.
func TestJoinChannelWaitsAsLongAsItIsTold(t *testing.T) {
	top, h := channelHome(t)
	bin, _ := fakeLifecycle(t)
	never := "#!/bin/sh\ncase \"$1 $2\" in \"channel list\") echo 'Channels peers has joined: ';; \"channel join\") ;; *) exit 1;; esac\n"
	if err := os.WriteFile(filepath.Join(bin, "peer"), []byte(never), 0o700); err != nil {
		t.Fatal(err)
	}
	logf, _ := logged()
	start := time.Now()
	err := JoinChannel(WithWait(context.Background(), 600*time.Millisecond), top, h, Tools{Fabric: bin, ConfigSrc: t.TempDir()}, logf)
	if err == nil || !strings.Contains(err.Error(), "waited 600ms for ea's peer to have the channel's ledger") {
		t.Fatalf("JoinChannel = %v, want the 600 ms wait for ea's ledger to fail", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("JoinChannel took %v with a 600 ms bound", d)
	}
}

// deployment is d for the fake's network, with its packages in dir.
func deployment(h Home, dir, version string, sequence int) Deployment {
	return Deployment{Chaincode: "ballot", Version: version, Sequence: sequence,
		Package: func(org string) string { return h.path(dir, "ballot."+org+".tgz") }}
}

// deployCalls are the changes a whole deployment of the packages in dir
// makes: for each org an install (unless installed) and an approval,
// then the commit.
func deployCalls(dir, version string, sequence int, install bool) string {
	var c []string
	for _, o := range []struct{ org, msp string }{{"ea", "EAMSP"}, {"party1", "Party1MSP"}, {"party2", "Party2MSP"}} {
		id := "ballot:" + dir + "/ballot." + o.org + ".tgz"
		if install {
			c = append(c, "install_"+o.msp+"_"+id)
		}
		c = append(c, fmt.Sprintf("approve_%s_%d_%s_%s", o.msp, sequence, version, id))
	}
	return strings.Join(append(c, fmt.Sprintf("commit_%d_%s", sequence, version)), " ")
}

func TestDeploySkipsWhatIsDoneAndUpgrades(t *testing.T) {
	top, h := channelHome(t)
	bin, calls := fakeLifecycle(t)
	tools := Tools{Fabric: bin, ConfigSrc: t.TempDir()}
	if err := os.CopyFS(h.path("v2"), os.DirFS(h.path("packages"))); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name string
		d    Deployment
		want string
	}{
		{"fresh", deployment(h, "packages", "", 1), deployCalls("packages", "1.0", 1, true)},
		{"again", deployment(h, "packages", "", 1), ""},
		{"upgrade with new packages", deployment(h, "v2", "1.1", 2), deployCalls("v2", "1.1", 2, true)},
		{"an older sequence", deployment(h, "packages", "", 1), ""},
		{"the same packages, next sequence", deployment(h, "v2", "1.2", 3), deployCalls("v2", "1.2", 3, false)},
	}
	for _, s := range steps {
		if err := Deploy(context.Background(), top, h, tools, s.d); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if got := strings.Join(calls(), " "); got != s.want {
			t.Errorf("%s:\n got %s\nwant %s", s.name, got, s.want)
		}
	}
}

func TestDeployFinishesAHalfDoneDeployment(t *testing.T) {
	top, h := channelHome(t)
	bin, calls := fakeLifecycle(t)
	tools := Tools{Fabric: bin, ConfigSrc: t.TempDir()}
	// The authority installed and approved before the run was cut short.
	os.WriteFile(filepath.Join(bin, "installed.EAMSP"), []byte("Package ID: ballot:packages/ballot.ea.tgz, Label: ballot\n"), 0o600)
	os.WriteFile(filepath.Join(bin, "approved.EAMSP.1"), []byte("ballot:packages/ballot.ea.tgz\n"), 0o600)
	if err := Deploy(context.Background(), top, h, tools, deployment(h, "packages", "", 1)); err != nil {
		t.Fatal(err)
	}
	want := strings.SplitN(deployCalls("packages", "1.0", 1, true), " ", 3)[2] // all but the authority's two
	if got := strings.Join(calls(), " "); got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
}

// An org that approved the sequence with another package (new packages
// before the commit) approves again with its current one.
func TestDeployApprovesANewPackageAgain(t *testing.T) {
	top, h := channelHome(t)
	bin, calls := fakeLifecycle(t)
	os.WriteFile(filepath.Join(bin, "approved.Party1MSP.1"), []byte("ballot:old/ballot.party1.tgz\n"), 0o600)
	if err := Deploy(context.Background(), top, h, Tools{Fabric: bin, ConfigSrc: t.TempDir()}, deployment(h, "packages", "", 1)); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(calls(), " "), deployCalls("packages", "1.0", 1, true); got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
}

// A step whose CLI call fails after it took effect (the reply was lost)
// is not repeated: a repeat would fail for good, as Fabric refuses a
// second install, an unchanged approval and a commit of the same sequence.
func TestDeployWhenAReplyIsLost(t *testing.T) {
	for _, verb := range []string{"install", "approve", "commit"} {
		t.Run(verb, func(t *testing.T) {
			top, h := channelHome(t)
			bin, calls := fakeLifecycle(t)
			os.WriteFile(filepath.Join(bin, "lose-reply."+verb), nil, 0o600)
			if err := Deploy(context.Background(), top, h, Tools{Fabric: bin, ConfigSrc: t.TempDir()}, deployment(h, "packages", "", 1)); err != nil {
				t.Fatal(err)
			}
			if got, want := strings.Join(calls(), " "), deployCalls("packages", "1.0", 1, true); got != want {
				t.Errorf("\n got %s\nwant %s", got, want)
			}
		})
	}
}

func TestDeployRefusals(t *testing.T) {
	top, h := channelHome(t)
	bin, calls := fakeLifecycle(t)
	tools := Tools{Fabric: bin, ConfigSrc: t.TempDir()}
	if err := Deploy(context.Background(), top, h, tools, deployment(h, "packages", "", 1)); err != nil {
		t.Fatal(err)
	}
	calls()
	notShared, err := NewHome(t.TempDir(), "ea")
	if err != nil {
		t.Fatal(err)
	}
	partyTwoMissing := deployment(h, "packages", "1.1", 2)
	partyTwoMissing.Package = func(org string) string {
		if org == "party2" {
			return h.path("nowhere", org+".tgz")
		}
		return h.path("packages", "ballot."+org+".tgz")
	}
	partyTwoDir := deployment(h, "packages", "1.1", 2)
	partyTwoDir.Package = func(org string) string {
		if org == "party2" {
			return h.path("packages") // a directory: calculatepackageid cannot read it
		}
		return h.path("packages", "ballot."+org+".tgz")
	}
	cases := []struct {
		name string
		h    Home
		d    Deployment
		want string
	}{
		{"sequence 0", h, deployment(h, "packages", "", 0), `sequence 0`},
		{"unknown chaincode", h, Deployment{Chaincode: "tally", Sequence: 1, Package: partyTwoMissing.Package}, `no chaincode "tally"`},
		{"one org's home", notShared, deployment(h, "packages", "", 2), `holds every organisation`},
		{"a new version at the committed sequence", h, deployment(h, "packages", "1.1", 1),
			"sequence 1 is committed with version 1.0, not 1.1: a new version needs the next sequence, 2"},
		{"the last org's package missing", h, partyTwoMissing, `party2's ballot package ` + h.path("nowhere", "party2.tgz")},
		{"the last org's package unreadable", h, partyTwoDir, `party2's ballot package ` + h.path("packages")},
		{"a sequence past the next", h, deployment(h, "packages", "1.1", 3), "sequence 1 is committed, so the next definition is sequence 2, not 3"},
	}
	for _, c := range cases {
		err := Deploy(context.Background(), top, c.h, tools, c.d)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %q", c.name, err, c.want)
		}
		if got := calls(); len(got) != 0 {
			t.Errorf("%s: changed %v", c.name, got)
		}
	}
}

func TestPeerCLIOutputs(t *testing.T) {
	if !namesChannel("Status: 200\n{\n\t\"name\": \"fabvote\",\n\t\"url\": \"/x\"\n}", "fabvote") {
		t.Error("namesChannel missed osnadmin's indented member answer")
	}
	for _, out := range []string{"Status: 404\n{\n\t\"error\": \"channel fabvote not found\"\n}", `{"name": "fabvote2"}`} {
		if namesChannel(out, "fabvote") {
			t.Errorf("namesChannel(%q) holds", out)
		}
	}
	for _, tc := range []struct{ out, want string }{
		{"{\"a\": 1}", "{\"a\": 1}"},
		{"Warning: {odd} line\n{\n\"a\": 1}", "{\n\"a\": 1}"},
	} {
		if got := jsonPart(tc.out); got != tc.want {
			t.Errorf("jsonPart(%q) = %q, want %q", tc.out, got, tc.want)
		}
	}
}

func TestOpenLocalHomeLeavesModes(t *testing.T) {
	top, err := fabnet.Profile("three-orgs", 7050, nil, nil)
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
