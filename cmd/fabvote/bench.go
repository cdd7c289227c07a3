package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fabvote/fabvote/internal/ballotclient"
	"github.com/fabvote/fabvote/internal/gateway"
	"github.com/fabvote/fabvote/internal/loadgen"
)

func init() {
	commands = append(commands, command{"bench", "load generator: cast pre-generated ballots at a fixed or maximum rate, measure TPS and latency", cmdBench})
}

func cmdBench(args []string) error {
	fs := newFlags("bench", "--ballots ballots.bin [--rate TPS | --concurrency N] [--count N] [--skip-commit | --skip-endorsement] [--json out.json]")
	ballots := fs.String("ballots", "", "ballot stream from make ballots or fabvote ballot --bulk")
	rate := fs.Float64("rate", 0, "fixed send rate in tx/s (open loop); 0 = max rate with --concurrency workers (closed loop)")
	conc := fs.Int("concurrency", 0, "closed loop: workers (default 64); open loop: cap on transactions in flight (default 20000)")
	count := fs.Int("count", 0, "transactions to send (0: every ballot in the file)")
	offset := fs.Int("offset", 0, "skip this many ballots first (e.g. for several rate points on one ledger)")
	maxDur := fs.Duration("max-duration", 30*time.Minute, "hard bound on the run (sending and draining)")
	commitTO := fs.Duration("commit-timeout", 2*time.Minute, "how long to wait for one transaction's commit")
	skipCommit := fs.Bool("skip-commit", false, "endorse only: measure the endorsement path (the thesis's skip-commit)")
	skipEndorse := fs.Bool("skip-endorsement", false, "endorse every ballot once in a setup phase, store the endorsed transactions, then measure only ordering and commit")
	store := fs.String("store", "", "skip-endorsement: LevelDB directory of endorsed transactions (default .cache/bench/prepared-<network fingerprint>)")
	prepareConc := fs.Int("prepare-concurrency", 64, "skip-endorsement: workers of the setup phase")
	trim := fs.Float64("trim", 0.1, "steady window: fraction of the successful transactions cut at each end (ramp-up, ramp-down)")
	jsonOut := fs.String("json", "", "write the JSON report here")
	label := fs.String("label", "", "configuration name recorded in the report (stock, fork-all, …)")
	trial := fs.Int("trial", 0, "trial number recorded in the report")
	openManifest := fs.String("open", "", "manifest.json: open this election first if it is not on the ledger yet (as the authority's admin)")
	fn := fs.String("fn", "CastBallot", "chaincode function; each record of --ballots is its one argument")
	gwLimit := fs.Int("gateway-limit", 450, "bound on gateway calls in flight (keep below the peer's peer.limits.concurrency.gatewayService, 500 by default); 0 = none")
	quiet := fs.Bool("quiet", false, "no progress lines")
	network := fs.String("network", "run/current/network.json", "network description written by make network-up")
	org := fs.String("org", "", "org name or MSP id to connect as (default: the first org)")
	ident := fs.String("identity", "user1", "identity of the org in network.json")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "ballots"); err != nil {
		return err
	}
	if *skipCommit && *skipEndorse {
		return usagef("--skip-commit and --skip-endorsement exclude each other")
	}
	if *rate < 0 {
		return usagef("--rate %v: want ≥ 0", *rate)
	}
	if *trim < 0 || *trim >= 0.5 {
		return usagef("--trim %v: want 0 ≤ trim < 0.5", *trim)
	}
	if *conc < 0 || *count < 0 || *offset < 0 || *prepareConc < 1 {
		return usagef("--concurrency, --count, --offset must not be negative; --prepare-concurrency ≥ 1")
	}
	if *conc == 0 {
		*conc = 64
		if *rate > 0 {
			*conc = 20000
		}
	}
	netw, err := gateway.LoadNetwork(*network)
	if err != nil {
		return err
	}
	ctx, cancel := signalContext()
	defer cancel()
	if *openManifest != "" {
		if err := ensureOpen(ctx, *network, *openManifest); err != nil {
			return err
		}
	}
	conn, err := loadgen.Dial(netw, loadgen.DialOptions{Org: *org, Identity: *ident})
	if err != nil {
		return err
	}
	defer conn.Close()
	watchCtx, stopWatch := context.WithCancel(context.Background())
	defer stopWatch()
	if !*skipCommit {
		if err := conn.WatchCommits(watchCtx); err != nil {
			return err
		}
	}
	progressOut := os.Stderr
	cfg := loadgen.Config{Rate: *rate, Concurrency: *conc, Count: *count, MaxDuration: *maxDur, Label: "bench"}
	if !*quiet {
		cfg.Progress = progressOut
	}
	slots := loadgen.NewSlots(*gwLimit)
	target := &loadgen.FabricTarget{Conn: conn, Fn: *fn, CommitTimeout: *commitTO, Slots: slots}

	var setup *loadgen.Report
	var src loadgen.Source
	workload := *ballots
	mode := loadgen.Full
	switch {
	case *skipCommit:
		mode = loadgen.EndorseOnly
	case *skipEndorse:
		mode = loadgen.Replay
		dir := *store
		if dir == "" {
			dir = filepath.Join(".cache", "bench", "prepared-"+conn.Fingerprint[:16])
		}
		st, rep, err := prepareStore(ctx, conn, slots, dir, *ballots, *offset, *fn, *count, *prepareConc, *maxDur, *quiet)
		if err != nil {
			return err
		}
		defer st.Close()
		setup = rep
		ss := st.Source()
		defer ss.Close()
		src, workload = ss, dir
		defer func() {
			// A replayed store is spent: its ballots are on the ledger now.
			if m, err := st.Meta(); err == nil {
				m.Replayed = true
				_ = st.SetMeta(m)
			}
		}()
	}
	if src == nil {
		bf, err := loadgen.OpenBallots(*ballots)
		if err != nil {
			return err
		}
		defer bf.Close()
		if err := bf.Skip(*offset); err != nil {
			return err
		}
		src = bf
	}
	target.Mode = mode
	fmt.Fprintf(os.Stderr, "bench: %s, %s loop, %s, peer %s\n", mode, map[bool]string{true: "open", false: "closed"}[*rate > 0],
		map[bool]string{true: fmt.Sprintf("%.1f tx/s", *rate), false: fmt.Sprintf("%d workers", *conc)}[*rate > 0], conn.Endpoint)
	run, runErr := loadgen.Drive(ctx, target, src, cfg)
	if run == nil {
		return runErr
	}
	rep := loadgen.NewReport(run, mode, cfg, workload, *trim)
	rep.Label, rep.Trial, rep.Setup = *label, *trial, setup
	rep.Network = describeNetwork(*network, netw.RunDir)
	printBench(rep)
	if *jsonOut != "" {
		if err := rep.WriteJSON(*jsonOut); err != nil {
			return err
		}
		fmt.Printf("report written to %s\n", *jsonOut)
	}
	if runErr != nil {
		return runErr
	}
	if rep.Failed > 0 || rep.TimedOut {
		return fmt.Errorf("%d of %d transactions failed%s", rep.Failed, rep.Sent, map[bool]string{true: " (the run hit --max-duration)", false: ""}[rep.TimedOut])
	}
	return nil
}

