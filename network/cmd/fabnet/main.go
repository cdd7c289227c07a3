// Command fabnet sets up fabvote's Fabric network one organisation at a
// time, as organisations on separate hosts do (package network/fabnet;
// the procedure: docs/MULTIHOST.md). Every step runs on the host of the
// organisation it names and touches only that organisation's home.
//
//	fabnet topology   --profile three-orgs --host ea=10.0.0.11 ... --out topology.json
//	fabnet identities --topology T --org ORG --home DIR     its CAs, its keys, its bundle
//	fabnet receive    --topology T --org ORG --home DIR --from OTHER --bundle PATH [--expect-digest SHA256]
//	fabnet genesis    --topology T --org orderer --home DIR the channel's genesis block
//	fabnet orderers   --topology T --org orderer --home DIR start and join the orderers
//	fabnet peer       --topology T --org ORG --home DIR --chaincode ballot=BIN
//	                  (orderers, peer: --runtime compose runs the nodes as containers of
//	                  the org's own compose project, HOME/compose.yaml)
//	fabnet commit     --topology T --org ORG --home DIR     commit the chaincode definitions, write network.json
//	fabnet connection --topology T --org ORG --home DIR     wait for them, write network.json
//	fabnet info       --topology T --org ORG --home DIR     its peer's channel height and hash
//	fabnet add-org    --topology T --org ORG --home DIR --new NEW --out update.pb
//	fabnet sign-update / submit-update --topology T --org ORG --home DIR --new NEW --update update.pb
//	fabnet configtx   --topology T --orderer-msp DIR --msp ORG=DIR ... --consenter-cert ORDERER=FILE ... --out configtx.yaml
//	                  or --crypto DIR: every organisation's files in one cryptogen-layout directory
//	fabnet cryptogen-config --topology T [--service-host ccaas0] --out crypto-config.yaml
//	fabnet local-up   --run-dir DIR --tools DIR --profile P [--chaincode NAME=./pkg ...]
//	                  every organisation on this host from one run dir (network/net.sh up)
//	fabnet local-identities --topology T --home DIR --ca-base-port P [--service-node N]
//	                  every organisation's identities from its own CA servers, into one home (the Docker network)
//	fabnet local-connection --topology T --crypto DIR --run-dir DIR --profile P --out network.json
//	fabnet local-channel join|deploy|height --topology T --home DIR [--packages DIR --version V --sequence N | --org ORG]
//	                  the channel and the definitions on nodes another tool runs (the Docker network)
//	fabnet compose    [--out FILE]                          the Docker network's compose file
//	fabnet package    --label L --address A --root-cert --client-cert --client-key --out P
//	                  (these six: networks with every organisation's files on one host,
//	                  network/net.sh and the Docker network)
//	fabnet down       --home DIR                            stop every process of the home
//	fabnet status     --home DIR
//	fabnet node define|start|stop|kill|pid|pids|running|status|log|stop-all --home DIR ...
//	                  nodes defined once and run by name (network/net.sh's processes)
//	fabnet ports list|env|check [--stack S] ...
//	                  the port plan (network/portplan): every listener's port, and whether it is free
//	fabnet ops|raft-leader|wait-orderer --topology T --crypto DIR ...
//	                  a node's operations endpoint, the Raft leader, a restarted orderer's wait
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fabvote/fabvote/internal/atomicfile"
	"github.com/fabvote/fabvote/network/compose"
	"github.com/fabvote/fabvote/network/fabnet"
	"github.com/fabvote/fabvote/network/fabrun"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "fabnet:", err)
		if errors.As(err, new(interrupted)) {
			os.Exit(130)
		}
		os.Exit(1)
	}
}

