// Command fabmon writes the monitoring configuration of a fabvote network
// (package network/monitoring):
//
//	fabmon prometheus --network run/three-orgs/network.json [--registrar HOST:PORT]... [--interval 15s] --out prometheus.yml
//	fabmon dashboard --out network/monitoring/grafana/fabvote.json
//
// The scrape configuration names the TLS files network.json names, so it is
// valid on the host that holds them; load it with
// `prometheus --config.file=prometheus.yml`. The dashboard imports into
// Grafana with a Prometheus data source chosen at import.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/fabvote/fabvote/internal/atomicfile"
	"github.com/fabvote/fabvote/network/monitoring"
	"github.com/fabvote/fabvote/network/netjson"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "fabmon:", err)
		os.Exit(2)
	}
}

type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

func run(args []string) error {
	if len(args) == 0 {
		return errors.New("usage: fabmon prometheus|dashboard [flags]")
	}
	fs := flag.NewFlagSet("fabmon "+args[0], flag.ContinueOnError)
	out := fs.String("out", "", "file to write (required)")
	switch args[0] {
	case "prometheus":
		network := fs.String("network", "", "network.json of the network to scrape (required)")
		var registrars listFlag
		fs.Var(&registrars, "registrar", "operations endpoint (host:port) of an `ea serve` (repeatable)")
		interval := fs.Duration("interval", 15*time.Second, "scrape interval")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if fs.NArg() > 0 {
			return fmt.Errorf("prometheus: unexpected argument %q (repeat --registrar for each endpoint)", fs.Arg(0))
		}
		if *network == "" || *out == "" {
			return errors.New("prometheus: --network and --out are required")
		}
		return writePrometheus(*network, *out, monitoring.Options{Interval: *interval, Registrars: registrars})
	case "dashboard":
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if fs.NArg() > 0 {
			return fmt.Errorf("dashboard: unexpected argument %q", fs.Arg(0))
		}
		if *out == "" {
			return errors.New("dashboard: --out is required")
		}
		b, err := monitoring.Dashboard()
		if err != nil {
			return err
		}
		return atomicfile.WriteFile(*out, b, 0o644)
	}
	return fmt.Errorf("unknown command %q: want prometheus or dashboard", args[0])
}

func writePrometheus(network, out string, o monitoring.Options) error {
	n, err := netjson.Load(network)
	if err != nil {
		return err
	}
	c, err := monitoring.Prometheus(n, o)
	if err != nil {
		return err
	}
	b, err := c.YAML()
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(out, b, 0o644)
}
