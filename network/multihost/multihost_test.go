// Package multihost tests the multi-host procedure (docs/MULTIHOST.md) with
// each organisation on a host of its own: a Linux network namespace with
// its own address and loopback (package network/netns), and its own
// directory. The organisations exchange only their public bundles, then
// run a whole election, each from its own host.
//
// It needs root, iproute2, and the binaries of make fabric, fabric-ca and
// fabvote: make multihost-test.
package multihost

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fabvote/fabvote/network/fabnet"
	"github.com/fabvote/fabvote/network/fabrun"
	"github.com/fabvote/fabvote/network/netns"
)

// labHost is each organisation's host name in the lab (at most 6 letters).
var labHost = map[string]string{"orderer": "ord", "ea": "ea", "party1": "party1", "party2": "party2", "party3": "party3"}

// orgs are the organisations that set up the channel; party3 joins later.
var orgs = []string{"orderer", "ea", "party1", "party2"}

type site struct {
	t   *testing.T
	lab *netns.Lab // nil: every organisation on this machine's loopback
	// runtime are the extra flags of the steps that start nodes.
	runtime []string
	root    string // root/hosts/<org> is each organisation's machine
	tools   string // fabnet, ccaas-builder, ballot-cc
	env     map[string]string
	topo    string
	// joined are the organisations with nodes on the network so far.
	joined []string
}

func (s *site) host(org string) string { return filepath.Join(s.root, "hosts", org) }
func (s *site) home(org string) string { return filepath.Join(s.host(org), "fabric") }

// run runs a command on org's host: in its namespace, in its directory,
// with HOME there too, and fails the test with its output if it fails.
func (s *site) run(org, name string, args ...string) string {
	s.t.Helper()
	out, err := s.try(org, name, args...)
	if err != nil {
		s.t.Fatalf("%s on %s: %v\n%s", filepath.Base(name), org, err, out)
	}
	return out
}

