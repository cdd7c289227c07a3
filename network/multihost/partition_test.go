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
	Ballots         int            `json:"ballots"`
	RatePerSecond   float64        `json:"ratePerSecond"`
	CutHost         string         `json:"cutHost"`
	CutAfterSeconds float64        `json:"cutAfterSeconds"`
	CutSeconds      float64        `json:"cutSeconds"`
	Succeeded       int            `json:"succeeded"`
	Failed          int            `json:"failed"`
	Failures        map[string]int `json:"failures"`
	RunSeconds      float64        `json:"runSeconds"`
	HeightAtCut     int            `json:"cutHostHeightAtCut"`
	HeightAtHeal    int            `json:"cutHostHeightAtHeal"`
	LeaderAtHeal    int            `json:"eaHeightAtHeal"`
	CatchUpSeconds  float64        `json:"catchUpSeconds"`
	Recast          int            `json:"recast"`
	FinalHeight     int            `json:"finalHeight"`
	Timeline        []int          `json:"committedPerSecond"`
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
	s := setup(t)
	s.up()
	n, cut := envInt(t, "FABVOTE_PARTITION_BALLOTS", 500), envDuration(t, "FABVOTE_PARTITION_CUT", 30*time.Second)
	cutOrg := os.Getenv("FABVOTE_PARTITION_HOST")
	if cutOrg == "" {
		cutOrg = "party2"
	}
	if cutOrg != "party2" && cutOrg != "orderer" {
		t.Fatalf("FABVOTE_PARTITION_HOST=%q: want party2 (a peer's host) or orderer (the Raft leader's host)", cutOrg)
	}
	lead, tail := 15*time.Second, 20*time.Second
	res := partitionResult{Ballots: n, CutHost: cutOrg, CutSeconds: cut.Seconds(), CutAfterSeconds: lead.Seconds()}
	res.RatePerSecond = float64(n) / (lead + cut + tail).Seconds()
	v := s.prepareElection(n)
	v.open(lead + cut + tail + 45*time.Second)

	bench := s.lab.Command("ea", v.fv, "bench", "--network", s.netJSON("ea"), "--org", "ea", "--ballots", "ballots.bin",
		"--rate", strconv.FormatFloat(res.RatePerSecond, 'f', 2, 64), "--json", "bench.json", "--quiet", "--label", "partition", "--remote")
	bench.Dir, bench.Env = s.host("ea"), append(os.Environ(), "HOME="+s.host("ea"))
	logf, err := os.Create(filepath.Join(s.host("ea"), "bench.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	bench.Stdout, bench.Stderr = logf, logf
	if err := bench.Start(); err != nil {
		t.Fatal(err)
	}
	benchDone := make(chan error, 1)
	go func() { benchDone <- bench.Wait() }()
	failIfDone := func(when string) {
		select {
		case err := <-benchDone:
			b, _ := os.ReadFile(logf.Name())
			t.Fatalf("fabvote bench ended %s (%v):\n%s", when, err, b)
		default:
		}
	}
	time.Sleep(lead)
	failIfDone("before the cut")
	res.HeightAtCut = s.mustInfo("party2").Height
	if err := s.lab.Cut(labHost[cutOrg]); err != nil {
		t.Fatal(err)
	}
	time.Sleep(cut)
	if cutOrg == "party2" {
		res.HeightAtHeal, res.LeaderAtHeal = s.mustInfo("party2").Height, s.mustInfo("ea").Height
	}
	if err := s.lab.Heal(labHost[cutOrg]); err != nil {
		t.Fatal(err)
	}
	healed := time.Now()
	failIfDone("before the heal")
	if cutOrg == "party2" && res.LeaderAtHeal <= res.HeightAtHeal {
		t.Errorf("ea's peer (height %d) is not ahead of the cut-off peer (height %d) at the heal: the cut did not fall in the run", res.LeaderAtHeal, res.HeightAtHeal)
	}
	if err := <-benchDone; err != nil {
		b, _ := os.ReadFile(logf.Name())
		t.Fatalf("fabvote bench: %v\n%s", err, b)
	}
	var rep benchReport
	if err := json.Unmarshal(s.read("ea", "bench.json"), &rep); err != nil {
		t.Fatal(err)
	}
	res.Succeeded, res.Failed, res.Failures, res.RunSeconds, res.Timeline = rep.Succeeded, rep.Failed, rep.Failures, rep.Seconds, rep.Timeline
	res.CatchUpSeconds = s.waitSameLedger(t, healed).Seconds()
	if rep.Failed > 0 {
		// The voters whose cast failed during the cut cast again; the
		// ballots already on the ledger are refused as second votes.
		out, _ := s.try("ea", v.fv, "cast", "--network", s.netJSON("ea"), "--ballots", "ballots.bin", "--concurrency", "16", "--quiet")
		res.Recast = rep.Failed
		t.Logf("recast after %d failures: %s", rep.Failed, lastLine(out))
		s.waitSameLedger(t, time.Now())
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

func (s *site) mustInfo(org string) channelInfo {
	s.t.Helper()
	ci, err := s.info(org)
	if err != nil {
		s.t.Fatalf("channel info of %s: %v", org, err)
	}
	return ci
}

// waitSameLedger waits until every org's peer has the same height and
// last block hash, and returns how long after since that took.
func (s *site) waitSameLedger(t *testing.T, since time.Time) time.Duration {
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
			return time.Since(since)
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
