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

	"github.com/spf13/pflag"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/ballotclient"
	"github.com/fabvote/fabvote/internal/cli"
	"github.com/fabvote/fabvote/internal/gateway"
	"github.com/fabvote/fabvote/internal/loadgen"
	"github.com/fabvote/fabvote/network/fabrun"
)

func init() {
	commands = append(commands, command{"bench", "(--ballots ballots.bin [--count N] [--box https://HOST:PORT --ca-cert CA.pem | --client] | --work-delay D --count N [--chaincode NAME]) [--rate TPS | --concurrency N] [--skip-commit | --skip-endorsement] [--json out.json]",
		"load generator: cast pre-generated ballots through the gateway or a ballot box (or run the delaywork chaincode) at a fixed or maximum rate, measure TPS and latency", cmdBench})
}

// benchOptions are the flags of `bench`.
type benchOptions struct {
	ballots                 string
	workDelay               time.Duration
	delaySrc                *loadgen.DelaySource // set by checkWorkload for --work-delay
	chaincode               string
	rate, trim              float64
	conc, count, offset     int
	maxDur, commitTO        time.Duration
	skipCommit, skipEndorse bool
	store                   string
	prepareConc             int
	jsonOut, label          string
	trial                   int
	openManifest, fn        string
	gwLimit                 int
	quiet                   bool
	network, org, ident     string
	remote                  bool
	box, boxCA              string // --box: cast through this ballot box instead of the gateway
	boxConns                int
	boxTarget               *loadgen.BoxTarget // set by checkVia for --box
	client                  bool               // --client: cast as the CLI and the box do
}

func cmdBench(fs *pflag.FlagSet) func() error {
	var o benchOptions
	o.register(fs)
	return func() error {
		if err := o.check(fs); err != nil {
			return err
		}
		switch {
		case o.boxTarget != nil:
			return o.runBox()
		case o.client:
			return o.runClient()
		}
		return o.run()
	}
}

func (o *benchOptions) register(fs *pflag.FlagSet) {
	fs.StringVar(&o.ballots, "ballots", "", "ballot stream from make ballots or fabvote ballot --bulk")
	fs.DurationVar(&o.workDelay, "work-delay", 0, "instead of ballots: --count transactions of the delaywork chaincode, each holding its simulation for this long (the commit gate's benchmark)")
	fs.StringVar(&o.chaincode, "chaincode", "", "chaincode to call (default ballot; delaywork with --work-delay)")
	fs.Float64Var(&o.rate, "rate", 0, "fixed send rate in tx/s (open loop); 0 = max rate with --concurrency workers (closed loop)")
	fs.IntVar(&o.conc, "concurrency", 0, "closed loop: workers (default 64); open loop: cap on transactions in flight (default 20000)")
	fs.IntVar(&o.count, "count", 0, "transactions to send (0: every ballot in the file)")
	fs.IntVar(&o.offset, "offset", 0, "skip this many ballots first (e.g. for several rate points on one ledger)")
	fs.DurationVar(&o.maxDur, "max-duration", 30*time.Minute, "hard bound on the run (sending and draining)")
	fs.DurationVar(&o.commitTO, "commit-timeout", 2*time.Minute, "how long to wait for one transaction's commit (with --box: for the box's answer)")
	fs.BoolVar(&o.skipCommit, "skip-commit", false, "endorse only: measure the endorsement path (the thesis's skip-commit)")
	fs.BoolVar(&o.skipEndorse, "skip-endorsement", false, "endorse every ballot once in a setup phase, store the endorsed transactions, then measure only ordering and commit")
	fs.StringVar(&o.store, "store", "", "skip-endorsement: LevelDB directory of endorsed transactions (default .cache/bench/prepared-<network fingerprint>)")
	fs.IntVar(&o.prepareConc, "prepare-concurrency", 64, "skip-endorsement: workers of the setup phase")
	fs.Float64Var(&o.trim, "trim", 0.1, "steady window: fraction of the successful transactions cut at each end (ramp-up, ramp-down)")
	fs.StringVar(&o.jsonOut, "json", "", "write the JSON report here")
	fs.StringVar(&o.label, "label", "", "configuration name recorded in the report (stock, fork-all, …)")
	fs.IntVar(&o.trial, "trial", 0, "trial number recorded in the report")
	fs.StringVar(&o.openManifest, "open", "", "manifest.json: open this election first if it is not on the ledger yet (as the authority's admin)")
	fs.StringVar(&o.fn, "fn", "CastBallot", "chaincode function; each record of --ballots is its one argument")
	fs.IntVar(&o.gwLimit, "gateway-limit", 450, "bound on gateway calls in flight (keep below the peer's peer.limits.concurrency.gatewayService, 500 by default); 0 = none")
	fs.BoolVar(&o.quiet, "quiet", false, "no progress lines")
	fs.StringVar(&o.network, "network", "run/current/network.json", "network description written by make network-up")
	fs.StringVar(&o.org, "org", "", "org name or MSP id to connect as (default: the first org)")
	fs.StringVar(&o.ident, "identity", "user1", "identity of the org in network.json")
	fs.BoolVar(&o.remote, "remote", false, "allow a gateway peer or ballot box on another host (a test network of your own; refused by default)")
	o.registerBox(fs)
}