func (s *site) try(org, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	if s.lab != nil {
		cmd = s.lab.Command(labHost[org], name, args...)
	}
	cmd.Dir = s.host(org)
	cmd.Env = append(os.Environ(), "HOME="+s.host(org))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// fabnet runs a fabnet step as org.
func (s *site) fabnet(org, step string, extra ...string) {
	s.t.Helper()
	if out, err := s.tryFabnet(s.topo, org, step, extra...); err != nil {
		s.t.Fatalf("fabnet %s on %s: %v\n%s", step, org, err, out)
	}
}

// tryFabnet runs a fabnet step as org with the given topology file.
func (s *site) tryFabnet(topo, org, step string, extra ...string) (string, error) {
	args := []string{step, "--topology", topo, "--org", org, "--home", s.home(org),
		"--bin", s.env["FABRIC_BIN"], "--ca-bin", s.env["FABRIC_CA_BIN"], "--builder", filepath.Join(s.tools, "ccaas-builder"),
		"--config-src", s.env["FABRIC_CFG_SRC"], "--overrides", filepath.Join(s.env["ROOT"], "network", "config")}
	return s.try(org, filepath.Join(s.tools, "fabnet"), append(args, extra...)...)
}

// hand gives to's host a copy of from's bundle, the one thing that
// crosses between organisations, with the digest the sender gives by a
// second channel.
func (s *site) hand(from, to string) {
	s.t.Helper()
	sent, err := fabrun.BundleDigest(filepath.Join(s.home(from), "bundle"))
	if err != nil {
		s.t.Fatal(err)
	}
	out := s.run(to, filepath.Join(s.tools, "fabnet"), "receive", "--topology", s.topo, "--org", to, "--home", s.home(to),
		"--from", from, "--bundle", filepath.Join(s.home(from), "bundle"), "--expect-digest", sent)
	if !strings.Contains(out, "sha256 "+sent) {
		s.t.Errorf("%s received %s's bundle with digest %q, want sha256 %s", to, from, strings.TrimSpace(out), sent)
	}
}

func setup(t *testing.T) *site {
	if os.Getenv("FABVOTE_MULTIHOST_TEST") != "1" {
		t.Skip("set FABVOTE_MULTIHOST_TEST=1 (make multihost-test): needs root, iproute2 and the built binaries")
	}
	s := newSite(t)
	var hosts []string
	for _, o := range append(orgs, "party3") {
		hosts = append(hosts, labHost[o])
	}
	lab, err := netns.New(fmt.Sprintf("m%d", os.Getpid()%100000), "10.203.7", hosts)
	if err != nil {
		t.Fatal(err)
	}
	s.lab = lab // newSite's cleanup closes it, once the nodes are stopped
	return s
}

// newSite builds the tools and makes each organisation's directory; its
// cleanup stops every organisation's nodes.
func newSite(t *testing.T) *site {
	env := map[string]string{}
	for _, k := range []string{"ROOT", "FABRIC_BIN", "FABRIC_CA_BIN", "FABRIC_CFG_SRC", "FABVOTE_BIN", "GO"} {
		if env[k] = os.Getenv(k); env[k] == "" {
			t.Fatalf("%s is not set (make multihost-test sets it)", k)
		}
	}
	s := &site{t: t, root: t.TempDir(), env: env}
	s.tools = filepath.Join(s.root, "tools")
	build := exec.Command(env["GO"], "build", "-o", s.tools+"/", "./network/cmd/fabnet", "./network/cmd/ccaas-builder")
	build.Dir = env["ROOT"]
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	tags, _ := exec.Command(filepath.Join(env["ROOT"], "chaincode", "gotags.sh"), env["GO"]).Output()
	build = exec.Command(env["GO"], "build", "-tags", strings.TrimSpace(string(tags)), "-o", filepath.Join(s.tools, "ballot-cc"), "./chaincode/ballot/cmd/ballot-cc")
	build.Dir = env["ROOT"]
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ballot-cc: %v\n%s", err, out)
	}
	for _, o := range append(orgs, "party3") {
		if err := os.MkdirAll(s.host(o), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		for _, o := range s.joined {
			if out, err := s.try(o, filepath.Join(s.tools, "fabnet"), "down", "--home", s.home(o)); err != nil {
				t.Errorf("fabnet down on %s: %v\n%s", o, err, out)
			}
		}
		if s.lab != nil {
			if err := s.lab.Close(); err != nil {
				t.Error(err)
			}
		}
	})
	return s
}

// up runs the procedure of docs/MULTIHOST.md and returns how long it took.
func (s *site) up() time.Duration {
	t := s.t
	start := time.Now()
	s.joined = append(s.joined, orgs...) // from here on, the cleanup stops their nodes
	public := filepath.Join(s.root, "public")
	if err := os.MkdirAll(public, 0o755); err != nil {
		t.Fatal(err)
	}
	s.topo = filepath.Join(public, "topology.json")
	args := []string{"topology", "--profile", "three-orgs", "--chaincode", "ballot:ballot", "--out", s.topo}
	if s.lab == nil { // one loopback: the port plan keeps the organisations apart
		args = append(args, "--base-port", "23050")
	}
	for _, o := range orgs {
		if s.lab != nil {
			args = append(args, "--host", o+"="+s.lab.Addr(labHost[o]))
		}
	}
	if out, err := exec.Command(filepath.Join(s.tools, "fabnet"), args...).CombinedOutput(); err != nil {
		t.Fatalf("fabnet topology: %v\n%s", err, out)
	}
	s.identitiesAtOnce()
	// 2. The peer organisations hand their bundles to the ordering organisation,
	// which makes the genesis block; then every bundle goes to every peer org.
	for _, o := range orgs[1:] {
		s.hand(o, "orderer")
	}
	s.fabnet("orderer", "genesis")
	for _, to := range orgs[1:] {
		for _, from := range orgs {
			if from != to {
				s.hand(from, to)
			}
		}
	}
	// 3. The orderers join the channel; each peer org starts its peer and
	// chaincode service and approves; one commits; each waits for it.
	s.fabnet("orderer", "orderers", s.runtime...)
	for _, o := range orgs[1:] {
		args := append([]string{"--chaincode", "ballot=" + filepath.Join(s.tools, "ballot-cc")}, s.runtime...)
		// FABVOTE_PEER_ENV: settings for every peer, e.g. a gateway timeout to compare.
		for _, kv := range strings.Fields(os.Getenv("FABVOTE_PEER_ENV")) {
			args = append(args, "--node-env", kv)
		}
		s.fabnet(o, "peer", args...)
	}
	s.fabnet("ea", "commit")
	for _, o := range orgs[1:] {
		s.fabnet(o, "connection")
	}
	return time.Since(start)
}