// orgFlags are the flags of every step an organisation runs.
type orgFlags struct {
	topology, org, home string
	tools               fabrun.Tools
	timeout             time.Duration
	logSpec             string
	chaincodes, nodeEnv multiFlag
	newOrg, update, out string
	runtime, imageTag   string
	fs                  *flag.FlagSet
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func newOrgFlags(name string) *orgFlags {
	f := &orgFlags{fs: flag.NewFlagSet("fabnet "+name, flag.ContinueOnError)}
	root := os.Getenv("ROOT")
	if root == "" {
		root = "."
	}
	f.fs.StringVar(&f.topology, "topology", "", "the topology file every organisation shares (required)")
	f.fs.StringVar(&f.org, "org", "", "the organisation this host runs (required)")
	f.fs.StringVar(&f.home, "home", "", "the organisation's home directory (required)")
	f.fs.StringVar(&f.tools.Fabric, "bin", filepath.Join(root, "bin"), "directory of peer, orderer, configtxgen, osnadmin")
	f.fs.StringVar(&f.tools.FabricCA, "ca-bin", filepath.Join(root, "bin"), "directory of fabric-ca-server and fabric-ca-client")
	f.fs.StringVar(&f.tools.Builder, "builder", "", "the ccaas-builder binary (default: beside fabnet)")
	f.fs.StringVar(&f.tools.ConfigSrc, "config-src", filepath.Join(root, "build", "config"), "directory of upstream's core.yaml and orderer.yaml")
	f.fs.StringVar(&f.tools.Overrides, "overrides", filepath.Join(root, "network", "config"), "directory of fabvote's overrides of them")
	f.fs.DurationVar(&f.timeout, "timeout", 5*time.Minute, "time allowed for the step")
	f.fs.StringVar(&f.logSpec, "log-spec", "info", "FABRIC_LOGGING_SPEC of the nodes")
	f.fs.Var(&f.chaincodes, "chaincode", "NAME=BINARY of a chaincode service (peer; repeatable)")
	f.fs.StringVar(&f.newOrg, "new", "", "add-org, sign-update, submit-update: the organisation to add to the channel")
	f.fs.StringVar(&f.update, "update", "", "sign-update, submit-update: the configuration update envelope")
	f.fs.StringVar(&f.out, "out", "", "add-org: where to write the update envelope")
	f.fs.Var(&f.nodeEnv, "node-env", "KEY=VALUE for the org's orderers or peer, e.g. CORE_PEER_GATEWAY_ENDORSEMENTTIMEOUT=5s (repeatable)")
	f.fs.StringVar(&f.runtime, "runtime", "native", "orderers, peer: native processes, or compose: containers of the org's own compose project (HOME/compose.yaml)")
	f.fs.StringVar(&f.imageTag, "image-tag", envOr("FABVOTE_IMAGE_TAG", "latest"), "with --runtime compose: the tag of the fabvote/* images (FABVOTE_IMAGE_TAG)")
	return f
}

func (f *orgFlags) parse(args []string) (*fabnet.Topology, fabrun.Home, error) {
	if err := f.fs.Parse(args); err != nil {
		return nil, fabrun.Home{}, err
	}
	if f.fs.NArg() > 0 {
		return nil, fabrun.Home{}, fmt.Errorf("unexpected argument %q", f.fs.Arg(0))
	}
	for _, r := range []struct{ name, v string }{{"topology", f.topology}, {"org", f.org}, {"home", f.home}} {
		if r.v == "" {
			return nil, fabrun.Home{}, fmt.Errorf("--%s is required", r.name)
		}
	}
	t, err := fabnet.Load(f.topology)
	if err != nil {
		return nil, fabrun.Home{}, err
	}
	if _, err := t.PeerOrg(f.org); err != nil && f.org != t.OrdererOrg.Name {
		return nil, fabrun.Home{}, fmt.Errorf("--org: %w", err)
	}
	if f.tools.Builder == "" {
		if f.tools.Builder, err = builderBesideFabnet(); err != nil {
			return nil, fabrun.Home{}, err
		}
	}
	for _, p := range []*string{&f.tools.Fabric, &f.tools.FabricCA, &f.tools.Builder, &f.tools.ConfigSrc, &f.tools.Overrides} {
		if *p, err = filepath.Abs(*p); err != nil {
			return nil, fabrun.Home{}, err
		}
	}
	h, err := fabrun.NewHome(f.home, f.org)
	return t, h, err
}

func (f *orgFlags) opts() (fabrun.NodeOptions, error) {
	for _, kv := range f.nodeEnv {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return fabrun.NodeOptions{}, fmt.Errorf("--node-env %q: want KEY=VALUE", kv)
		}
	}
	opts := fabrun.NodeOptions{LogSpec: f.logSpec, Env: f.nodeEnv}
	switch f.runtime {
	case "native":
	case "compose":
		rt, err := compose.Detect(f.imageTag)
		if err != nil {
			return opts, fmt.Errorf("--runtime compose: %w", err)
		}
		opts.Runtime = rt
	default:
		return opts, fmt.Errorf("--runtime %q: want native or compose", f.runtime)
	}
	return opts, nil
}

