package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/fabvote/fabvote/internal/atomicfile"
	"github.com/fabvote/fabvote/network/compose"
	"github.com/fabvote/fabvote/network/fabnet"
	"github.com/fabvote/fabvote/network/fabrun"
	"github.com/fabvote/fabvote/network/portplan"
	"github.com/fabvote/fabvote/network/portprobe"
)

// cryptogenConfig writes cryptogen's configuration for a network whose
// organisations' keys are all made on this host (development only).
func cryptogenConfig(args []string) error {
	fs := flag.NewFlagSet("fabnet cryptogen-config", flag.ContinueOnError)
	topo := fs.String("topology", "", "the topology file (required)")
	serviceHost := fs.String("service-host", "ccaas0", "the host name of the chaincode services' TLS identity")
	out := fs.String("out", "", "crypto-config.yaml to write (required)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *topo == "" || *out == "" {
		return errors.New("--topology and --out are required")
	}
	t, err := fabnet.Load(*topo)
	if err != nil {
		return err
	}
	text, err := fabnet.CryptogenConfig(t, *serviceHost)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(*out, text, 0o600)
}

// localConnection writes network.json for a network whose organisations'
// files are all in one cryptogen-layout directory.
func localConnection(args []string) error {
	fs := flag.NewFlagSet("fabnet local-connection", flag.ContinueOnError)
	topo := fs.String("topology", "", "the topology file, with the addresses clients dial (required)")
	var c fabnet.LocalConnection
	fs.StringVar(&c.Crypto.Dir, "crypto", "", "the crypto directory, as the clients see it (required)")
	fs.StringVar(&c.RunDir, "run-dir", "", "the network's run directory, as the clients see it")
	fs.StringVar(&c.Profile, "profile", "", "the profile name network.json reports (required)")
	fs.IntVar(&c.BasePort, "base-port", 0, "the first port of the port plan network.json reports")
	fs.BoolVar(&c.ServicesUnpublished, "services-unpublished", false, "clients cannot reach the chaincode services' gRPC ports: give them no endpoint")
	out := fs.String("out", "", "network.json to write (required)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *topo == "" || c.Crypto.Dir == "" || c.Profile == "" || *out == "" {
		return errors.New("--topology, --crypto, --profile and --out are required")
	}
	t, err := fabnet.Load(*topo)
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(c.Network(t), "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(*out, append(b, '\n'), 0o600)
}

// composeFile writes the Docker network's compose file (three-orgs, every
// node a container of its own; network/docker-compose.yaml is its output).
func composeFile(args []string) error {
	fs := flag.NewFlagSet("fabnet compose", flag.ContinueOnError)
	out := fs.String("out", "", "the compose file to write (default: standard output)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	text, err := compose.DockerNetwork()
	if err != nil {
		return err
	}
	if *out == "" {
		_, err = os.Stdout.Write(text)
		return err
	}
	return atomicfile.WriteFile(*out, text, 0o644)
}

// packageCommand writes a chaincode-as-a-service package for one peer
// (network/net.sh packages each chaincode for each organisation's peer).
func packageCommand(args []string) error {
	fs := flag.NewFlagSet("fabnet package", flag.ContinueOnError)
	var sp fabrun.ServicePackage
	fs.StringVar(&sp.Label, "label", "", "the package label, NAME_VERSION (required)")
	fs.StringVar(&sp.Address, "address", "", "host:port of the chaincode service (required)")
	fs.StringVar(&sp.RootCert, "root-cert", "", "the TLS root that verifies the service")
	fs.StringVar(&sp.ClientCert, "client-cert", "", "the peer's TLS certificate, presented to the service")
	fs.StringVar(&sp.ClientKey, "client-key", "", "its key")
	builder := fs.String("builder", "", "the ccaas-builder binary (default: beside fabnet)")
	out := fs.String("out", "", "the package file to write (required)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if sp.Label == "" || sp.Address == "" || *out == "" || fs.NArg() > 0 {
		return errors.New("--label, --address and --out are required")
	}
	if *builder == "" {
		var err error
		if *builder, err = builderBesideFabnet(); err != nil {
			return err
		}
	}
	return sp.Write(*builder, *out)
}

// localIdentities makes every organisation's identities in one home from
// each organisation's own CA servers, run on this host's loopback for the
// enrollment and stopped after it (the Docker network runs no CA): their
// homes and databases stay in the organisations' crypto directories, and
// `fabnet node start --home DIR ca.ORG` starts one again for a later
// enrollment.
func localIdentities(args []string) error {
	fs := flag.NewFlagSet("fabnet local-identities", flag.ContinueOnError)
	topo := fs.String("topology", "", "the topology file (required)")
	home := fs.String("home", "", "the directory that holds every organisation's files (required)")
	service := fs.String("service-node", "ccaas0", "the TLS identity of each organisation's chaincode services")
	caBase := fs.Int("ca-base-port", 0, "the CA servers' ports while they enroll: the orderer org's at P, peer org j's at P+10(j+1) (required)")
	var tools fabrun.Tools
	fs.StringVar(&tools.FabricCA, "ca-bin", "bin", "directory of fabric-ca-server and fabric-ca-client")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *topo == "" || *home == "" || *caBase <= 0 {
		return errors.New("--topology, --home and --ca-base-port are required")
	}
	t, err := fabnet.Load(*topo)
	if err != nil {
		return err
	}
	t.OrdererOrg.CAPort = *caBase
	for j := range t.Orgs {
		t.Orgs[j].CAPort = *caBase + 10*(j+1)
	}
	if err := portprobe.Free(caListeners(t)); err != nil {
		return err
	}
	if err := absPaths(&tools.FabricCA); err != nil {
		return err
	}
	h, err := fabrun.LocalHome(*home, t)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	l := &fabrun.Local{Topology: t, Home: h, Tools: tools, ServiceNode: *service, Log: logf}
	err = errors.Join(l.Identities(ctx), h.StopAll(10*time.Second))
	if err != nil && ctx.Err() != nil {
		return interrupted{err} // fabnet exits 130
	}
	return err
}

// caListeners is the CA servers' ports of local-identities, moved by
// --ca-base-port.
func caListeners(t *fabnet.Topology) []portplan.Listener {
	var ls []portplan.Listener
	for _, l := range t.CAListeners("") {
		l.Var = "--ca-base-port"
		ls = append(ls, l)
	}
	return ls
}