// identitiesAtOnce: each organisation, on its own host and at the same
// time, makes its CAs, its keys and its bundle.
func (s *site) identitiesAtOnce() {
	var wg sync.WaitGroup
	errs := make([]string, len(orgs))
	for i, o := range orgs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if out, err := s.tryFabnet(s.topo, o, "identities"); err != nil {
				errs[i] = fmt.Sprintf("identities of %s: %v\n%s", o, err, out)
			}
		}()
	}
	wg.Wait()
	for _, e := range errs {
		if e != "" {
			s.t.Fatal(e)
		}
	}
}

// joinLater adds a peer organisation to the running channel by the
// procedure of docs/MULTIHOST.md: the topology grows by the new org, which
// makes its identities and trades bundles; ea writes the configuration
// update, party1 signs it, ea signs and submits it (the channel's Admins
// policy is a majority of the three); then the new org starts its peer and
// chaincode service, and every org rewrites its network.json.
func (s *site) joinLater(org string) time.Duration {
	t := s.t
	start := time.Now()
	fabnetBin := filepath.Join(s.tools, "fabnet")
	if out, err := exec.Command(fabnetBin, "topology", "--from", s.topo, "--add-org", org+"="+s.lab.Addr(labHost[org]), "--out", s.topo).CombinedOutput(); err != nil {
		t.Fatalf("fabnet topology --add-org: %v\n%s", err, out)
	}
	if err := os.MkdirAll(s.host(org), 0o700); err != nil {
		t.Fatal(err)
	}
	s.joined = append(s.joined, org)
	s.fabnet(org, "identities")
	for _, o := range []string{"ea", "party1", "party2"} {
		s.hand(org, o)
	}
	for _, o := range orgs {
		s.hand(o, org)
	}
	s.refuseForgedUpdate(org)
	s.fabnet("ea", "add-org", "--new", org, "--out", filepath.Join(s.host("ea"), "add-"+org+".pb"))
	s.write("party1", "add-"+org+".pb", s.read("ea", "add-"+org+".pb"))
	s.fabnet("party1", "sign-update", "--new", org, "--update", filepath.Join(s.host("party1"), "add-"+org+".pb"))
	s.write("ea", "add-"+org+".signed.pb", s.read("party1", "add-"+org+".pb"))
	s.fabnet("ea", "submit-update", "--new", org, "--update", filepath.Join(s.host("ea"), "add-"+org+".signed.pb"))
	s.fabnet(org, "peer", "--chaincode", "ballot="+filepath.Join(s.tools, "ballot-cc"))
	for _, o := range []string{org, "ea", "party1", "party2"} {
		s.fabnet(o, "connection")
	}
	return time.Since(start)
}

// refuseForgedUpdate: ea writes an update that adds org with another
// anchor peer address than the topology's; party1 refuses to sign it.
func (s *site) refuseForgedUpdate(org string) {
	t := s.t
	top, err := fabnet.Load(s.topo)
	if err != nil {
		t.Fatal(err)
	}
	o, err := top.PeerOrg(org)
	if err != nil {
		t.Fatal(err)
	}
	o.Host = "10.203.7.99"
	forgedTopo := filepath.Join(s.host("ea"), "forged-topology.json")
	if err := top.Save(forgedTopo); err != nil {
		t.Fatal(err)
	}
	if out, err := s.tryFabnet(forgedTopo, "ea", "add-org", "--new", org, "--out", filepath.Join(s.host("ea"), "forged.pb")); err != nil {
		t.Fatalf("add-org with the forged topology: %v\n%s", err, out)
	}
	s.write("party1", "forged.pb", s.read("ea", "forged.pb"))
	out, err := s.tryFabnet(s.topo, "party1", "sign-update", "--new", org, "--update", filepath.Join(s.host("party1"), "forged.pb"))
	if err == nil || !strings.Contains(out, "is not the update that adds "+org) {
		t.Fatalf("party1 signed an update with a forged anchor peer for %s: %v\n%s", org, err, out)
	}
}