// orgStep is a step one organisation runs on its own host.
type orgStep func(ctx context.Context, f *orgFlags, t *fabnet.Topology, h fabrun.Home, opts fabrun.NodeOptions) error

var orgSteps = map[string]orgStep{
	"identities": func(ctx context.Context, f *orgFlags, t *fabnet.Topology, h fabrun.Home, _ fabrun.NodeOptions) error {
		if err := fabrun.Identities(ctx, t, h, f.tools); err != nil {
			return err
		}
		return printDigest(h.Bundle(), h.Org+"'s bundle")
	},
	"genesis": func(ctx context.Context, f *orgFlags, t *fabnet.Topology, h fabrun.Home, _ fabrun.NodeOptions) error {
		if err := fabrun.GenesisBlock(ctx, t, h, f.tools); err != nil {
			return err
		}
		return printDigest(h.Bundle(), h.Org+"'s bundle with the genesis block")
	},
	"orderers": func(ctx context.Context, f *orgFlags, t *fabnet.Topology, h fabrun.Home, opts fabrun.NodeOptions) error {
		if err := fabrun.StartOrderers(ctx, t, h, f.tools, opts); err != nil {
			return err
		}
		return fabrun.WriteConnection(t, h)
	},
	"peer": func(ctx context.Context, f *orgFlags, t *fabnet.Topology, h fabrun.Home, opts fabrun.NodeOptions) error {
		bins, err := chaincodeBins(f.chaincodes)
		if err != nil {
			return err
		}
		if err := fabrun.StartPeer(ctx, t, h, f.tools, opts); err != nil {
			return err
		}
		return fabrun.StartChaincodes(ctx, t, h, f.tools, bins, opts)
	},
	"commit": func(ctx context.Context, f *orgFlags, t *fabnet.Topology, h fabrun.Home, _ fabrun.NodeOptions) error {
		if err := fabrun.Commit(ctx, t, h, f.tools); err != nil {
			return err
		}
		if err := fabrun.WriteConnection(t, h); err != nil {
			return err
		}
		return fabrun.WaitGateway(ctx, h)
	},
	"connection": func(ctx context.Context, f *orgFlags, t *fabnet.Topology, h fabrun.Home, _ fabrun.NodeOptions) error {
		if err := fabrun.WaitCommitted(ctx, t, h, f.tools); err != nil {
			return err
		}
		if err := fabrun.WriteConnection(t, h); err != nil {
			return err
		}
		return fabrun.WaitGateway(ctx, h)
	},
	"info": func(ctx context.Context, f *orgFlags, t *fabnet.Topology, h fabrun.Home, _ fabrun.NodeOptions) error {
		info, err := fabrun.ChannelInfo(ctx, t, h, f.tools)
		if err == nil {
			fmt.Println(info)
		}
		return err
	},
	"add-org": func(ctx context.Context, f *orgFlags, t *fabnet.Topology, h fabrun.Home, _ fabrun.NodeOptions) error {
		if f.newOrg == "" || f.out == "" {
			return errors.New("add-org: --new and --out are required")
		}
		return fabrun.AddOrgUpdate(ctx, t, h, f.tools, f.newOrg, f.out)
	},
	"sign-update": func(ctx context.Context, f *orgFlags, t *fabnet.Topology, h fabrun.Home, _ fabrun.NodeOptions) error {
		if f.update == "" || f.newOrg == "" {
			return errors.New("sign-update: --update and --new are required")
		}
		return fabrun.SignUpdate(ctx, t, h, f.tools, f.newOrg, f.update)
	},
	"submit-update": func(ctx context.Context, f *orgFlags, t *fabnet.Topology, h fabrun.Home, _ fabrun.NodeOptions) error {
		if f.update == "" || f.newOrg == "" {
			return errors.New("submit-update: --update and --new are required")
		}
		return fabrun.SubmitUpdate(ctx, t, h, f.tools, f.newOrg, f.update)
	},
}

