package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"

	"github.com/fabvote/fabvote/network/portplan"
	"github.com/spf13/pflag"

	"github.com/fabvote/fabvote/internal/ballotclient"
	"github.com/fabvote/fabvote/internal/box"
	"github.com/fabvote/fabvote/internal/cli"
	"github.com/fabvote/fabvote/internal/opsserve"
	"github.com/fabvote/fabvote/internal/registrar"
)

// boxOptions are the flags of `box serve`.
type boxOptions struct {
	addr, opsAddr string
	cert, key     string
	electionID    string
	origins       []string
	limits        box.Limits
	nf            netFlags
}

func cmdBoxServe(fs *pflag.FlagSet) func() error {
	o := boxOptions{limits: box.DefaultLimits()}
	fs.StringVar(&o.addr, "addr", portplan.Box(portplan.MustBase("default")), "listen address of the HTTPS ballot box (the port plan's, network/portplan)")
	fs.StringVar(&o.opsAddr, "ops-addr", "", "operations endpoint (plain HTTP /metrics and /healthz) listen address; empty: none")
	fs.StringVar(&o.cert, "tls-cert", "", "TLS server certificate (PEM; a leaf, see fabvote ea tls-cert)")
	fs.StringVar(&o.key, "tls-key", "", "TLS private key (PEM)")
	fs.StringVar(&o.electionID, "election", "", "election id: the box takes this election's ballots only")
	fs.StringArrayVar(&o.origins, "allow-origin", nil, "origin of the booth's page answered cross-origin, e.g. https://ea.example.org:8443 (repeatable)")
	boxLimitFlags(fs, &o.limits)
	o.nf.register(fs, "user1")
	return func() error {
		if err := cli.Required(fs, "tls-cert", "tls-key", "election"); err != nil {
			return err
		}
		return o.serve()
	}
}

// boxLimitFlags set box.Limits.
func boxLimitFlags(fs *pflag.FlagSet, l *box.Limits) {
	fs.Var((*rateValue)(&l.BallotRate), "ballot-rate", fmt.Sprintf("ballots (and manifest reads) per second from one client address (default %v)", l.BallotRate))
	fs.IntVar(&l.BallotBurst, "ballot-burst", l.BallotBurst, "ballots at once from one client address")
	fs.Var((*rateValue)(&l.SpoilRate), "spoil-rate", fmt.Sprintf("spoiled ballots per second from one client address (default %v)", l.SpoilRate))
	fs.IntVar(&l.SpoilBurst, "spoil-burst", l.SpoilBurst, "spoiled ballots at once from one client address")
	fs.IntVar(&l.MaxInFlight, "max-in-flight", l.MaxInFlight, "submissions waiting on the gateway at once; more are refused with 503")
	fs.DurationVar(&l.SubmitTimeout, "submit-timeout", l.SubmitTimeout, "bound on one submission, from endorsement to the commit status")
}

// serve binds the listeners, connects to the gateway, checks that the
// election is on the ledger, and runs the box until SIGINT or SIGTERM.
func (o *boxOptions) serve() error {
	if err := o.limits.Check(); err != nil {
		return cli.Usagef("%v", err)
	}
	for _, origin := range o.origins {
		if err := box.CheckOrigin(origin); err != nil {
			return cli.Usagef("%v", err)
		}
	}
	tlsConf, err := registrar.ServerTLS(o.cert, o.key)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return bindError("--addr", o.addr, err, " (make demo: BOX_ADDR or BASE_PORT)")
	}
	defer ln.Close()
	var opsLn net.Listener
	if o.opsAddr != "" {
		if opsLn, err = opsserve.Listen(o.opsAddr); err != nil {
			return bindError("--ops-addr", o.opsAddr, err, " (make demo: BOX_OPS_ADDR or BASE_PORT)")
		}
		defer opsLn.Close()
	}
	lc, err := o.nf.connect("")
	if err != nil {
		return err
	}
	defer lc.Conn.Close()
	ctx, cancel := signalContext()
	defer cancel()
	if _, err := lc.GetManifest(ctx, o.electionID); err != nil {
		return fmt.Errorf("--election %s: its manifest cannot be read through the gateway at %s: %w", o.electionID, lc.Conn.Endpoint(), err)
	}
	return o.run(ctx, ln, opsLn, tlsConf, lc)
}

// run serves the box on ln, and the operations endpoint on opsLn if any,
// until ctx ends.
func (o *boxOptions) run(ctx context.Context, ln, opsLn net.Listener, tlsConf *tls.Config, lc *ballotclient.Client) error {
	logger := log.New(os.Stderr, "box serve: ", log.LstdFlags|log.LUTC)
	ops := opsserve.New()
	ops.AddCheck("ballot box listener", opsserve.DialCheck(ln.Addr().String()))
	h, err := box.New(box.Config{ElectionID: o.electionID, Ledger: lc, AllowOrigins: o.origins, Limits: o.limits, Ops: ops, Log: logger})
	if err != nil {
		return err
	}
	if opsLn != nil {
		errc := ops.Serve(ctx, opsLn)
		logger.Printf("operations endpoint (/metrics, /healthz) at http://%s", opsLn.Addr())
		go func() {
			for err := range errc {
				logger.Printf("operations endpoint stopped: %v", err)
			}
		}()
	}
	srv := h.HTTPServer(tlsConf)
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		<-ctx.Done()
		sctx, c := context.WithTimeout(context.Background(), o.limits.SubmitTimeout)
		defer c()
		srv.Shutdown(sctx) // lets the submissions in flight answer
	}()
	logger.Printf("taking ballots of election %q at https://%s%s as %s's identity %s through the gateway at %s (origins %v)",
		o.electionID, ln.Addr(), box.BallotsPath, lc.Conn.MSPID, o.nf.identity, lc.Conn.Endpoint(), o.origins)
	if err := srv.ServeTLS(ln, "", ""); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	<-stopped
	logger.Printf("stopped")
	return nil
}