func TestElectionOnSeparateHosts(t *testing.T) {
	s := setup(t)
	took := s.up()
	t.Logf("three-orgs network up on 4 hosts (namespaces) in %.1f s", took.Seconds())
	s.checkSeparation()
	t.Logf("party3 joined the running channel in %.1f s", s.joinLater("party3").Seconds())
	v := s.prepareElection(60)
	v.open(20 * time.Second)
	s.run("ea", v.fv, "cast", "--network", s.netJSON("ea"), "--ballots", "ballots.bin", "--concurrency", "16")
	v.tallyAndVerify("party1", "party2", "party3")
	s.checkSeparation()
}

// trusteeOrg is the host of each trustee (1-based): trustee 1 on party1,
// trustee 2 on party2, trustee 3 on ea, beside the authority.
var trusteeOrg = []string{"", "party1", "party2", "ea"}

// vote is an election whose every role runs on its own org's host.
type vote struct {
	s      *site
	fv, id string
}

func (s *site) netJSON(org string) string { return filepath.Join(s.home(org), "network.json") }

// prepareElection makes the trustees' keys on their hosts, the election
// and its bulk ballots on the authority's host, and hands each trustee its
// sealed share.
func (s *site) prepareElection(voters int) *vote {
	v := &vote{s: s, fv: s.env["FABVOTE_BIN"], id: fmt.Sprintf("mh-%d", time.Now().UnixNano())}
	var recipients []byte
	for i := 1; i <= 3; i++ {
		s.run(trusteeOrg[i], v.fv, "trustee", "keygen", "--out", "trustee-"+strconv.Itoa(i))
		recipients = append(recipients, s.read(trusteeOrg[i], "trustee-"+strconv.Itoa(i), "recipient.txt")...)
	}
	s.write("ea", "trustee-recipients.txt", recipients)
	s.run("ea", v.fv, "election", "create", "--election", v.id, "--title", "separate hosts", "--candidates", "A,B,C,D",
		"--max-voters", strconv.Itoa(voters), "--trustees", "3", "--threshold", "2",
		"--trustee-recipients", "trustee-recipients.txt", "--max-clock-skew", "2s", "--out", "election")
	for i := 1; i <= 3; i++ {
		s.write(trusteeOrg[i], filepath.Join("trustee-"+strconv.Itoa(i), "share.age"), s.read("ea", "election", fmt.Sprintf("trustee-%d.share.age", i)))
	}
	s.run("ea", v.fv, "ballot", "--bulk", "--manifest", "election/manifest.json", "--voters", strconv.Itoa(voters),
		"--ea-key", "election/ea.key", "--choices", "random", "--out", "ballots.bin")
	return v
}

// open opens the election for window from now, then hands the manifest,
// which now holds the window, to the trustees.
func (v *vote) open(window time.Duration) {
	s := v.s
	s.run("ea", v.fv, "election", "open", "--network", s.netJSON("ea"), "--manifest", "election/manifest.json",
		"--start", "now", "--end", fmt.Sprintf("+%ds", int(window.Seconds())))
	manifest := s.read("ea", "election", "manifest.json")
	for i := 1; i <= 3; i++ {
		s.write(trusteeOrg[i], filepath.Join("trustee-"+strconv.Itoa(i), "manifest.json"), manifest)
	}
}