func run(args []string) error {
	if len(args) == 0 {
		return errors.New("want a step: topology, identities, receive, genesis, orderers, peer, commit, connection, info, add-org, sign-update, submit-update, configtx, cryptogen-config, local-up, local-identities, local-connection, local-channel, compose, ports, package, node, ops, raft-leader, wait-orderer, down or status")
	}
	step, args := args[0], args[1:]
	switch step {
	case "topology":
		return topology(args)
	case "down", "status":
		return homeStep(step, args)
	case "node":
		return nodeCommand(args)
	case "package":
		return packageCommand(args)
	case "ops", "raft-leader", "wait-orderer":
		return opsCommand(step, args)
	case "receive":
		return receive(args)
	case "configtx":
		return configtx(args)
	case "cryptogen-config":
		return cryptogenConfig(args)
	case "local-up":
		return localUpCommand(args)
	case "local-identities":
		return localIdentities(args)
	case "local-connection":
		return localConnection(args)
	case "local-channel":
		return localChannel(args)
	case "compose":
		return composeFile(args)
	case "ports":
		return portsCommand(args)
	}
	do, ok := orgSteps[step]
	if !ok {
		return fmt.Errorf("unknown step %q", step)
	}
	f := newOrgFlags(step)
	t, h, err := f.parse(args)
	if err != nil {
		return err
	}
	opts, err := f.opts()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), f.timeout)
	defer cancel()
	return do(ctx, f, t, h, opts)
}

func chaincodeBins(list []string) (map[string]string, error) {
	bins := map[string]string{}
	for _, kv := range list {
		name, bin, ok := strings.Cut(kv, "=")
		if !ok || name == "" || bin == "" {
			return nil, fmt.Errorf("--chaincode %q: want NAME=BINARY", kv)
		}
		abs, err := filepath.Abs(bin)
		if err != nil {
			return nil, err
		}
		bins[name] = abs
	}
	return bins, nil
}

