package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/fabvote/fabvote/internal/atomicfile"
	"github.com/fabvote/fabvote/internal/cli"
	"github.com/fabvote/fabvote/network/compose"
	"github.com/fabvote/fabvote/network/fabnet"
	"github.com/fabvote/fabvote/network/fabrun"
	"github.com/fabvote/fabvote/network/portplan"
	"github.com/fabvote/fabvote/network/portprobe"
)

// localCommands serve the networks whose organisations' files are all on
// one host: network/net.sh's native processes and the Docker network.
var localCommands = []command{
	{name: "configtx", synopsis: "--topology T (--orderer-msp DIR --msp ORG=DIR ... --consenter-cert ORDERER=FILE ... | --crypto DIR) --out configtx.yaml",
		summary: "write the channel's configtx.yaml from the organisations' MSPs", setup: configtxSetup},
	{name: "cryptogen-config", synopsis: "--topology T [--service-host ccaas0] --out crypto-config.yaml",
		summary: "write cryptogen's configuration for every organisation (development only)", setup: cryptogenConfigSetup},
	{name: "local-up", synopsis: "--home DIR --tools DIR --profile P [--chaincode NAME=./pkg ...]",
		summary: "bring up every organisation on this host from one home (network/net.sh up)", setup: localUpSetup},
	{name: "local-identities", synopsis: "--topology T --home DIR --ca-base-port P [--service-node N]",
		summary: "every organisation's identities from its own CA servers, into one home (the Docker network)", setup: localIdentitiesSetup},
	{name: "local-connection", synopsis: "--topology T --crypto DIR --home DIR --profile P --out network.json",
		summary: "write network.json for a network whose organisations' files are in one crypto directory", setup: localConnectionSetup},
	{name: "local-channel join", synopsis: localChannelSynopsis,
		summary: "join every orderer and peer to the channel, skipping those that are members", setup: localChannelSetup("join")},
	{name: "local-channel deploy", synopsis: localChannelSynopsis + " --packages DIR [--version V] [--sequence N]",
		summary: "install, approve and commit a chaincode definition on every peer (the next sequence upgrades)", setup: localChannelSetup("deploy")},
	{name: "local-channel height", synopsis: localChannelSynopsis + " --org ORG",
		summary: "print the ledger height of an organisation's peer", setup: localChannelSetup("height")},
	{name: "compose", synopsis: "[--out FILE]",
		summary: "write the Docker network's compose file (network/docker-compose.yaml)", setup: composeSetup},
	{name: "package", synopsis: "--label L --address HOST:PORT --ca-cert FILE --tls-cert FILE --tls-key FILE --out P",
		summary: "write a chaincode-as-a-service package for one peer", setup: packageSetup},
}

// configtx writes configtx.yaml for a topology whose organisations'
// files are all on this host (network/net.sh's single-host network).
func configtxSetup(fs *pflag.FlagSet) func([]string) error {
	topo := fs.String("topology", "", "the topology file (required)")
	ordererMSP := fs.String("orderer-msp", "", "the ordering organisation's MSP directory (or --crypto)")
	crypto := fs.String("crypto", "", "every organisation's files in this cryptogen-layout directory, instead of --orderer-msp, --msp and --consenter-cert")
	out := fs.String("out", "", "configtx.yaml to write (required)")
	msps := fs.StringArray("msp", nil, "ORG=DIR: a peer organisation's MSP directory (one per organisation)")
	certs := fs.StringArray("consenter-cert", nil, "ORDERER=FILE: an orderer's TLS certificate (one per orderer)")
	return func([]string) error {
		if *topo == "" || *out == "" || (*ordererMSP == "") == (*crypto == "") {
			return cli.Usagef("--topology, --out and one of --orderer-msp and --crypto are required")
		}
		if *crypto != "" && (len(*msps) > 0 || len(*certs) > 0) {
			return cli.Usagef("--crypto names every MSP and certificate: not with --msp or --consenter-cert")
		}
		files := fabnet.ConfigtxFiles{OrdererMSP: *ordererMSP}
		var err error
		if files.MSP, err = pairs("--msp", *msps); err != nil {
			return err
		}
		if files.ConsenterCert, err = pairs("--consenter-cert", *certs); err != nil {
			return err
		}
		t, err := fabnet.Load(*topo)
		if err != nil {
			return err
		}
		if *crypto != "" {
			files = fabnet.Layout{Dir: *crypto}.ConfigtxFiles(t)
		}
		text, err := fabnet.Configtx(t, files)
		if err != nil {
			return err
		}
		return atomicfile.WriteFile(*out, text, 0o644)
	}
}

