// Command ballot-cc serves the fabvote ballot contract as a chaincode service
// (CCAAS) with mutual TLS. Its listener and TLS files come from the
// CHAINCODE_* variables (package ccserver), its behaviour from the FABVOTE_*
// variables (package ballot: proof batching, clock skew, authority MSPs).
//
// It logs its configuration and its arithmetic backend (math/big, or GMP
// when built with -tags gmp) once at start.
//
// FABVOTE_OPS_ADDR, when set to host:port, serves the operations endpoint
// there (package opsserve): /metrics with the contract's counters
// (fabvote_chaincode_*) and the Go runtime's, and /healthz, which fails when
// the chaincode listener (CHAINCODE_SERVER_ADDRESS) stops accepting.
//
// FABVOTE_PPROF_ADDR, when set to a loopback host:port, serves net/http/pprof
// there so the benchmark can profile the chaincode beside the peer and orderer.
package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	_ "net/http/pprof" // registers /debug/pprof on http.DefaultServeMux
	"os"

	"github.com/fabvote/fabvote/chaincode/ballot"
	"github.com/fabvote/fabvote/chaincode/ccserver"
	"github.com/fabvote/fabvote/crypto/paillier/arith"
	"github.com/fabvote/fabvote/internal/opsserve"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "ballot-cc:", err)
		os.Exit(1)
	}
}

func run() error {
	cfg, err := ballot.ConfigFromEnv(os.LookupEnv)
	if err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, "ballot-cc:", cfg)
	// Built with -tags gmp (make ballot-cc does so when libgmp is present),
	// proof verification runs on GMP; otherwise on math/big.
	fmt.Fprintln(os.Stderr, "ballot-cc: arithmetic backend", arith.Backend)
	if addr, ok := os.LookupEnv("FABVOTE_PPROF_ADDR"); ok && addr != "" {
		if err := servePprof(addr); err != nil {
			return err
		}
	}
	contract := ballot.New(cfg)
	cc, err := ballot.Wrap(contract)
	if err != nil {
		return err
	}
	if addr, ok := os.LookupEnv("FABVOTE_OPS_ADDR"); ok && addr != "" {
		if err := serveOps(addr, contract); err != nil {
			return err
		}
	}
	return ccserver.Run(cc)
}

// serveOps starts the operations endpoint at addr for the life of the process.
func serveOps(addr string, contract *ballot.Contract) error {
	ops := opsserve.New()
	ops.Registry.MustRegister(newStatsCollector(func() ballot.Stats { return ballot.StatsOf(contract) }))
	if listen, ok := os.LookupEnv(ccserver.EnvAddress); ok {
		ops.AddCheck("chaincode listener", opsserve.DialCheck(listen))
	}
	ln, err := opsserve.Listen(addr)
	if err != nil {
		return fmt.Errorf("FABVOTE_OPS_ADDR: %w", err)
	}
	errc := ops.Serve(context.Background(), ln)
	fmt.Fprintln(os.Stderr, "ballot-cc: operations endpoint (/metrics, /healthz) on", ln.Addr())
	go func() {
		if err := <-errc; err != nil {
			fmt.Fprintln(os.Stderr, "ballot-cc: operations endpoint stopped:", err)
		}
	}()
	return nil
}

// servePprof listens on addr, which must be a loopback address: the profile
// endpoint is unauthenticated and must never be reachable from another host.
func servePprof(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("FABVOTE_PPROF_ADDR %q: %v", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("FABVOTE_PPROF_ADDR %q: profiling is served on loopback addresses only", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("FABVOTE_PPROF_ADDR: %v", err)
	}
	fmt.Fprintln(os.Stderr, "ballot-cc: pprof on", ln.Addr())
	go func() { _ = http.Serve(ln, nil) }()
	return nil
}
