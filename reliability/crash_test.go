//go:build reliability

package reliability

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/ballotclient"
	"github.com/fabvote/fabvote/internal/nettest"
)

// envInt reads a positive integer knob.
func envInt(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		t.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}

// castRun is the outcome of casting a ballot set at a steady rate.
type castRun struct {
	mu          sync.Mutex        // guards the fields below while casts are in flight
	committed   map[string][]byte // pseudonym -> ballot, every ballot seen committed
	retries     int64             // extra attempts inside the gateway client (Attempts-1 summed)
	secondPass  int               // ballots cast again after the first pass failed them
	firstFailed int               // ballots whose first pass ended in an error
	errSamples  map[string]int    // first-pass error classes
	commitTimes []time.Time       // completion time of every commit
	commits     []span            // submission start and commit time of every first-pass commit
	duration    time.Duration
}

func newCastRun() *castRun {
	return &castRun{committed: map[string][]byte{}, errSamples: map[string]int{}}
}

// commit records ballot b (pseudonym vkh) seen committed after attempts
// gateway-client attempts. sent is when its first-pass submission started;
// the zero time marks a commit of a later pass, which has no latency of its
// own to count.
func (r *castRun) commit(vkh string, b []byte, sent time.Time, attempts int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now()
	r.retries += int64(max(attempts-1, 0))
	r.committed[vkh] = b
	r.commitTimes = append(r.commitTimes, now)
	if !sent.IsZero() {
		r.commits = append(r.commits, span{sent, now})
	}
}

// fail records a first-pass send that ended in err.
func (r *castRun) fail(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.firstFailed++
	r.errSamples[errClass(err)]++
}

// finish sets the run's duration from start and orders the commit times.
func (r *castRun) finish(start time.Time) {
	r.duration = time.Since(start)
	sort.Slice(r.commitTimes, func(i, j int) bool { return r.commitTimes[i].Before(r.commitTimes[j]) })
}

// castOnce is one CastBallot call (with the client's own retries) bounded
// by callTimeout.
func castOnce(ctx context.Context, c *ballotclient.Client, b []byte) (*ballotclient.CastReceipt, error) {
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	return c.CastBallot(cctx, b)
}

// castSteady casts every ballot at rate per second (open loop, at most
// inFlight at once) through the gateway client with its retries; at fault
// (fraction of the ballots sent) it calls inject in its own goroutine. Then
// it casts again every ballot that did not commit, reconciling DUPLICATE
// answers with the ledger (an attempt that committed although the client saw
// an error).
func castSteady(t *testing.T, lc, again *ballotclient.Client, ballots [][]byte, rate float64, inFlight int, fault float64, inject func()) *castRun {
	t.Helper()
	ctx := nettest.Context(t, 20*time.Minute)
	run := newCastRun()
	start := time.Now()
	failed := run.firstPass(t, ctx, lc, ballots, rate, inFlight, fault, inject)
	if again == nil {
		again = lc
	}
	if stuck := run.castAgain(ctx, again, ballots, failed); stuck != "" {
		t.Fatal(stuck)
	}
	run.finish(start)
	return run
}

// firstPass sends the ballots open loop at rate per second, at most
// inFlight at once, and calls inject in its own goroutine when the fault
// fraction of them is sent. It returns the indices of the ballots whose
// send failed, in order.
func (r *castRun) firstPass(t *testing.T, ctx context.Context, lc *ballotclient.Client, ballots [][]byte, rate float64, inFlight int, fault float64, inject func()) []int {
	var mu sync.Mutex // guards failed
	var failed []int
	sem := make(chan struct{}, inFlight)
	var wg, injected sync.WaitGroup
	faultAt := int(float64(len(ballots)) * fault)
	interval := time.Duration(float64(time.Second) / rate)
	start := time.Now()
	for i, b := range ballots {
		if i == faultAt && inject != nil {
			injected.Add(1)
			go func() { defer injected.Done(); inject() }()
		}
		if d := time.Until(start.Add(time.Duration(i) * interval)); d > 0 {
			time.Sleep(d)
		}
		sem <- struct{}{}
		wg.Add(1)
		vkh := voterHash(t, b)
		go func(i int, b []byte) {
			defer wg.Done()
			defer func() { <-sem }()
			sent := time.Now()
			rc, err := castOnce(ctx, lc, b)
			if err != nil {
				r.fail(err)
				mu.Lock()
				failed = append(failed, i)
				mu.Unlock()
				return
			}
			r.commit(vkh, b, sent, rc.Attempts)
		}(i, b)
	}
	wg.Wait()
	injected.Wait()
	sort.Ints(failed)
	return failed
}

