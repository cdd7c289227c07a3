// Command fabmon writes the monitoring configuration of a fabvote network
// (package network/monitoring):
//
//	fabmon prometheus --network run/three-orgs/network.json [--registrar HOST:PORT]... [--interval 15s] --out prometheus.yml
//	fabmon dashboard --out network/monitoring/grafana/fabvote.json
//
// The scrape configuration names the TLS files network.json names, so it is
// valid on the host that holds them; load it with
// `prometheus --config.file=prometheus.yml`. The dashboard imports into
// Grafana with a Prometheus data source chosen at import. docs/cli/fabmon.md
// has every flag; exit status 0 success, 1 failure, 2 bad usage.
package main

import (
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/fabvote/fabvote/internal/atomicfile"
	"github.com/fabvote/fabvote/internal/cli"
	"github.com/fabvote/fabvote/network/monitoring"
	"github.com/fabvote/fabvote/network/netjson"
)

func main() { cli.Main(newRootCommand) }

func newRootCommand(stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "fabmon COMMAND [flags]",
		Short: "write the monitoring configuration of a fabvote network",
		Args:  cli.UnknownCommand,
		RunE:  cli.ShowUsage,
	}
	root.AddCommand(prometheusCommand(), dashboardCommand())
	cli.Configure(root, stderr)
	return root
}

func prometheusCommand() *cobra.Command {
	var network, out string
	var o monitoring.Options
	c := &cobra.Command{
		Use:   "prometheus --network network.json [--registrar HOST:PORT]... [--interval 15s] --out prometheus.yml",
		Short: "write the Prometheus scrape configuration of the network's nodes and registration services",
		Args:  noArgsButRegistrars,
	}
	fs := c.Flags()
	fs.StringVar(&network, "network", "", "network.json of the network to scrape (required)")
	fs.StringArrayVar(&o.Registrars, "registrar", nil, "operations endpoint HOST:PORT of a registration service, fabvote ea serve (repeatable)")
	fs.DurationVar(&o.Interval, "interval", 15*time.Second, "scrape interval")
	fs.StringVar(&out, "out", "", "file to write (required)")
	c.RunE = func(*cobra.Command, []string) error {
		if err := cli.Required(fs, "network", "out"); err != nil {
			return err
		}
		return writePrometheus(network, out, o)
	}
	return c
}

// noArgsButRegistrars refuses positional arguments, the likeliest being a
// second endpoint after one --registrar.
func noArgsButRegistrars(_ *cobra.Command, args []string) error {
	if len(args) > 0 {
		return cli.Usagef("unexpected argument %q (repeat --registrar for each endpoint)", args[0])
	}
	return nil
}

func dashboardCommand() *cobra.Command {
	var out string
	c := &cobra.Command{
		Use:   "dashboard --out fabvote.json",
		Short: "write the Grafana dashboard of the network (network/monitoring/grafana/fabvote.json)",
		Args:  cli.NoArgs,
	}
	c.Flags().StringVar(&out, "out", "", "file to write (required)")
	c.RunE = func(*cobra.Command, []string) error {
		if err := cli.Required(c.Flags(), "out"); err != nil {
			return err
		}
		b, err := monitoring.Dashboard()
		if err != nil {
			return err
		}
		return atomicfile.WriteFile(out, b, 0o644)
	}
	return c
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
