//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/audit"
	"github.com/fabvote/fabvote/internal/nettest"
	"github.com/fabvote/fabvote/internal/sharebox"
	"github.com/fabvote/fabvote/network/netns"
	"github.com/fabvote/fabvote/network/portplan"
)

const (
	// relayHost is the lab host the ceremony's relay runs on; trustee i
	// runs on host trusteeHost(i).
	relayHost = "relay"
	// ceremonySubnet is the lab's switch. Every lab has a switch of its
	// own, so another lab on the same subnet never meets this one.
	ceremonySubnet = "10.203.8"
	// ceremonyLimit bounds the whole ceremony: a 2048-bit one takes about
	// a minute on two busy cores.
	ceremonyLimit = 10 * time.Minute
	// ceremonyWindow is how long the election under the ceremony's key
	// accepts ballots: its few casts fit in it easily.
	ceremonyWindow = 20 * time.Second
	// The files of a trustee's `trustee ceremony --out` directory
	// (docs/OPERATORS.md section 10a).
	ceremonyShareFile  = "share.age"
	ceremonyResultFile = "ceremony.json"
)

var (
	// ceremonyChoices are the voters' choices in the election under the
	// ceremony's key, one candidate index each.
	ceremonyChoices = []int{0, 1, 1, 3, 1, 0}
	// decryptingTrustees are the two of the three whose shares decrypt.
	decryptingTrustees = []int{1, 3}
	// digestRE finds the digest `ceremony config` prints for the trustees
	// to compare.
	digestRE = regexp.MustCompile(`config digest[^\n]*\n\s*([0-9a-f]{64})`)
)

func trusteeHost(i int) string { return fmt.Sprintf("t%d", i) }

// TestKeyCeremony runs the trustees' key ceremony as it runs between
// machines, then an election under its key on the network. The relay and
// each of the three trustees are processes of their own, each on a host of
// its own (a network namespace on a private switch), reaching each other
// over the switch only; each trustee ends with its own sealed share and
// the same public result. The authority creates an election with that key
// (keyOrigin distributed), six voters cast, and after the window two of
// the trustees decrypt the tally with their ceremony shares; the published
// counts are the voters' choices, and fabvote verify passes it, the key's
// origin (V33) included, live and from its record, as does the Python
// verifier.
func TestKeyCeremony(t *testing.T) {
	start := time.Now()
	k := &ceremonyRun{env: setup(t), id: fmt.Sprintf("kc-%d", time.Now().Unix())}
	needNetns(t)
	k.c = ctx(t)
	k.el = nettest.Election{ID: k.id, Dir: k.Dir}
	if !t.Run("ceremony on four hosts", k.ceremony) {
		t.FailNow()
	}
	k.create(t)
	k.castBallots(t)
	k.decryptAndPublish(t)
	k.verify(t)
	t.Run("election record", k.record)
	t.Logf("the key ceremony's end-to-end test took %s", time.Since(start).Round(time.Second))
}

// needNetns skips the test where no network namespace can be made.
func needNetns(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the key ceremony's hosts are network namespaces, which need root (make e2e-test runs as root in CI)")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("the key ceremony's hosts are network namespaces, which need the ip command (iproute2)")
	}
}

// ceremonyRun is what TestKeyCeremony's steps hand on to each other. Its
// election directory holds the trustees' keygen directories
// (trustees/trustee-i) and the authority's files (el/), as
// nettest.Election lays them out, and no share: those are in
// ceremony/trustee-i.
type ceremonyRun struct {
	*env
	c          context.Context
	id         string
	el         nettest.Election
	config     string // the ceremony's configuration
	digest     string // its digest, as ceremony config printed it
	ceremonyID string // the ceremony's id (hex), from ceremony.json
	m          *election.Manifest
	want       []uint64 // the counts of the voters' choices
}

// keygenDir is trustee i's `trustee keygen` directory.
func (k *ceremonyRun) keygenDir(i int) string { return nettest.TrusteeDir(k.el.TrusteesDir(), i) }

// outDir is trustee i's `trustee ceremony --out` directory.
func (k *ceremonyRun) outDir(i int) string { return k.path(fmt.Sprintf("ceremony/trustee-%d", i)) }