// cryptogenConfig writes cryptogen's configuration for a network whose
// organisations' keys are all made on this host (development only).
func cryptogenConfigSetup(fs *pflag.FlagSet) func([]string) error {
	topo := fs.String("topology", "", "the topology file (required)")
	serviceHost := fs.String("service-host", "ccaas0", "the host name of the chaincode services' TLS identity")
	out := fs.String("out", "", "crypto-config.yaml to write (required)")
	return func([]string) error {
		if *topo == "" || *out == "" {
			return cli.Usagef("--topology and --out are required")
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
}

// localConnection writes network.json for a network whose organisations'
// files are all in one cryptogen-layout directory.
func localConnectionSetup(fs *pflag.FlagSet) func([]string) error {
	topo := fs.String("topology", "", "the topology file, with the addresses clients dial (required)")
	var c fabnet.LocalConnection
	fs.StringVar(&c.Crypto.Dir, "crypto", "", "the crypto directory, as the clients see it (required)")
	fs.StringVar(&c.RunDir, "home", "", "the network's home (run directory), as the clients see it")
	cli.Alias(fs, "home", "run-dir")
	fs.StringVar(&c.Profile, "profile", "", "the profile name network.json reports (required)")
	fs.IntVar(&c.BasePort, "base-port", 0, "the first port of the port plan network.json reports")
	fs.BoolVar(&c.ServicesUnpublished, "services-unpublished", false, "clients cannot reach the chaincode services' gRPC ports: give them no endpoint")
	out := fs.String("out", "", "network.json to write (required)")
	return func([]string) error {
		if *topo == "" || c.Crypto.Dir == "" || c.Profile == "" || *out == "" {
			return cli.Usagef("--topology, --crypto, --profile and --out are required")
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
}

// composeFile writes the Docker network's compose file (three-orgs, every
// node a container of its own; network/docker-compose.yaml is its output).
func composeSetup(fs *pflag.FlagSet) func([]string) error {
	out := fs.String("out", "", "the compose file to write (default: standard output)")
	return func([]string) error {
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
}

// packageSetup writes a chaincode-as-a-service package for one peer
// (network/net.sh and the Docker network package each chaincode for each
// organisation's peer).
func packageSetup(fs *pflag.FlagSet) func([]string) error {
	var sp fabrun.ServicePackage
	fs.StringVar(&sp.Label, "label", "", "the package label, NAME_VERSION (required)")
	fs.StringVar(&sp.Address, "address", "", "host:port of the chaincode service (required)")
	fs.StringVar(&sp.RootCert, "ca-cert", "", "the TLS root that verifies the service")
	fs.StringVar(&sp.ClientCert, "tls-cert", "", "the peer's TLS certificate, presented to the service")
	fs.StringVar(&sp.ClientKey, "tls-key", "", "its key")
	cli.Alias(fs, "ca-cert", "root-cert")
	cli.Alias(fs, "tls-cert", "client-cert")
	cli.Alias(fs, "tls-key", "client-key")
	builder := fs.String("builder", "", "the ccaas-builder binary (default: beside fabnet)")
	out := fs.String("out", "", "the package file to write (required)")
	return func([]string) error {
		if sp.Label == "" || sp.Address == "" || *out == "" {
			return cli.Usagef("--label, --address and --out are required")
		}
		if *builder == "" {
			var err error
			if *builder, err = builderBesideFabnet(); err != nil {
				return err
			}
		}
		return sp.Write(*builder, *out)
	}
}

// localIdentities makes every organisation's identities in one home from
// each organisation's own CA servers, run on this host's loopback for the
// enrollment and stopped after it (the Docker network runs no CA): their
// homes and databases stay in the organisations' crypto directories, and
// `fabnet node start --home DIR ca.ORG` starts one again for a later
// enrollment.
func localIdentitiesSetup(fs *pflag.FlagSet) func([]string) error {
	topo := fs.String("topology", "", "the topology file (required)")
	home := fs.String("home", "", "the directory that holds every organisation's files (required)")
	service := fs.String("service-node", "ccaas0", "the TLS identity of each organisation's chaincode services")
	caBase := fs.Int("ca-base-port", 0, "the CA servers' ports while they enroll: the orderer org's at P, peer org j's at P+10(j+1) (required)")
	var tools fabrun.Tools
	fs.StringVar(&tools.FabricCA, "ca-bin", "bin", "directory of fabric-ca-server and fabric-ca-client")
	return func([]string) error {
		if *topo == "" || *home == "" || *caBase <= 0 {
			return cli.Usagef("--topology, --home and --ca-base-port are required")
		}
		t, err := fabnet.Load(*topo)
		if err != nil {
			return err
		}
		return localIdentities(t, *home, *service, *caBase, tools)
	}
}

func localIdentities(t *fabnet.Topology, home, service string, caBase int, tools fabrun.Tools) error {
	t.OrdererOrg.CAPort = caBase
	for j := range t.Orgs {
		t.Orgs[j].CAPort = caBase + 10*(j+1)
	}
	if err := portprobe.Free(caListeners(t)); err != nil {
		return err
	}
	if err := absPaths(&tools.FabricCA); err != nil {
		return err
	}
	h, err := fabrun.LocalHome(home, t)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	l := &fabrun.Local{Topology: t, Home: h, Tools: tools, ServiceNode: service, Log: logf}
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
