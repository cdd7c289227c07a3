package main

import (
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"github.com/fabvote/fabvote/internal/box"
	"github.com/fabvote/fabvote/internal/cli"
	"github.com/fabvote/fabvote/internal/gateway"
	"github.com/fabvote/fabvote/internal/loadgen"
)

// registerBox adds the flags of bench's ballot box target.
func (o *benchOptions) registerBox(fs *pflag.FlagSet) {
	fs.StringVar(&o.box, "box", "", "cast the ballots through this ballot box (fabvote box serve), https://HOST:PORT, instead of the gateway")
	fs.StringVar(&o.boxCA, "ca-cert", "", "--box: the CA certificate of the box's TLS certificate (PEM)")
	fs.IntVar(&o.boxConns, "box-conns", box.DefaultLimits().MaxInFlight, "--box: bound on the HTTP/1.1 connections to the box, each kept alive (as many as the box's default --max-in-flight)")
}

// checkBox refuses the flags a run through a ballot box cannot follow, and
// makes its target. The box submits and waits for the commit itself, so
// the phases bench can skip or set up on the gateway do not apply.
func (o *benchOptions) checkBox(fs *pflag.FlagSet) error {
	if o.box == "" {
		for _, f := range []string{"ca-cert", "box-conns"} {
			if fs.Changed(f) {
				return cli.Usagef("--%s is for a run through a ballot box: add --box https://HOST:PORT", f)
			}
		}
		return nil
	}
	switch {
	case o.delaySrc != nil:
		return cli.Usagef("--box casts ballots; a delaywork run (--work-delay) has none")
	case o.skipCommit || o.skipEndorse:
		return cli.Usagef("--box: the box endorses, submits and waits for the commit itself; --skip-commit and --skip-endorsement do not apply")
	case o.openManifest != "":
		return cli.Usagef("--box: open the election first (fabvote election open); the box only casts ballots")
	case o.boxCA == "":
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

// runBox casts the ballots through the ballot box and reports the run, as
// run does for the gateway. The network description, if there is one, is
// only recorded in the report: the box has its own gateway connection.
func (o *benchOptions) runBox() error {
	defer o.boxTarget.Close()
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
	fmt.Fprintf(os.Stderr, "bench: ballots through the ballot box %s, %s\n", o.boxTarget.URL(), loopName(o.rate, o.conc))
	run, runErr := loadgen.Drive(ctx, o.boxTarget, w.src, cfg)
	if run == nil {
		return runErr
	}
	rep := loadgen.NewReport(run, w.mode, cfg, w.name, o.trim)
	rep.Target = "box " + o.boxTarget.URL()
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