// prepareStore returns a store of endorsed transactions for this network
// instance, running the setup phase (endorse every ballot, keep the
// transactions) unless dir already holds a complete, unreplayed one.
func prepareStore(ctx context.Context, conn *loadgen.Conn, slots chan struct{}, dir, ballots string, offset int, fn string, count, workers int, maxDur time.Duration, quiet bool) (*loadgen.Store, *loadgen.Report, error) {
	if st, err := loadgen.OpenStore(dir); err == nil {
		m, merr := st.Meta()
		switch {
		case merr == nil && m.Fingerprint == conn.Fingerprint && !m.Replayed && m.Fn == fn && m.Offset == offset && (count == 0 || m.Count >= count):
			fmt.Fprintf(os.Stderr, "bench: replaying %d endorsed transactions from %s (setup done %s)\n", m.Count, dir, m.Created.Format(time.RFC3339))
			return st, nil, nil
		case merr == nil && m.Replayed:
			fmt.Fprintf(os.Stderr, "bench: %s was already replayed on this network; endorsing again\n", dir)
		case merr == nil && m.Fingerprint != conn.Fingerprint:
			fmt.Fprintf(os.Stderr, "bench: %s was endorsed on another network instance; endorsing again\n", dir)
		}
		st.Close()
	}
	st, err := loadgen.CreateStore(dir)
	if err != nil {
		return nil, nil, err
	}
	bf, err := loadgen.OpenBallots(ballots)
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	defer bf.Close()
	if err := bf.Skip(offset); err != nil {
		st.Close()
		return nil, nil, err
	}
	fmt.Fprintf(os.Stderr, "bench: setup phase: endorsing the ballots once into %s\n", dir)
	t := &loadgen.FabricTarget{Conn: conn, Fn: fn, Mode: loadgen.EndorseOnly, Keep: st.Put, Slots: slots}
	cfg := loadgen.Config{Concurrency: workers, Count: count, MaxDuration: maxDur, Label: "setup"}
	if !quiet {
		cfg.Progress = os.Stderr
	}
	run, err := loadgen.Drive(ctx, t, bf, cfg)
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	rep := loadgen.NewReport(run, loadgen.EndorseOnly, cfg, ballots, 0.1)
	if rep.Failed > 0 {
		st.Close()
		printBench(rep)
		return nil, nil, fmt.Errorf("setup phase: %d of %d endorsements failed; nothing to replay", rep.Failed, rep.Sent)
	}
	if err := st.SetMeta(loadgen.StoreMeta{Fingerprint: conn.Fingerprint, Fn: fn, Source: ballots, Offset: offset, Count: rep.Succeeded, Created: time.Now().UTC()}); err != nil {
		st.Close()
		return nil, nil, err
	}
	fmt.Fprintf(os.Stderr, "bench: setup phase done: %d transactions endorsed in %.1fs (%.1f tx/s)\n", rep.Succeeded, rep.Seconds, rep.TPS)
	return st, rep, nil
}