// ceremony runs the key ceremony on a lab of four hosts: the relay in the
// relay host's namespace, each trustee's `trustee ceremony` in its own
// host's, all three at once. Every process is killed and every namespace
// removed when the subtest ends, whatever happens.
func (k *ceremonyRun) ceremony(t *testing.T) {
	lab := newCeremonyLab(t)
	// The relay listens in its own namespace, at its host's address and
	// the plan's relay port of the e2e stack; no listener of the
	// machine's own namespace can meet it there.
	_, port, err := net.SplitHostPort(portplan.Relay(portplan.MustBase("e2e")))
	if err != nil {
		t.Fatal(err)
	}
	relayAddr := net.JoinHostPort(lab.Addr(relayHost), port)
	k.configure(t, "http://"+relayAddr)
	relay := startOn(t, lab, relayHost, k.Dir, k.Bin, "ceremony", "relay", "--listen", relayAddr)
	relay.waitOutput(t, "relaying key-ceremony messages at http://"+relayAddr, time.Minute)
	var trustees []*labProc
	for i := 1; i <= nettest.Trustees; i++ {
		trustees = append(trustees, startOn(t, lab, trusteeHost(i), k.Dir, k.Bin, "trustee", "ceremony",
			"--config", k.config, "--expect-digest", k.digest, "--identity", k.keygenDir(i), "--out", k.outDir(i), "--evidence", k.Dir))
	}
	waitAll(t, trustees, ceremonyLimit)
	for i, p := range trustees {
		t.Logf("trustee %d on host %s:\n%s", i+1, trusteeHost(i+1), strings.TrimSpace(p.out.String()))
	}
	k.checkOuts(t)
}

// newCeremonyLab makes the relay's host and one host per trustee; the
// test's cleanup removes them.
func newCeremonyLab(t *testing.T) *netns.Lab {
	hosts := []string{relayHost}
	for i := 1; i <= nettest.Trustees; i++ {
		hosts = append(hosts, trusteeHost(i))
	}
	lab, err := netns.New(fmt.Sprintf("kc%d", os.Getpid()%10000), ceremonySubnet, hosts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := lab.Close(); err != nil {
			t.Error(err)
		}
	})
	return lab
}

// configure has each trustee make its keys (`trustee keygen`) and the
// official write the ceremony's configuration for the relay at relayURL;
// the digest it prints is the one the trustees compare.
func (k *ceremonyRun) configure(t *testing.T, relayURL string) {
	k.config = k.path("ceremony-config.json")
	args := []string{"ceremony", "config", "--k", strconv.Itoa(nettest.Threshold), "--relay", relayURL, "--out", k.config}
	for i := 1; i <= nettest.Trustees; i++ {
		k.Must(t, "trustee", "keygen", "--out", k.keygenDir(i))
		args = append(args, "--trustee", fmt.Sprintf("trustee-%d=%s", i, k.keygenDir(i)))
	}
	out := k.Must(t, args...)
	m := digestRE.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("ceremony config prints no digest:\n%s", out)
	}
	k.digest = m[1]
}

// checkOuts: each trustee's --out holds exactly its sealed share, which
// opens with its own identity only and is its own index's, and
// ceremony.json, the same bytes for all three.
func (k *ceremonyRun) checkOuts(t *testing.T) {
	var first []byte
	for i := 1; i <= nettest.Trustees; i++ {
		entries, err := os.ReadDir(k.outDir(i))
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if strings.Join(names, ",") != ceremonyResultFile+","+ceremonyShareFile {
			t.Errorf("trustee %d's --out holds %v, want %s and %s only", i, names, ceremonyResultFile, ceremonyShareFile)
		}
		k.checkShareApart(t, i)
		b := []byte(readFile(t, filepath.Join(k.outDir(i), ceremonyResultFile)))
		if first == nil {
			first = b
		} else if !bytes.Equal(b, first) {
			t.Errorf("trustee %d's %s differs from trustee 1's", i, ceremonyResultFile)
		}
	}
	var res struct {
		Ceremony string `json:"ceremony"`
	}
	if err := json.Unmarshal(first, &res); err != nil || res.Ceremony == "" {
		t.Fatalf("trustee 1's %s names no ceremony (%v)", ceremonyResultFile, err)
	}
	k.ceremonyID = res.Ceremony
}

