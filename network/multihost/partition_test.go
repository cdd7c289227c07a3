package multihost

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fabvote/fabvote/internal/atomicfile"
)

// channelInfo is `fabnet info`: a peer's height and last block hash.
type channelInfo struct {
	Height           int    `json:"height"`
	CurrentBlockHash string `json:"currentBlockHash"`
}

func (s *site) info(org string) (channelInfo, error) {
	out, err := s.try(org, filepath.Join(s.tools, "fabnet"), "info", "--topology", s.topo, "--org", org,
		"--home", s.home(org), "--bin", s.env["FABRIC_BIN"], "--timeout", "20s")
	if err != nil {
		return channelInfo{}, fmt.Errorf("%v: %s", err, out)
	}
	var ci channelInfo
	err = json.Unmarshal([]byte(lastLine(out)), &ci)
	return ci, err
}

// benchReport is the part of `fabvote bench --json` the test reads.
type benchReport struct {
	Sent, Succeeded, Failed int
	Failures                map[string]int
	Seconds                 float64
	Timeline                []int
}

// partitionResult is what the test measured (FABVOTE_PARTITION_OUT).
type partitionResult struct {
	Ballots         int     `json:"ballots"`
	RatePerSecond   float64 `json:"ratePerSecond"`
	CutHost         string  `json:"cutHost"`
	CutAfterSeconds float64 `json:"cutAfterSeconds"`
	CutSeconds      float64 `json:"cutSeconds"`
	// Heights of ea's peer and of the cut-off peer (party2's; 0 when the
	// orderers' host is cut) at the cut and at the heal.
	EAHeightAtCut      int `json:"eaHeightAtCut"`
	EAHeightAtHeal     int `json:"eaHeightAtHeal"`
	Party2HeightAtHeal int `json:"party2HeightAtHeal,omitempty"`
	// RecoverSeconds runs from the heal, while the load goes on: until
	// party2's peer has every block ea's had at the heal (party2 cut), or
	// until ea's peer commits its first block after the heal (orderers cut).
	RecoverSeconds float64        `json:"recoverSeconds"`
	Succeeded      int            `json:"succeeded"`
	Failed         int            `json:"failed"`
	Failures       map[string]int `json:"failures"`
	RunSeconds     float64        `json:"runSeconds"`
	Recast         int            `json:"recast"`
	FinalHeight    int            `json:"finalHeight"`
	Timeline       []int          `json:"committedPerSecond"`
}

// TestPartition cuts one host off the network for FABVOTE_PARTITION_CUT
// (30 s) in the middle of a fixed-rate run of FABVOTE_PARTITION_BALLOTS
// ballots, then heals it: FABVOTE_PARTITION_HOST is party2 (a peer's
// host; the default) or orderer (the host of every orderer, the Raft
// leader's among them). Nothing committed may be lost: every peer ends
// with the same height and block hash, and the election verifies on every
// org's peer with every voter's choice (voters whose cast failed during
// the cut cast again).
func TestPartition(t *testing.T) {
	if os.Getenv("FABVOTE_PARTITION_TEST") != "1" {
		t.Skip("set FABVOTE_PARTITION_TEST=1 (make multihost-partition)")
	}
	n, cut := envInt(t, "FABVOTE_PARTITION_BALLOTS", 500), envDuration(t, "FABVOTE_PARTITION_CUT", 30*time.Second)
	cutOrg := os.Getenv("FABVOTE_PARTITION_HOST")
	if cutOrg == "" {
		cutOrg = "party2"
	}
	if cutOrg != "party2" && cutOrg != "orderer" {
		t.Fatalf("FABVOTE_PARTITION_HOST=%q: want party2 (a peer's host) or orderer (the Raft leader's host)", cutOrg)
	}
	s := setup(t)
	s.up()
	lead, tail := 15*time.Second, 20*time.Second
	res := partitionResult{Ballots: n, CutHost: cutOrg, CutSeconds: cut.Seconds(), CutAfterSeconds: lead.Seconds(),
		RatePerSecond: float64(n) / (lead + cut + tail).Seconds()}
	v := s.prepareElection(n)
	v.open(lead + cut + tail + 45*time.Second)
	b := s.startBench(v, res.RatePerSecond)
	time.Sleep(lead)
	b.failIfDone("before the cut")
	res.EAHeightAtCut = s.mustInfo("ea").Height
	if err := s.lab.Cut(labHost[cutOrg]); err != nil {
		t.Fatal(err)
	}
	time.Sleep(cut)
	res.EAHeightAtHeal = s.mustInfo("ea").Height
	if cutOrg == "party2" {
		res.Party2HeightAtHeal = s.mustInfo("party2").Height
		if res.EAHeightAtHeal <= res.Party2HeightAtHeal {
			t.Errorf("ea's peer (height %d) is not ahead of the cut-off peer (height %d) at the heal: the cut did not fall in the run", res.EAHeightAtHeal, res.Party2HeightAtHeal)
		}
	}
	if err := s.lab.Heal(labHost[cutOrg]); err != nil {
		t.Fatal(err)
	}
	res.RecoverSeconds = s.recoverTime(cutOrg, res.EAHeightAtHeal, time.Now()).Seconds()
	rep := b.wait()
	res.Succeeded, res.Failed, res.Failures, res.RunSeconds, res.Timeline = rep.Succeeded, rep.Failed, rep.Failures, rep.Seconds, rep.Timeline
	s.waitSameLedger(t)
	if rep.Failed > 0 {
		// The voters whose cast failed during the cut cast again; the
		// ballots already on the ledger are refused as second votes.
		out, _ := s.try("ea", v.fv, "cast", "--network", s.netJSON("ea"), "--ballots", "ballots.bin", "--concurrency", "16", "--quiet")
		res.Recast = rep.Failed
		t.Logf("recast after %d failures: %s", rep.Failed, lastLine(out))
		s.waitSameLedger(t)
	}
	res.FinalHeight = s.mustInfo("ea").Height
	v.tallyAndVerify("ea", "party1", "party2")
	t.Logf("partition: %+v", res)
	if out := os.Getenv("FABVOTE_PARTITION_OUT"); out != "" {
		b, _ := json.MarshalIndent(res, "", "  ")
		if err := atomicfile.WriteFile(out, append(b, '\n'), 0o644); err != nil {
			t.Error(err)
		}
	}
}