func topology(args []string) error {
	fs := flag.NewFlagSet("fabnet topology", flag.ContinueOnError)
	profile := fs.String("profile", "three-orgs", "solo-org or three-orgs")
	from := fs.String("from", "", "start from this topology file instead of --profile (to add organisations)")
	base := fs.Int("base-port", 7050, "the first port of the port plan")
	out := fs.String("out", "", "the topology file to write (required)")
	batch := fs.Int("batch-size", 500, "transactions per block at most")
	containers := fs.Bool("containers", false, "every node a container of its own, as the Docker network runs them (fabnet.Containers)")
	var b fabnet.Batch
	fs.StringVar(&b.Timeout, "batch-timeout", "250ms", "how long the orderer waits to fill a block")
	fs.StringVar(&b.PreferredMaxBytes, "batch-preferred-bytes", "4 MB", "preferred block size")
	fs.StringVar(&b.AbsoluteMaxBytes, "batch-absolute-bytes", "10 MB", "largest block size")
	var hosts, ccs, addOrgs multiFlag
	fs.Var(&hosts, "host", "ORG=ADDRESS: where the others reach ORG (repeatable; default 127.0.0.1)")
	fs.Var(&ccs, "chaincode", "NAME[:ballot[:PLUGIN]] of a chaincode every org runs (repeatable)")
	fs.Var(&addOrgs, "add-org", "NAME=ADDRESS: a peer organisation to add, in the next slot of the port plan (repeatable)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		return errors.New("--out is required")
	}
	hostOf, err := pairs("--host", hosts)
	if err != nil {
		return err
	}
	if *containers && (*from != "" || len(hosts) > 0) {
		return errors.New("--containers names every node's host itself: not with --from or --host")
	}
	var t *fabnet.Topology
	if *containers {
		if t, err = fabnet.Containers(*profile, chaincodes(ccs)); err == nil {
			b.MaxMessageCount = *batch
			t.Batch = b
		}
	} else if *from != "" {
		t, err = loadFrom(fs, *from)
		if err == nil {
			*base = t.OrdererOrg.Orderers[0].Port // orderer0 is on the plan's first port
		}
	} else if t, err = fabnet.Profile(*profile, *base, hostOf, chaincodes(ccs)); err == nil {
		b.MaxMessageCount = *batch
		t.Batch = b
	}
	if err != nil {
		return err
	}
	for org := range hostOf {
		if _, err := t.PeerOrg(org); err != nil && org != t.OrdererOrg.Name {
			return fmt.Errorf("--host: %w", err)
		}
	}
	added, err := pairs("--add-org", addOrgs)
	if err != nil {
		return err
	}
	for _, kv := range addOrgs { // in the order given: each takes the next slot
		name, _, _ := strings.Cut(kv, "=")
		if err := t.AddOrg(name, added[name], *base); err != nil {
			return fmt.Errorf("--add-org %s: %w", name, err)
		}
	}
	if err := t.Check(); err != nil {
		return err
	}
	return t.Save(*out)
}

// loadFrom loads the agreed topology for --from, which only --add-org
// changes: every other flag of the profile is refused.
func loadFrom(fs *flag.FlagSet, path string) (*fabnet.Topology, error) {
	var err error
	fs.Visit(func(fl *flag.Flag) {
		if fl.Name != "from" && fl.Name != "add-org" && fl.Name != "out" && err == nil {
			err = fmt.Errorf("--%s does not apply with --from: the topology file decides it", fl.Name)
		}
	})
	if err != nil {
		return nil, err
	}
	return fabnet.Load(path)
}

// pairs reads NAME=VALUE flag values.
func pairs(flagName string, list []string) (map[string]string, error) {
	m := map[string]string{}
	for _, kv := range list {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("%s %q: want NAME=VALUE", flagName, kv)
		}
		m[k] = v
	}
	return m, nil
}

// chaincodes reads --chaincode NAME[:ballot[:PLUGIN]] values.
func chaincodes(list []string) []fabnet.Chaincode {
	var ccs []fabnet.Chaincode
	for _, c := range list {
		parts := strings.Split(c, ":")
		cc := fabnet.Chaincode{Name: parts[0], Version: "1.0", Ballot: len(parts) > 1 && parts[1] == "ballot"}
		if len(parts) > 2 {
			cc.ValidationPlugin = parts[2]
		}
		ccs = append(ccs, cc)
	}
	return ccs
}