// checkShareApart: trustee i's sealed share opens with trustee i's
// identity, as share i, and with no other trustee's.
func (k *ceremonyRun) checkShareApart(t *testing.T, i int) {
	share := filepath.Join(k.outDir(i), ceremonyShareFile)
	for j := 1; j <= nettest.Trustees; j++ {
		ids, err := sharebox.ReadIdentityFile(k.el.Identity(j))
		if err != nil {
			t.Fatal(err)
		}
		ks, err := sharebox.ReadSealedFile(share, ids...)
		if (err == nil) != (i == j) {
			t.Errorf("trustee %d's share with trustee %d's identity: %v", i, j, err)
		}
		if err == nil && ks.Index != i {
			t.Errorf("trustee %d's --out holds the share of trustee %d", i, ks.Index)
		}
	}
}

// create: the authority creates the election with the ceremony's key
// (election create --key-from): the manifest says distributed and names
// the ceremony, and no share is dealt.
func (k *ceremonyRun) create(t *testing.T) {
	k.Must(t, "election", "create", "--election", k.id, "--candidates", nettest.Candidates,
		"--max-voters", strconv.Itoa(2*len(ceremonyChoices)), "--key-from", filepath.Join(k.outDir(1), ceremonyResultFile),
		"--out", "el", "--max-clock-skew", "2s", "--channel", k.net.Channel)
	m := nettest.ReadManifest(t, k.el.Manifest())
	ceremony := "none"
	if m.KeyCeremony != nil {
		ceremony = hex.EncodeToString(m.KeyCeremony.ID)
	}
	if m.KeyOrigin != election.KeyOriginDistributed || ceremony != k.ceremonyID {
		t.Fatalf("the manifest's keyOrigin is %q, its ceremony %s; want %q and ceremony %s", m.KeyOrigin, ceremony, election.KeyOriginDistributed, k.ceremonyID)
	}
	if shares, _ := filepath.Glob(filepath.Join(k.el.ElDir(), "*.share.age")); len(shares) > 0 {
		t.Fatalf("election create --key-from dealt shares: %v", shares)
	}
}

// castBallots generates the voters' ballots, opens the election with a
// short window and casts them all.
func (k *ceremonyRun) castBallots(t *testing.T) {
	k.want = make([]uint64, len(strings.Split(nettest.Candidates, ",")))
	var lines []string
	for _, ch := range ceremonyChoices {
		k.want[ch]++
		lines = append(lines, strconv.Itoa(ch))
	}
	choices := k.path("choices.txt")
	writeFile(t, choices, []byte(strings.Join(lines, "\n")+"\n"))
	k.el.GenerateBallots(t, k.CLI, len(ceremonyChoices), choices)
	k.Must(t, "election", "open", "--network", k.netPath, "--manifest", k.el.Manifest(), "--start", "-5s", "--end", "+"+ceremonyWindow.String())
	k.m = nettest.ReadManifest(t, k.el.Manifest())
	out := k.Must(t, "cast", "--network", k.netPath, "--ballots", k.el.Path("ballots.bin"), "--concurrency", "8", "--quiet")
	if !strings.Contains(out, fmt.Sprintf("%d committed, 0 not recorded", len(ceremonyChoices))) {
		t.Fatalf("cast output:\n%s", out)
	}
}

// decryptAndPublish waits for the window's end plus the clock skew; then
// two of the trustees decrypt the tally with their ceremony shares, the
// tallier publishes the result of their partials, and it counts the
// voters' choices.
func (k *ceremonyRun) decryptAndPublish(t *testing.T) {
	time.Sleep(time.Until(k.m.ResultNotBefore()) + 3*time.Second)
	args := []string{"tally", "--network", k.netPath, "--manifest", k.el.Manifest(), "--quiet"}
	for _, i := range decryptingTrustees {
		partial := k.path(fmt.Sprintf("p%d.bin", i))
		k.Must(t, "trustee", "decrypt", "--network", k.netPath, "--manifest", k.el.Manifest(),
			"--share", filepath.Join(k.outDir(i), ceremonyShareFile), "--age-identity", k.el.Identity(i),
			"--out", partial, "--wait", "--quiet")
		args = append(args, "--partial", partial)
	}
	t.Logf("tally:\n%s", k.Must(t, args...))
	wantPublished(t, k.c, k.env, k.id, k.want, uint64(len(ceremonyChoices)))
}