// check refuses contradictory or out-of-range flags and sets the default
// concurrency of the loop chosen.
func (o *benchOptions) check(fs *pflag.FlagSet) error {
	if err := o.checkWorkload(fs); err != nil {
		return err
	}
	if err := o.checkVia(fs); err != nil {
		return err
	}
	if o.skipCommit && o.skipEndorse {
		return cli.Usagef("--skip-commit and --skip-endorsement exclude each other")
	}
	if o.rate < 0 {
		return cli.Usagef("--rate %v: want ≥ 0", o.rate)
	}
	if o.trim < 0 || o.trim >= 0.5 {
		return cli.Usagef("--trim %v: want 0 ≤ trim < 0.5", o.trim)
	}
	if o.conc < 0 || o.count < 0 || o.offset < 0 || o.prepareConc < 1 {
		return cli.Usagef("--concurrency, --count, --offset must not be negative; --prepare-concurrency ≥ 1")
	}
	if o.conc == 0 {
		o.conc = 64
		if o.rate > 0 {
			o.conc = 20000
		}
	}
	return nil
}

// checkWorkload asks for exactly one workload, ballots or delaywork, and
// sets the chaincode and function of a delaywork run.
func (o *benchOptions) checkWorkload(fs *pflag.FlagSet) error {
	delay := fs.Changed("work-delay")
	if !delay {
		if !fs.Changed("ballots") {
			return cli.Usagef("--ballots (or --work-delay) is required")
		}
		if o.chaincode == "" {
			o.chaincode = "ballot"
		}
		return nil
	}
	switch {
	case fs.Changed("ballots"):
		return cli.Usagef("--ballots and --work-delay exclude each other")
	case o.skipEndorse:
		return cli.Usagef("--skip-endorsement replays endorsed ballots; a delaywork run spends its time in endorsement")
	case o.count == 0:
		return cli.Usagef("--work-delay needs --count")
	case o.openManifest != "":
		return cli.Usagef("--open opens a ballot election; a delaywork run has none")
	case fs.Changed("offset"):
		return cli.Usagef("--offset skips ballots; a delaywork run has none (its keys are fresh each run)")
	}
	if o.chaincode == "" {
		o.chaincode = "delaywork"
	}
	if !fs.Changed("fn") {
		o.fn = "Work"
	}
	src, err := loadgen.NewDelaySource(o.workDelay, o.count)
	if err != nil {
		return cli.Usagef("%v", err)
	}
	o.delaySrc = src
	return nil
}

// run connects, opens the election if asked to, drives the load and
// reports it.
func (o *benchOptions) run() error {
	netw, err := gateway.LoadNetwork(o.network)
	if err != nil {
		return err
	}
	ctx, cancel := signalContext()
	defer cancel()
	if o.openManifest != "" {
		if err := ensureOpen(ctx, o.network, o.openManifest); err != nil {
			return err
		}
	}
	conn, err := loadgen.Dial(netw, loadgen.DialOptions{Org: o.org, Identity: o.ident, Chaincode: o.chaincode, Remote: o.remote})
	if err != nil {
		return err
	}
	defer conn.Close()
	watchCtx, stopWatch := context.WithCancel(context.Background())
	defer stopWatch()
	if !o.skipCommit {
		if err := conn.WatchCommits(watchCtx); err != nil {
			return err
		}
	}
	cfg := loadgen.Config{Rate: o.rate, Concurrency: o.conc, Count: o.count, MaxDuration: o.maxDur, Label: "bench"}
	if !o.quiet {
		cfg.Progress = os.Stderr
	}
	slots := loadgen.NewSlots(o.gwLimit)
	w, err := o.workload(ctx, conn, slots)
	if err != nil {
		return err
	}
	defer w.close()
	target := &loadgen.FabricTarget{Conn: conn, Fn: o.fn, CommitTimeout: o.commitTO, Slots: slots, Mode: w.mode}
	fmt.Fprintf(os.Stderr, "bench: %s, %s, peer %s\n", w.mode, loopName(o.rate, o.conc), conn.Endpoint)
	run, runErr := loadgen.Drive(ctx, target, w.src, cfg)
	if run == nil {
		return runErr
	}
	rep := loadgen.NewReport(run, w.mode, cfg, w.name, o.trim)
	rep.Target = "gateway " + conn.Endpoint
	intended := 0
	if netw.Batch != nil {
		intended = netw.Batch.MaxMessageCount
	}
	rep.Blocks = loadgen.SummarizeBlocks(conn.Blocks(), intended)
	return o.report(rep, runErr, w, netw.RunDir)
}