// tallyAndVerify has trustees 1 and 2 decrypt on their hosts once the
// window is closed, the authority tally, and observers on the given
// orgs' hosts verify the election from their own peers against the
// voters' recorded choices.
func (v *vote) tallyAndVerify(observers ...string) {
	s, t := v.s, v.s.t
	for _, i := range []int{1, 2} {
		dir := "trustee-" + strconv.Itoa(i)
		s.run(trusteeOrg[i], v.fv, "trustee", "decrypt", "--network", s.netJSON(trusteeOrg[i]),
			"--manifest", dir+"/manifest.json", "--share", dir+"/share.age", "--age-identity", dir+"/identity.txt",
			"--wait", "--quiet", "--out", dir+"/partial.bin")
		s.write("ea", fmt.Sprintf("partial-%d.bin", i), s.read(trusteeOrg[i], dir, "partial.bin"))
	}
	s.run("ea", v.fv, "tally", "--network", s.netJSON("ea"), "--manifest", "election/manifest.json",
		"--partial", "partial-1.bin", "--partial", "partial-2.bin", "--result-out", "result.json")
	counts := expectedCounts(t, s.read("ea", "ballots.bin.choices.csv"), 4)
	for _, o := range observers {
		out := s.run(o, v.fv, "verify", "--network", s.netJSON(o), "--election", v.id, "--expect-counts", counts)
		t.Logf("verify on %s's host: %s", o, lastLine(out))
	}
}

func (s *site) read(org string, path ...string) []byte {
	s.t.Helper()
	b, err := os.ReadFile(filepath.Join(append([]string{s.host(org)}, path...)...))
	if err != nil {
		s.t.Fatal(err)
	}
	return b
}

func (s *site) write(org, path string, b []byte) {
	s.t.Helper()
	p := filepath.Join(s.host(org), path)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		s.t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o600); err != nil {
		s.t.Fatal(err)
	}
}