// castAgain casts the ballots of the indices idx again through c, 16 at a
// time, each until it commits. It returns a description of a ballot that
// still did not commit, or "".
func (r *castRun) castAgain(ctx context.Context, c *ballotclient.Client, ballots [][]byte, idx []int) string {
	r.secondPass = len(idx)
	work := make(chan int)
	var wg sync.WaitGroup
	var stuck atomic.Value
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				if err := r.castUntilCommitted(ctx, c, ballots[i]); err != nil {
					stuck.Store(fmt.Sprintf("ballot %d still not committed after the second pass: %v", i, err))
				}
			}
		}()
	}
	for _, i := range idx {
		work <- i
	}
	close(work)
	wg.Wait()
	if v := stuck.Load(); v != nil {
		return v.(string)
	}
	return ""
}

// castUntilCommitted casts b up to 5 times, 2 s apart. A DUPLICATE answer
// counts as committed when the ledger holds b itself under its pseudonym:
// an earlier attempt committed although its client saw an error.
func (r *castRun) castUntilCommitted(ctx context.Context, c *ballotclient.Client, b []byte) error {
	vkh, id := voterHashErr(b)
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		var rc *ballotclient.CastReceipt
		if rc, err = castOnce(ctx, c, b); err == nil {
			r.commit(vkh, b, time.Time{}, rc.Attempts)
			return nil
		}
		if isDuplicate(err) {
			rec, gerr := c.GetBallot(ctx, id, vkh)
			if gerr == nil && rec.BallotHash == ballotHashHex(b) {
				r.commit(vkh, b, time.Time{}, 1)
				return nil
			}
		}
		time.Sleep(2 * time.Second)
	}
	return err
}

// voterHashErr returns a ballot's pseudonym (its ledger key) and election id ("" if it does not decode).
func voterHashErr(b []byte) (vkh, id string) {
	p, err := election.ParseBallot(b)
	if err != nil {
		return "", ""
	}
	return p.PseudonymHex(), p.ElectionID
}

type span struct{ sent, done time.Time }

// callTimeout bounds one CastBallot call, all its attempts together. The
// gateway client bounds each attempt's wait for a commit status
// (gateway.Options.CommitTimeout), so a transaction lost in a fault (e.g.
// broadcast to a Raft leader that was killed before it replicated) costs a
// whole such wait per attempt; this bound keeps a scenario's timing in
// hand. RELIABILITY_CALL_TIMEOUT (seconds) changes it.
var callTimeout = func() time.Duration {
	if v, err := strconv.Atoi(os.Getenv("RELIABILITY_CALL_TIMEOUT")); err == nil && v > 0 {
		return time.Duration(v) * time.Second
	}
	return 30 * time.Second
}()

// recovery: the time from the kill to the first commit of a ballot sent after
// the kill, and the longest gap between two commits of the run.
func (r *castRun) recovery(kill time.Time) (firstAfter, longestGap time.Duration) {
	firstAfter = -1
	for _, c := range r.commits {
		if !c.sent.Before(kill) && (firstAfter < 0 || c.done.Sub(kill) < firstAfter) {
			firstAfter = c.done.Sub(kill)
		}
	}
	for i := 1; i < len(r.commitTimes); i++ {
		longestGap = max(longestGap, r.commitTimes[i].Sub(r.commitTimes[i-1]))
	}
	return firstAfter, longestGap
}

func errClass(err error) string {
	s := err.Error()
	for _, k := range []string{"commit status unknown", "context deadline exceeded", "gave up after", "DUPLICATE", "Unavailable", "DeadlineExceeded", "RESOURCE_EXHAUSTED", "ResourceExhausted", "committed as invalid", "chaincode", "connection"} {
		if strings.Contains(s, k) {
			return k
		}
	}
	if len(s) > 80 {
		s = s[:80]
	}
	return s
}

type crashCase struct {
	name string
	node func(n *testNet) string // node to kill -9
}