// describeNetwork records what the report's numbers were measured on: the
// network's batch settings and, per node of a network started by network/net.sh,
// its binary and FABVOTE_* switches (from the run directory's node files).
func describeNetwork(path, runDir string) map[string]string {
	out := map[string]string{"description": path}
	if b, err := os.ReadFile(path); err == nil {
		var raw struct {
			Profile string          `json:"profile"`
			Batch   json.RawMessage `json:"batch"`
		}
		if json.Unmarshal(b, &raw) == nil {
			out["profile"] = raw.Profile
			if len(raw.Batch) > 0 {
				out["batch"] = string(raw.Batch)
			}
		}
	}
	if runDir == "" {
		return out
	}
	nodes, _ := filepath.Glob(filepath.Join(runDir, "nodes", "*"))
	for _, n := range nodes {
		name := filepath.Base(n)
		if cmd, err := os.ReadFile(filepath.Join(n, "cmd")); err == nil {
			out[name+" binary"], _, _ = strings.Cut(string(cmd), "\n")
		}
		env, err := os.ReadFile(filepath.Join(n, "env"))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(env), "\n") {
			if k, v, ok := strings.Cut(line, "="); ok && (strings.HasPrefix(k, "FABVOTE_") || strings.HasPrefix(k, "CORE_PEER_LIMITS")) {
				out[name+" "+k] = v
			}
		}
	}
	return out
}

// ensureOpen opens the election of manifestPath unless the ledger has it.
func ensureOpen(ctx context.Context, network, manifestPath string) error {
	m, data, err := loadManifest(manifestPath)
	if err != nil {
		return err
	}
	nf := netFlags{network: network, identity: "admin", maxAttempts: 8}
	lc, err := nf.connect(m.AuthorityMSP)
	if err != nil {
		return err
	}
	defer lc.Conn.Close()
	if _, err := lc.GetManifest(ctx, m.ElectionID); err == nil {
		return waitOpenEverywhere(ctx, network, m.ElectionID)
	}
	if time.Now().Before(m.Start) || !time.Now().Before(m.End) {
		return fmt.Errorf("--open %s: the voting window [%s, %s) is not open now", manifestPath, m.Start.Format(time.RFC3339), m.End.Format(time.RFC3339))
	}
	r, err := lc.OpenElection(ctx, data)
	if err != nil {
		var re *gateway.RejectError
		if errors.As(err, &re) && re.Code == "EXISTS" {
			return waitOpenEverywhere(ctx, network, m.ElectionID)
		}
		return err
	}
	fmt.Fprintf(os.Stderr, "bench: election %q opened in block %d\n", m.ElectionID, r.Block)
	return waitOpenEverywhere(ctx, network, m.ElectionID)
}

// waitOpenEverywhere waits until every organisation's peer has the election.
// A ballot sent while one endorser has committed the opening and another has
// not gets two different proposal responses and fails
// ("ProposalResponsePayloads do not match"), so the load must wait for the
// slowest peer, not just the one that answered the open.
func waitOpenEverywhere(ctx context.Context, network, electionID string) error {
	net, err := gateway.LoadNetwork(network)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	for _, o := range net.Orgs {
		conn, err := gateway.Connect(net, gateway.Options{Org: o.MSPID, Identity: "admin", MaxAttempts: 1})
		if err != nil {
			return fmt.Errorf("--open: checking org %s has election %q: %w", o.MSPID, electionID, err)
		}
		lc := ballotclient.New(conn)
		for {
			_, err = lc.GetManifest(ctx, electionID)
			if err == nil {
				break
			}
			select {
			case <-ctx.Done():
				lc.Conn.Close()
				return fmt.Errorf("--open: org %s's peer does not have election %q after 60 s: %w", o.MSPID, electionID, err)
			case <-time.After(200 * time.Millisecond):
			}
		}
		lc.Conn.Close()
	}
	return nil
}

func printBench(r *loadgen.Report) {
	fmt.Printf("%s (%s loop): %d sent, %d succeeded, %d failed in %.2fs\n", r.Mode, r.Loop, r.Sent, r.Succeeded, r.Failed, r.Seconds)
	fmt.Printf("  throughput %.1f tx/s overall; steady window %.1f–%.1fs: %.1f tx/s over %d tx\n",
		r.TPS, r.Steady.From, r.Steady.To, r.Steady.TPS, r.Steady.Txs)
	l := r.Latency
	fmt.Printf("  latency ms: p50 %.1f  p90 %.1f  p99 %.1f  mean %.1f  max %.1f\n", l.P50, l.P90, l.P99, l.Mean, l.Max)
	if r.EndorseLatency.N > 0 && r.Mode != "skip-commit" {
		e := r.EndorseLatency
		fmt.Printf("  endorsement ms: p50 %.1f  p90 %.1f  p99 %.1f\n", e.P50, e.P90, e.P99)
	}
	if r.CapWaits > 0 {
		fmt.Printf("  %d sends waited for the in-flight cap (the offered rate was not met)\n", r.CapWaits)
	}
	for _, k := range r.FailureReasons() {
		fmt.Printf("  failed: %-40s %d\n", k, r.Failures[k])
	}
}