// expectedCounts reads the bulk ballots' recorded choices (voter,choice).
func expectedCounts(t *testing.T, choicesCSV []byte, candidates int) string {
	rows, err := csv.NewReader(bytes.NewReader(choicesCSV)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	counts := make([]int, candidates)
	for _, r := range rows[1:] {
		c, err := strconv.Atoi(r[1])
		if err != nil || c < 0 || c >= candidates {
			t.Fatalf("choices: row %v", r)
		}
		counts[c]++
	}
	var parts []string
	for _, c := range counts {
		parts = append(parts, strconv.Itoa(c))
	}
	return strings.Join(parts, ",")
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// checkSeparation asserts that nothing but public bundles crosses between
// organisations: no process on a host names or opens another host's files,
// no file on a host names another host's directory, no private key is on
// two hosts, no host reaches another's CA or chaincode service (both on
// their host's loopback), no registrar secret is on a command line or in
// an environment, and each host's network.json holds its own org's
// identities only.
func (s *site) checkSeparation() {
	t := s.t
	keys := map[string]string{} // SHA-256 of a private key -> the host it was found on
	secrets := s.registrarSecrets()
	for _, o := range s.joined {
		pids, err := s.lab.Pids(labHost[o])
		if err != nil {
			t.Fatal(err)
		}
		if len(pids) == 0 {
			t.Errorf("no process runs on %s's host", o)
		}
		for _, pid := range pids {
			for _, other := range s.joined {
				if other != o {
					s.checkProcess(o, pid, s.host(other))
				}
			}
			s.checkNoSecret(o, pid, secrets)
		}
		s.checkFiles(o, keys)
		s.checkIdentities(o)
	}
	s.checkUnreachable()
}

// checkUnreachable: ea's host cannot reach party1's MSP CA, TLS CA or
// chaincode service, neither at 127.0.0.1 nor at party1's address, while
// party1's own host can.
func (s *site) checkUnreachable() {
	t := s.t
	tp, err := fabnet.Load(s.topo)
	if err != nil {
		t.Fatal(err)
	}
	p1, err := tp.PeerOrg("party1")
	if err != nil {
		t.Fatal(err)
	}
	for _, port := range []int{p1.CAPort, p1.CAPort + 1, p1.Peer.Services[0].Port} {
		p := strconv.Itoa(port)
		for _, addr := range []string{"127.0.0.1", s.lab.Addr(labHost["party1"])} {
			if out, err := s.try("ea", "timeout", "3", "bash", "-c", "exec 3<>/dev/tcp/"+addr+"/"+p); err == nil {
				t.Errorf("ea's host reached party1's listener at %s:%s %s", addr, p, out)
			}
		}
		if out, err := s.try("party1", "timeout", "3", "bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/"+p); err != nil {
			t.Errorf("party1's listener on port %s does not answer on its own host's loopback: %v %s", p, err, out)
		}
	}
}

// registrarSecrets are the CA registrars' passwords of every joined org.
func (s *site) registrarSecrets() []string {
	var secrets []string
	for _, o := range s.joined {
		for _, which := range []string{"ca", "tlsca"} {
			b, err := os.ReadFile(filepath.Join(s.home(o), "crypto", "fabric-ca", which+"-registrar"))
			if err != nil {
				s.t.Fatal(err)
			}
			_, pw, ok := strings.Cut(strings.TrimSpace(string(b)), ":")
			if !ok || len(pw) < 32 {
				s.t.Fatalf("%s's %s registrar file: want user:secret", o, which)
			}
			secrets = append(secrets, pw)
		}
	}
	return secrets
}

func (s *site) checkNoSecret(org, pid string, secrets []string) {
	for _, f := range []string{"cmdline", "environ"} {
		b, err := os.ReadFile(filepath.Join("/proc", pid, f))
		if err != nil {
			continue // the process has exited
		}
		for _, pw := range secrets {
			if bytes.Contains(b, []byte(pw)) {
				s.t.Errorf("process %s on %s's host has a CA registrar's secret in its %s", pid, org, f)
			}
		}
	}
}

// checkIdentities: the host's network.json lists identities of its own
// organisation only.
func (s *site) checkIdentities(org string) {
	if org == "orderer" {
		return
	}
	var n struct {
		Orgs []struct {
			Name       string
			Identities map[string]any
		}
	}
	if err := json.Unmarshal(s.read(org, "fabric", "network.json"), &n); err != nil {
		s.t.Fatal(err)
	}
	for _, o := range n.Orgs {
		if (o.Name == org) != (len(o.Identities) > 0) {
			s.t.Errorf("%s's network.json: org %s has %d identities", org, o.Name, len(o.Identities))
		}
	}
}

// checkProcess fails when the process's command line, environment,
// working directory or open files name dir.
func (s *site) checkProcess(org, pid, dir string) {
	proc := "/proc/" + pid
	for _, f := range []string{"cmdline", "environ"} {
		b, err := os.ReadFile(filepath.Join(proc, f))
		if err == nil && bytes.Contains(b, []byte(dir)) {
			s.t.Errorf("process %s on %s's host has %s in its %s", pid, org, dir, f)
		}
	}
	links := []string{filepath.Join(proc, "cwd")}
	fds, _ := filepath.Glob(filepath.Join(proc, "fd", "*"))
	for _, l := range append(links, fds...) {
		if target, err := os.Readlink(l); err == nil && strings.HasPrefix(target, dir) {
			s.t.Errorf("process %s on %s's host has %s open", pid, org, target)
		}
	}
}

// checkFiles fails when a file on org's host names another host's
// directory, or holds a private key that is also on another host (keys
// maps each key's SHA-256 to the host it was first found on).
func (s *site) checkFiles(org string, keys map[string]string) {
	err := filepath.WalkDir(s.host(org), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, other := range s.joined {
			if other != org && bytes.Contains(b, []byte(s.host(other))) {
				s.t.Errorf("%s on %s's host names %s's directory", p, org, other)
			}
		}
		for rest := b; ; {
			var blk *pem.Block
			if blk, rest = pem.Decode(rest); blk == nil {
				break
			}
			if strings.Contains(blk.Type, "PRIVATE KEY") {
				sum := sha256.Sum256(blk.Bytes)
				if first, ok := keys[hex.EncodeToString(sum[:])]; ok && first != org {
					s.t.Errorf("%s on %s's host holds a private key that is also on %s's host", p, org, first)
				}
				keys[hex.EncodeToString(sum[:])] = org
			}
		}
		return nil
	})
	if err != nil {
		s.t.Fatal(err)
	}
}