// verify: the live audit passes with the counts expected, against the
// authority's manifest (so the ledger's is the distributed one), and its
// report lists the key's origin (V33), the manifest anchor and the
// expected counts as checked and passed.
func (k *ceremonyRun) verify(t *testing.T) {
	counts := make([]string, len(k.want))
	for i, n := range k.want {
		counts[i] = strconv.FormatUint(n, 10)
	}
	rep := k.verifyJSON(t, 0, "--network", k.netPath, "--manifest", k.el.Manifest(), "--expect-counts", strings.Join(counts, ","))
	for _, check := range []string{"V33", audit.CheckPublishedAnchor, audit.CheckExpectedCounts} {
		if !passedCheck(rep, check) {
			t.Errorf("the live report has no passed %s: %+v", check, rep.Checks)
		}
	}
}

// record: the election's record, exported from a peer, verifies offline
// with the live report's counts and a passed V33, with both verifiers and
// with no network at all.
func (k *ceremonyRun) record(t *testing.T) {
	dir, genesis, rec := exportRecord(t, k.env, k.id)
	if !passedCheck(rec, "V33") {
		t.Errorf("fabvote's report of the record has no passed V33: %+v", rec.Checks)
	}
	recordVerifiers(t, k.env, dir, genesis, rec)
}

// labProc is a process on a lab host and its output; the test's cleanup
// kills it, with its process group, if it still runs.
type labProc struct {
	name string
	cmd  *exec.Cmd
	out  nettest.SyncBuffer
	done chan struct{} // closed when it has exited; err is then Wait's
	err  error
}

// startOn starts bin with args on host, in directory dir.
func startOn(t *testing.T, lab *netns.Lab, host, dir, bin string, args ...string) *labProc {
	t.Helper()
	p := &labProc{name: fmt.Sprintf("fabvote %s %s on host %s", args[0], args[1], host), cmd: lab.Command(host, bin, args...), done: make(chan struct{})}
	p.cmd.Dir = dir
	// A lab host reaches the switch only: a proxy the environment names
	// would be out of its reach.
	p.cmd.Env = append(os.Environ(), "NO_PROXY=*", "no_proxy=*")
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.out
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p.cmd.WaitDelay = 5 * time.Second
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", p.name, err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(p.stop)
	return p
}

// stop kills the process's group unless it has exited, and waits for it.
func (p *labProc) stop() {
	select {
	case <-p.done:
		return
	default:
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.done
}

// waitOutput waits until the process has printed want; it fails the test
// if the process exits first or limit passes.
func (p *labProc) waitOutput(t *testing.T, want string, limit time.Duration) {
	t.Helper()
	deadline := time.After(limit)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for !strings.Contains(p.out.String(), want) {
		select {
		case <-p.done:
			if !strings.Contains(p.out.String(), want) {
				t.Fatalf("%s exited (%v) before printing %q:\n%s", p.name, p.err, want, p.out.String())
			}
		case <-deadline:
			t.Fatalf("%s did not print %q in %s:\n%s", p.name, want, limit, p.out.String())
		case <-tick.C:
		}
	}
}

// waitAll waits for every process to exit; it fails the test, with the
// output, at the first that fails, or when limit passes.
func waitAll(t *testing.T, procs []*labProc, limit time.Duration) {
	t.Helper()
	exited := make(chan *labProc, len(procs))
	for _, p := range procs {
		go func() {
			<-p.done
			exited <- p
		}()
	}
	deadline := time.After(limit)
	for range procs {
		select {
		case p := <-exited:
			if p.err != nil {
				t.Fatalf("%s: %v\n%s", p.name, p.err, nettest.Tail(p.out.String(), 40))
			}
		case <-deadline:
			var b strings.Builder
			for _, p := range procs {
				fmt.Fprintf(&b, "--- %s:\n%s\n", p.name, nettest.Tail(p.out.String(), 20))
			}
			t.Fatalf("the processes did not all exit in %s:\n%s", limit, b.String())
		}
	}
}