// configtx writes configtx.yaml for a topology whose organisations'
// files are all on this host (network/net.sh's single-host network).
func configtx(args []string) error {
	fs := flag.NewFlagSet("fabnet configtx", flag.ContinueOnError)
	topo := fs.String("topology", "", "the topology file (required)")
	ordererMSP := fs.String("orderer-msp", "", "the ordering organisation's MSP directory (or --crypto)")
	crypto := fs.String("crypto", "", "every organisation's files in this cryptogen-layout directory, instead of --orderer-msp, --msp and --consenter-cert")
	out := fs.String("out", "", "configtx.yaml to write (required)")
	var msps, certs multiFlag
	fs.Var(&msps, "msp", "ORG=DIR: a peer organisation's MSP directory (one per organisation)")
	fs.Var(&certs, "consenter-cert", "ORDERER=FILE: an orderer's TLS certificate (one per orderer)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *topo == "" || *out == "" || (*ordererMSP == "") == (*crypto == "") {
		return errors.New("--topology, --out and one of --orderer-msp and --crypto are required")
	}
	t, err := fabnet.Load(*topo)
	if err != nil {
		return err
	}
	if *crypto != "" {
		if len(msps) > 0 || len(certs) > 0 {
			return errors.New("--crypto names every MSP and certificate: not with --msp or --consenter-cert")
		}
		return writeConfigtx(t, fabnet.Layout{Dir: *crypto}.ConfigtxFiles(t), *out)
	}
	files := fabnet.ConfigtxFiles{OrdererMSP: *ordererMSP}
	if files.MSP, err = pairs("--msp", msps); err != nil {
		return err
	}
	if files.ConsenterCert, err = pairs("--consenter-cert", certs); err != nil {
		return err
	}
	return writeConfigtx(t, files, *out)
}

func writeConfigtx(t *fabnet.Topology, files fabnet.ConfigtxFiles, out string) error {
	text, err := fabnet.Configtx(t, files)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(out, text, 0o644)
}

func receive(args []string) error {
	fs := flag.NewFlagSet("fabnet receive", flag.ContinueOnError)
	topo := fs.String("topology", "", "the topology file (required)")
	org := fs.String("org", "", "the organisation receiving (required)")
	home := fs.String("home", "", "its home directory (required)")
	from := fs.String("from", "", "the organisation whose bundle it is (required)")
	bundle := fs.String("bundle", "", "the bundle's directory (required)")
	digest := fs.String("expect-digest", "", "the bundle's sha256 as its organisation gave it by a second channel (refused if it differs)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *topo == "" || *org == "" || *home == "" || *from == "" || *bundle == "" {
		return errors.New("--topology, --org, --home, --from and --bundle are required")
	}
	t, err := fabnet.Load(*topo)
	if err != nil {
		return err
	}
	h, err := fabrun.NewHome(*home, *org)
	if err != nil {
		return err
	}
	if err := fabrun.Receive(t, h, *from, *bundle, *digest); err != nil {
		return err
	}
	return printDigest(h.Received(*from), "received "+*from+"'s bundle")
}

// printDigest prints a bundle's digest, which the two organisations
// compare by a second channel.
func printDigest(dir, what string) error {
	d, err := fabrun.BundleDigest(dir)
	if err != nil {
		return err
	}
	fmt.Printf("%s: sha256 %s (compare it with the other organisation by a second channel)\n", what, d)
	return nil
}

func homeStep(step string, args []string) error {
	fs := flag.NewFlagSet("fabnet "+step, flag.ContinueOnError)
	home := fs.String("home", "", "the organisation's home directory (required)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *home == "" {
		return errors.New("--home is required")
	}
	h := fabrun.Home{Dir: *home}
	if step == "down" {
		// The containers, if the org runs any, and the native processes,
		// whichever fails.
		var errs error
		if _, err := os.Stat(compose.OrgFile(h)); err == nil {
			rt, err := compose.Detect("")
			if err == nil {
				err = rt.Down(context.Background(), *home)
			}
			errs = err
		}
		return errors.Join(errs, h.StopAll(10*time.Second))
	}
	names, err := h.Nodes()
	if err != nil {
		return err
	}
	for _, n := range names {
		pid, ok := h.Running(n)
		state := "stopped"
		if ok {
			state = fmt.Sprintf("running (pid %d)", pid)
		}
		fmt.Printf("%-20s %s\n", n, state)
	}
	if _, err := os.Stat(compose.OrgFile(h)); err != nil {
		return nil
	}
	rt, err := compose.Detect("")
	if err != nil {
		return err
	}
	out, err := rt.Status(context.Background(), *home)
	fmt.Print(out)
	return err
}

// builderBesideFabnet is the default external builder: the ccaas-builder
// binary in fabnet's own directory (net.sh and make build them together).
func builderBesideFabnet() (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(self), "ccaas-builder"), nil
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