// benchRun is `fabvote bench` running on ea's host.
type benchRun struct {
	s    *site
	log  string
	done chan error
}

// startBench casts the election's ballots from ea's host at a fixed rate.
func (s *site) startBench(v *vote, rate float64) *benchRun {
	t := s.t
	cmd := s.lab.Command("ea", v.fv, "bench", "--network", s.netJSON("ea"), "--org", "ea", "--ballots", "ballots.bin",
		"--rate", strconv.FormatFloat(rate, 'f', 2, 64), "--json", "bench.json", "--quiet", "--label", "partition", "--remote")
	cmd.Dir, cmd.Env = s.host("ea"), append(os.Environ(), "HOME="+s.host("ea"))
	b := &benchRun{s: s, log: filepath.Join(s.host("ea"), "bench.log"), done: make(chan error, 1)}
	logf, err := os.Create(b.log)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { b.done <- cmd.Wait(); logf.Close() }()
	return b
}

// failIfDone fails the test when the bench has already ended.
func (b *benchRun) failIfDone(when string) {
	select {
	case err := <-b.done:
		out, _ := os.ReadFile(b.log)
		b.s.t.Fatalf("fabvote bench ended %s (%v):\n%s", when, err, out)
	default:
	}
}

// wait waits for the bench to end and reads its report.
func (b *benchRun) wait() benchReport {
	if err := <-b.done; err != nil {
		out, _ := os.ReadFile(b.log)
		b.s.t.Fatalf("fabvote bench: %v\n%s", err, out)
	}
	var rep benchReport
	if err := json.Unmarshal(b.s.read("ea", "bench.json"), &rep); err != nil {
		b.s.t.Fatal(err)
	}
	return rep
}

// recoverTime polls, while the load goes on, until party2's peer has
// every block ea's had at the heal (party2 cut) or ea's peer commits a
// block after the heal (orderers cut), and returns the time since healed.
func (s *site) recoverTime(cutOrg string, eaAtHeal int, healed time.Time) time.Duration {
	deadline := healed.Add(3 * time.Minute)
	for {
		var recovered bool
		if cutOrg == "party2" {
			ci, err := s.info("party2")
			recovered = err == nil && ci.Height >= eaAtHeal
		} else {
			recovered = s.mustInfo("ea").Height > eaAtHeal
		}
		if recovered {
			return time.Since(healed)
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("no recovery within 3 min of the heal of %s", cutOrg)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

func (s *site) mustInfo(org string) channelInfo {
	s.t.Helper()
	ci, err := s.info(org)
	if err != nil {
		s.t.Fatalf("channel info of %s: %v", org, err)
	}
	return ci
}

// waitSameLedger waits until every org's peer has the same height and
// last block hash.
func (s *site) waitSameLedger(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var infos []string
		same := true
		first := s.mustInfo("ea")
		for _, o := range []string{"ea", "party1", "party2"} {
			ci := s.mustInfo(o)
			infos = append(infos, fmt.Sprintf("%s %d %s", o, ci.Height, ci.CurrentBlockHash))
			same = same && ci == first
		}
		if same {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the peers do not agree after 2 min: %s", strings.Join(infos, "; "))
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func envInt(t *testing.T, k string, def int) int {
	v := os.Getenv(k)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		t.Fatalf("%s=%q: want a positive number", k, v)
	}
	return n
}

func envDuration(t *testing.T, k string, def time.Duration) time.Duration {
	v := os.Getenv(k)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		t.Fatalf("%s=%q: want a positive duration", k, v)
	}
	return d
}