// crashBallots returns the ballot set for the crash scenarios: a pre-generated
// one (RELIABILITY_BALLOT_DIR with ballots.bin, choices.csv, manifest.json;
// RELIABILITY_ELECTION_DIR with paillier.key, or trustee-1.share.age and
// trustee-2.share.age with their identities in ../trustees/trustee-i/,
// default: the ballot dir without its "-N" suffix, as
// `make ballots` lays them out), or one generated once into
// run/rel-cache/crash-vV-N (V the ballot format version) and reused by later runs. The manifest is copied into
// a temporary directory, because `election open` rewrites the window.
func crashBallots(t *testing.T, bin string, need int) *electionFix {
	t.Helper()
	bdir := os.Getenv("RELIABILITY_BALLOT_DIR")
	var e *electionFix
	if bdir == "" {
		// The ballot format version is in the name: a cache of an older
		// format is never reused.
		cache := filepath.Join(root, "run", "rel-cache", fmt.Sprintf("crash-v%d-%d", election.BallotVersion, need))
		id := fmt.Sprintf("rel-crash-%d", need)
		// A cache made before the shares were sealed (no .share.age) is remade.
		if fileExists(filepath.Join(cache, "ballots.bin.choices.csv")) && fileExists(filepath.Join(cache, "el", "trustee-1.share.age")) {
			e = &electionFix{bin: bin, dir: cache, id: id, manifest: filepath.Join(cache, "el", "manifest.json"),
				keys: trusteeKeys(filepath.Join(cache, "el"), filepath.Join(cache, "trustees"), 1, 3)}
			e.ballots = nettest.ReadBallotStream(t, filepath.Join(cache, "ballots.bin"))
			e.choice = nettest.ReadChoices(t, filepath.Join(cache, "ballots.bin.choices.csv"))
			t.Logf("reusing %d cached ballots of %s in %s", len(e.ballots), id, cache)
		} else {
			_ = os.RemoveAll(cache)
			if err := os.MkdirAll(cache, 0o700); err != nil {
				t.Fatal(err)
			}
			e = generateElection(t, bin, cache, id, need)
		}
	} else {
		edir := os.Getenv("RELIABILITY_ELECTION_DIR")
		if edir == "" {
			edir = strings.TrimRight(strings.TrimRightFunc(filepath.Clean(bdir), func(r rune) bool { return r >= '0' && r <= '9' }), "-")
		}
		e = &electionFix{bin: bin, dir: t.TempDir(), manifest: filepath.Join(bdir, "manifest.json")}
		e.ballots = nettest.ReadBallotStream(t, filepath.Join(bdir, "ballots.bin"))
		e.choice = nettest.ReadChoices(t, filepath.Join(bdir, "choices.csv"))
		if k := filepath.Join(edir, "paillier.key"); fileExists(k) {
			e.keys = tallyKeys{paillierKey: k}
		} else {
			e.keys = trusteeKeys(edir, filepath.Join(filepath.Dir(filepath.Clean(edir)), "trustees"), 1, 2)
		}
		e.id = nettest.ReadManifest(t, e.manifest).ElectionID
		t.Logf("using %d pre-generated ballots of %s from %s (keys from %s)", len(e.ballots), e.id, bdir, edir)
	}
	if len(e.ballots) < need {
		t.Fatalf("the ballot set holds %d ballots, the scenarios need %d", len(e.ballots), need)
	}
	// Work on a copy of the manifest.
	work := t.TempDir()
	b, err := os.ReadFile(e.manifest)
	if err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(work, "manifest.json")
	if err := os.WriteFile(cp, b, 0o644); err != nil {
		t.Fatal(err)
	}
	c := *e
	c.manifest, c.dir = cp, work
	return &c
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// TestCrash casts RELIABILITY_BALLOTS ballots per scenario at RELIABILITY_RATE
// per second and kills one node with SIGKILL when half are sent: the peer and
// then the chaincode service on solo-org (one election, disjoint ballots),
// the Raft leader among three orderers on three-orgs. RELIABILITY_CRASH
// selects scenarios (peer,chaincode,leader).
func TestCrash(t *testing.T) {
	per := envInt(t, "RELIABILITY_BALLOTS", 500)
	rate := float64(envInt(t, "RELIABILITY_RATE", 25))
	pick := os.Getenv("RELIABILITY_CRASH")
	if pick == "" {
		pick = "peer,chaincode,leader"
	}
	plans := crashPlans(pick)
	most := 0
	for _, p := range plans {
		most = max(most, len(p.cases))
	}
	if most == 0 {
		t.Fatalf("RELIABILITY_CRASH=%q selects no scenario (peer, chaincode, leader)", pick)
	}
	set := crashBallots(t, fabvoteBin(t), most*per)
	for _, p := range plans {
		t.Run(p.profile, func(t *testing.T) { p.run(t, set, per, rate) })
	}
}

// crashPlan is the crash scenarios of one network profile, run one after
// another on one network and one election, each on its own ballots.
type crashPlan struct {
	profile string
	slot    int
	cases   []crashCase
}

// crashPlans are the profiles with the scenarios that pick (a comma list)
// selects; a profile with none is left out.
func crashPlans(pick string) []crashPlan {
	want := map[string]bool{}
	for _, s := range strings.Split(pick, ",") {
		want[strings.TrimSpace(s)] = true
	}
	all := []crashPlan{
		{"solo-org", 2, []crashCase{
			{"peer", func(*testNet) string { return "peer0.ea" }},
			{"chaincode", func(*testNet) string { return "cc.ballot.peer0.ea" }},
		}},
		{"three-orgs", 3, []crashCase{
			{"leader", func(n *testNet) string { return n.mustNetsh("leader") }},
		}},
	}
	var plans []crashPlan
	for _, p := range all {
		var cases []crashCase
		for _, c := range p.cases {
			if want[c.name] {
				cases = append(cases, c)
			}
		}
		if len(cases) > 0 {
			plans = append(plans, crashPlan{p.profile, p.slot, cases})
		}
	}
	return plans
}

// run starts the plan's network, opens the election with one window for
// every scenario (the planned casting time plus the faults and second
// passes), runs the scenarios, checking the ledger after each, and tallies
// and verifies what all of them committed.
func (p crashPlan) run(t *testing.T, set *electionFix, per int, rate float64) {
	n := startNet(t, "crash-"+p.profile, p.profile, p.slot, "ballot=./chaincode/ballot/cmd/ballot-cc")
	lc := ballotclient.New(n.connect("EAMSP", "user1", "ballot", 12))
	window := time.Duration(len(p.cases)) * (time.Duration(float64(per)/rate*float64(time.Second)) + 60*time.Second)
	set.open(t, n.netJSON, window+30*time.Second)
	all := map[string][]byte{}
	for k, c := range p.cases {
		run := c.run(t, n, lc, set.ballots[k*per:(k+1)*per], rate)
		maps.Copy(all, run.committed)
		checkLedger(t, lc, set.id, all)
	}
	admin := ballotclient.New(n.connect("EAMSP", "admin", "ballot", 12))
	committed := map[string]bool{}
	for vkh := range all {
		committed[vkh] = true
	}
	set.tallyAndVerify(t, admin, n.netJSON, committed)
}

// run casts ballots at rate, kills the case's node (chosen before the run:
// the Raft leader at that moment) when half are sent and starts it again 2 s
// later, and requires every ballot to commit.
func (c crashCase) run(t *testing.T, n *testNet, lc *ballotclient.Client, ballots [][]byte, rate float64) *castRun {
	node := c.node(n)
	var kill, back time.Time
	var injectErr error
	inject := func() {
		kill = time.Now()
		if out, err := n.netsh("kill", node); err != nil {
			injectErr = fmt.Errorf("net.sh kill %s: %v\n%s", node, err, nettest.Tail(out, 20))
		}
		time.Sleep(2 * time.Second) // down for a moment while ballots keep arriving
		if out, err := n.netsh("start", node); err != nil && injectErr == nil {
			injectErr = fmt.Errorf("net.sh start %s: %v\n%s", node, err, nettest.Tail(out, 20))
		}
		back = time.Now()
	}
	run := castSteady(t, lc, nil, ballots, rate, 64, 0.5, inject)
	if injectErr != nil {
		t.Fatal(injectErr)
	}
	first, gap := run.recovery(kill)
	t.Logf("CRASH %s: killed %s (kill -9), start returned %s after the kill; %d ballots at %.0f/s in %s: %d committed, "+
		"%d gateway-client retries, %d failed the first pass %v and were cast again; first commit of a ballot sent after the kill: %s after it; longest commit gap %s",
		c.name, node, back.Sub(kill).Round(time.Millisecond), len(ballots), rate,
		run.duration.Round(time.Second), len(run.committed), run.retries, run.firstFailed, run.errSamples,
		first.Round(time.Millisecond), gap.Round(time.Millisecond))
	if len(run.committed) != len(ballots) {
		t.Fatalf("%d of %d ballots committed", len(run.committed), len(ballots))
	}
	return run
}