// benchWorkload is what bench sends: the ballot file, or with
// --skip-endorsement the transactions endorsed in a setup phase.
type benchWorkload struct {
	mode  loadgen.Mode
	src   loadgen.Source
	name  string          // the workload the report names
	setup *loadgen.Report // the setup phase's, if it ran
	close func()
}

// workload opens the ballot file at --offset, or the store of endorsed
// transactions, endorsing them first if it has none for this network.
func (o *benchOptions) workload(ctx context.Context, conn *loadgen.Conn, slots chan struct{}) (*benchWorkload, error) {
	if o.skipEndorse {
		return o.replayWorkload(ctx, conn, slots)
	}
	mode := loadgen.Full
	if o.skipCommit {
		mode = loadgen.EndorseOnly
	}
	if o.delaySrc != nil {
		return &benchWorkload{mode: mode, src: o.delaySrc, name: o.delaySrc.Name(), close: func() {}}, nil
	}
	bf, err := loadgen.OpenBallots(o.ballots)
	if err != nil {
		return nil, err
	}
	if err := bf.Skip(o.offset); err != nil {
		bf.Close()
		return nil, err
	}
	return &benchWorkload{mode: mode, src: bf, name: o.ballots, close: func() { bf.Close() }}, nil
}

func (o *benchOptions) replayWorkload(ctx context.Context, conn *loadgen.Conn, slots chan struct{}) (*benchWorkload, error) {
	dir := o.store
	if dir == "" {
		dir = filepath.Join(".cache", "bench", "prepared-"+conn.Fingerprint[:16])
	}
	st, rep, err := prepareStore(ctx, conn, slots, dir, o.ballots, o.offset, o.fn, o.count, o.prepareConc, o.maxDur, o.quiet)
	if err != nil {
		return nil, err
	}
	ss := st.Source()
	closeAll := func() {
		// A replayed store is spent: its ballots are on the ledger now.
		if m, err := st.Meta(); err == nil {
			m.Replayed = true
			_ = st.SetMeta(m)
		}
		ss.Close()
		st.Close()
	}
	return &benchWorkload{mode: loadgen.Replay, src: ss, name: dir, setup: rep, close: closeAll}, nil
}

// report prints the run's report, writes it as JSON if asked to, and
// fails if any transaction did.
func (o *benchOptions) report(rep *loadgen.Report, runErr error, w *benchWorkload, runDir string) error {
	rep.Label, rep.Trial, rep.Setup = o.label, o.trial, w.setup
	rep.Network = describeNetwork(o.network, runDir)
	printBench(rep)
	if o.jsonOut != "" {
		if err := rep.WriteJSON(o.jsonOut); err != nil {
			return err
		}
		fmt.Printf("report written to %s\n", o.jsonOut)
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
			Writers string          `json:"writers"`
		}
		if json.Unmarshal(b, &raw) == nil {
			out["profile"] = raw.Profile
			if len(raw.Batch) > 0 {
				out["batch"] = string(raw.Batch)
			}
			if raw.Writers != "" {
				out["writers"] = raw.Writers
			}
		}
	}
	if runDir == "" {
		return out
	}
	h := fabrun.Home{Dir: runDir}
	names, _ := h.DefinedNodes()
	for _, name := range names {
		p, err := h.Defined(name)
		if err != nil {
			continue
		}
		out[name+" binary"] = p.Path
		for _, kv := range p.Env {
			if k, v, ok := strings.Cut(kv, "="); ok && recordedSetting(k) {
				out[name+" "+k] = v
			}
		}
	}
	return out
}

// recordedSetting reports whether a node's environment variable k is one a
// report names: the fork's switches, and the stock settings a benchmark can
// vary (bench/lib.sh's tunings), so that a raw report shows what ran.
func recordedSetting(k string) bool {
	switch k {
	case "GOGC", "GOMEMLIMIT", "GOMAXPROCS", "GODEBUG", "CORE_LEDGER_HISTORY_ENABLEHISTORYDATABASE":
		return true
	}
	return strings.HasPrefix(k, "FABVOTE_") || strings.HasPrefix(k, "CORE_PEER_LIMITS")
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
		if errors.As(err, &re) && re.Code == election.CodeExists {
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
	if b := r.Blocks; b != nil {
		fmt.Printf("  blocks: %d, transactions per block mean %.1f, median %.0f, %d–%d", b.Count, b.Mean, b.Median, b.Min, b.Max)
		if b.Intended > 0 {
			fmt.Printf("; %d of %d cut at the batch size %d", b.Full, b.Count, b.Intended)
		}
		fmt.Println()
	}
	if r.CapWaits > 0 {
		fmt.Printf("  %d sends waited for the in-flight cap (the offered rate was not met)\n", r.CapWaits)
	}
	for _, k := range r.FailureReasons() {
		fmt.Printf("  failed: %-40s %d\n", k, r.Failures[k])
	}
}
