package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"github.com/fabvote/fabvote/internal/box"
	"github.com/fabvote/fabvote/internal/cli"
	"github.com/fabvote/fabvote/internal/gateway"
	"github.com/fabvote/fabvote/internal/loadgen"
)

// registerBox adds the flags of bench's one-call targets: a ballot box
// (--box) and its baseline, the CLI's gateway client (--client).
func (o *benchOptions) registerBox(fs *pflag.FlagSet) {
	fs.StringVar(&o.box, "box", "", "cast the ballots through this ballot box (fabvote box serve), https://HOST:PORT, instead of the gateway")
	fs.StringVar(&o.boxCA, "ca-cert", "", "--box: the CA certificate of the box's TLS certificate (PEM)")
	fs.IntVar(&o.boxConns, "box-conns", box.DefaultLimits().MaxInFlight, "--box: bound on the HTTP/1.1 connections to the box, each kept alive (as many as the box's default --max-in-flight)")
	fs.BoolVar(&o.client, "client", false, "cast each ballot as the CLI and the ballot box do (Submit, then a commit-status call, with retries), not through the load generator's own endorse-and-submit path and block-event stream: the ballot box's baseline")
}

// checkVia refuses the flags a run through a ballot box or the CLI's
// client (--client) cannot follow, and makes a box's target. Both submit
// and wait for the commit in one call, so the phases bench can skip or set
// up on the gateway do not apply.
func (o *benchOptions) checkVia(fs *pflag.FlagSet) error {
	if o.box != "" && o.client {
		return cli.Usagef("--box and --client exclude each other: --client is the box's baseline, without the box")
	}
	if o.client {
		return o.checkOneCall(fs, "--client", "commit-timeout", "ca-cert", "box-conns")
	}
	if o.box == "" {
		for _, f := range []string{"ca-cert", "box-conns"} {
			if fs.Changed(f) {
				return cli.Usagef("--%s is for a run through a ballot box: add --box https://HOST:PORT", f)
			}
		}
		return nil
	}
	if err := o.checkOneCall(fs, "--box"); err != nil {
		return err
	}
	if o.boxCA == "" {
		return cli.Usagef("--box needs --ca-cert, the CA of the box's TLS certificate")
	}
	ca, err := os.ReadFile(o.boxCA)
	if err != nil {
		return cli.Usagef("--ca-cert: %v", err)
	}
	o.boxTarget, err = loadgen.NewBoxTarget(loadgen.BoxOptions{URL: o.box, CACert: ca, Conns: o.boxConns, Timeout: o.commitTO, Remote: o.remote})
	if err != nil {
		return cli.Usagef("%v (--box %s, --ca-cert %s, --box-conns %d)", err, o.box, o.boxCA, o.boxConns)
	}
	return nil
}

// checkOneCall refuses, for a run whose every ballot is one cast that
// endorses, submits and waits for the commit (via: --box or --client), the
// flags that split or skip those phases, or that set what only the load
// generator's own path uses, and the flags in unused.
func (o *benchOptions) checkOneCall(fs *pflag.FlagSet, via string, unused ...string) error {
	for _, f := range append([]string{"fn", "chaincode", "gateway-limit", "store", "prepare-concurrency"}, unused...) {
		if fs.Changed(f) {
			return cli.Usagef("%s casts each ballot as a voter's does; --%s does not apply", via, f)
		}
	}
	switch {
	case o.delaySrc != nil:
		return cli.Usagef("%s casts ballots; a delaywork run (--work-delay) has none", via)
	case o.skipCommit || o.skipEndorse:
		return cli.Usagef("%s: each ballot is one call that endorses, submits and waits for the commit; --skip-commit and --skip-endorsement do not apply", via)
	case o.openManifest != "":
		return cli.Usagef("%s: open the election first (fabvote election open); this run only casts ballots", via)
	}
	return nil
}

// runBox casts the ballots through the ballot box, which has its own
// gateway connection.
func (o *benchOptions) runBox() error {
	defer o.boxTarget.Close()
	desc := "through the ballot box " + o.boxTarget.URL()
	return o.runOneCall(o.boxTarget, desc, "box "+o.boxTarget.URL())
}

// runClient casts the ballots as the ballot box does, without the box:
// the box's connection (netFlags.connect, its org choice, the gateway's
// timeouts and retries) and, for each ballot, ballotclient.CastBallot
// under the box's submission timeout, detached from the run's
// cancellation as the box detaches it from the voter's request.
func (o *benchOptions) runClient() error {
	nf := netFlags{network: o.network, org: o.org, identity: o.ident}
	lc, err := nf.connect("")
	if err != nil {
		return err
	}
	defer lc.Conn.Close()
	if !o.remote {
		if err := loadgen.CheckLoopback(lc.Conn.Endpoint()); err != nil {
			return err
		}
	}
	submitTimeout := box.DefaultLimits().SubmitTimeout
	target := &loadgen.CastTarget{Cast: func(ctx context.Context, ballot []byte) error {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), submitTimeout)
		defer cancel()
		_, err := lc.CastBallot(ctx, ballot)
		return err
	}}
	desc := "as the ballot box casts them (submit, then commit status), peer " + lc.Conn.Endpoint()
	return o.runOneCall(target, desc, "client "+lc.Conn.Endpoint())
}

// runOneCall drives target, whose every ballot is one call, and reports
// the run as run does for the gateway. The network description, if there
// is one, is only recorded in the report.
func (o *benchOptions) runOneCall(target loadgen.Target, desc, name string) error {
	ctx, cancel := signalContext()
	defer cancel()
	w, err := o.workload(ctx, nil, nil)
	if err != nil {
		return err
	}
	defer w.close()
	cfg := loadgen.Config{Rate: o.rate, Concurrency: o.conc, Count: o.count, MaxDuration: o.maxDur, Label: "bench"}
	if !o.quiet {
		cfg.Progress = os.Stderr
	}
	fmt.Fprintf(os.Stderr, "bench: ballots %s, %s\n", desc, loopName(o.rate, o.conc))
	run, runErr := loadgen.Drive(ctx, target, w.src, cfg)
	if run == nil {
		return runErr
	}
	rep := loadgen.NewReport(run, w.mode, cfg, w.name, o.trim)
	rep.Target = name
	runDir := ""
	if netw, err := gateway.LoadNetwork(o.network); err == nil {
		runDir = netw.RunDir
	}
	return o.report(rep, runErr, w, runDir)
}

// loopName describes the load: a fixed rate (open loop) or workers (closed loop).
func loopName(rate float64, conc int) string {
	if rate > 0 {
		return fmt.Sprintf("open loop, %.1f tx/s", rate)
	}
	return fmt.Sprintf("closed loop, %d workers", conc)
}
