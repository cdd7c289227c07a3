package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/fabvote/fabvote/internal/cli"
	"github.com/fabvote/fabvote/network/compose"
	"github.com/fabvote/fabvote/network/fabnet"
	"github.com/fabvote/fabvote/network/fabrun"
)

// orgSynopsis is the usage line every step of an organisation shares.
const orgSynopsis = "--topology T --org ORG --home DIR"

// orgCommands are the steps of one organisation on its own host
// (docs/MULTIHOST.md), in the order of the procedure.
var orgCommands = []command{
	{name: "topology", synopsis: "--profile three-orgs [--host ORG=ADDRESS ...] [--chaincode NAME[:ballot[:PLUGIN]] ...] --out topology.json\n       fabnet topology --from topology.json --add-org NAME=ADDRESS --out topology.json",
		summary: "write the topology every organisation shares (or add organisations to one)", setup: topologySetup},
	topologyEnvCommand,
	{name: "identities", synopsis: orgSynopsis,
		summary: "start the organisation's CAs, enroll its nodes and users, write its bundle and print its digest", setup: identitiesSetup},
	{name: "receive", synopsis: orgSynopsis + " --from OTHER --bundle DIR [--expect-digest SHA256]",
		summary: "keep another organisation's bundle once it is checked", setup: receiveSetup},
	{name: "genesis", synopsis: "--topology T --org orderer --home DIR",
		summary: "make the channel's genesis block (the ordering organisation)", setup: genesisSetup},
	{name: "orderers", synopsis: "--topology T --org orderer --home DIR [--runtime compose]",
		summary: "start the orderers and join them to the channel (the ordering organisation)", setup: orderersSetup},
	{name: "peer", synopsis: orgSynopsis + " --chaincode NAME=BINARY ... [--runtime compose]",
		summary: "start the peer, join it, start the chaincode services and approve their definitions", setup: peerSetup},
	{name: "commit", synopsis: orgSynopsis,
		summary: "commit the chaincode definitions, write network.json, wait for the gateway", setup: commitSetup},
	{name: "connection", synopsis: orgSynopsis,
		summary: "wait for the committed definitions, write network.json, wait for the gateway", setup: connectionSetup},
	{name: "info", synopsis: orgSynopsis,
		summary: "print the organisation's peer's view of the channel: height and block hashes", setup: infoSetup},
	{name: "add-org", synopsis: orgSynopsis + " --new NEW --out update.pb",
		summary: "write the unsigned channel update that adds organisation NEW", setup: addOrgSetup},
	{name: "sign-update", synopsis: orgSynopsis + " --new NEW --update update.pb",
		summary: "check the update that adds NEW and sign it as the organisation's admin", setup: signUpdateSetup},
	{name: "submit-update", synopsis: orgSynopsis + " --new NEW --update update.pb",
		summary: "check the update that adds NEW, sign it and send it to the ordering service", setup: submitUpdateSetup},
	{name: "down", synopsis: "--home DIR",
		summary: "stop every process (and container) of the home", setup: func(fs *pflag.FlagSet) func([]string) error { return homeSetup(fs, down) }},
	{name: "status", synopsis: "--home DIR",
		summary: "list the processes (and containers) of the home and their state", setup: func(fs *pflag.FlagSet) func([]string) error { return homeSetup(fs, status) }},
}

// orgFlags are the flags of every step an organisation runs.
type orgFlags struct {
	topology, org, home string
	tools               fabrun.Tools
	timeout             time.Duration
	// check, when set, checks the step's own flags before anything is
	// loaded or made.
	check func() error
}

func newOrgFlags(fs *pflag.FlagSet) *orgFlags {
	f := &orgFlags{}
	fs.StringVar(&f.topology, "topology", "", "the topology file every organisation shares (required)")
	fs.StringVar(&f.org, "org", "", "the organisation this host runs (required)")
	fs.StringVar(&f.home, "home", "", "the organisation's home directory (required)")
	fs.StringVar(&f.tools.Fabric, "bin", "", "directory of peer, orderer, configtxgen, osnadmin (default: $ROOT/bin; ROOT defaults to .)")
	fs.StringVar(&f.tools.FabricCA, "ca-bin", "", "directory of fabric-ca-server and fabric-ca-client (default: $ROOT/bin)")
	fs.StringVar(&f.tools.Builder, "builder", "", "the ccaas-builder binary (default: beside fabnet)")
	fs.StringVar(&f.tools.ConfigSrc, "config-src", "", "directory of upstream's core.yaml and orderer.yaml (default: $ROOT/build/config)")
	fs.StringVar(&f.tools.Overrides, "overrides", "", "directory of fabvote's overrides of them (default: $ROOT/network/config)")
	fs.DurationVar(&f.timeout, "timeout", 5*time.Minute, "time allowed for the step")
	return f
}

// defaultTools fills in the tools' directories the flags left empty, from
// the checkout in ROOT (default: the working directory).
func (f *orgFlags) defaultTools() {
	root := envOr("ROOT", ".")
	for _, d := range []struct {
		p    *string
		elem []string
	}{{&f.tools.Fabric, []string{"bin"}}, {&f.tools.FabricCA, []string{"bin"}},
		{&f.tools.ConfigSrc, []string{"build", "config"}}, {&f.tools.Overrides, []string{"network", "config"}}} {
		if *d.p == "" {
			*d.p = filepath.Join(append([]string{root}, d.elem...)...)
		}
	}
}

// load checks the flags, loads the topology and opens the home.
func (f *orgFlags) load() (*fabnet.Topology, fabrun.Home, error) {
	for _, r := range []struct{ name, v string }{{"topology", f.topology}, {"org", f.org}, {"home", f.home}} {
		if r.v == "" {
			return nil, fabrun.Home{}, cli.Usagef("--%s is required", r.name)
		}
	}
	if f.check != nil {
		if err := f.check(); err != nil {
			return nil, fabrun.Home{}, err
		}
	}
	t, err := fabnet.Load(f.topology)
	if err != nil {
		return nil, fabrun.Home{}, err
	}
	if _, err := t.PeerOrg(f.org); err != nil && f.org != t.OrdererOrg.Name {
		return nil, fabrun.Home{}, cli.Usagef("--org: %v", err)
	}
	f.defaultTools()
	if f.tools.Builder == "" {
		if f.tools.Builder, err = builderBesideFabnet(); err != nil {
			return nil, fabrun.Home{}, err
		}
	}
	if err := absPaths(&f.tools.Fabric, &f.tools.FabricCA, &f.tools.Builder, &f.tools.ConfigSrc, &f.tools.Overrides); err != nil {
		return nil, fabrun.Home{}, err
	}
	h, err := fabrun.NewHome(f.home, f.org)
	return t, h, err
}

// orgStep is what a step does once its flags are checked.
type orgStep func(ctx context.Context, t *fabnet.Topology, h fabrun.Home) error

// run is the step do, run within the step's time.
func (f *orgFlags) run(do orgStep) func([]string) error {
	return func([]string) error {
		t, h, err := f.load()
		if err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(context.Background(), f.timeout)
		defer cancel()
		return do(ctx, t, h)
	}
}

// nodeFlags are the settings of the nodes a step starts (orderers, peer).
type nodeFlags struct {
	logSpec           string
	env               []string
	runtime, imageTag string
}

func newNodeFlags(fs *pflag.FlagSet) *nodeFlags {
	n := &nodeFlags{}
	fs.StringVar(&n.logSpec, "log-spec", "info", "FABRIC_LOGGING_SPEC of the nodes")
	fs.StringArrayVar(&n.env, "node-env", nil, "KEY=VALUE for the org's orderers or peer, e.g. CORE_PEER_GATEWAY_ENDORSEMENTTIMEOUT=5s (repeatable)")
	fs.StringVar(&n.runtime, "runtime", "native", "native processes, or compose: containers of the org's own compose project (HOME/compose.yaml)")
	fs.StringVar(&n.imageTag, "image-tag", "", "with --runtime compose: the tag of the fabvote/* images (default: FABVOTE_IMAGE_TAG, else latest)")
	return n
}

// check refuses a --node-env entry that is not KEY=VALUE and an unknown
// runtime.
func (n *nodeFlags) check() error {
	for _, kv := range n.env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return cli.Usagef("--node-env %q: want KEY=VALUE", kv)
		}
	}
	if n.runtime != "native" && n.runtime != "compose" {
		return cli.Usagef("--runtime %q: want native or compose", n.runtime)
	}
	return nil
}

// options are the node options of the flags, once checked.
func (n *nodeFlags) options() (fabrun.NodeOptions, error) {
	opts := fabrun.NodeOptions{LogSpec: n.logSpec, Env: n.env}
	if n.runtime == "compose" {
		tag := n.imageTag
		if tag == "" {
			tag = envOr("FABVOTE_IMAGE_TAG", "latest")
		}
		rt, err := compose.Detect(tag)
		if err != nil {
			return opts, fmt.Errorf("--runtime compose: %w", err)
		}
		opts.Runtime = rt
	}
	return opts, nil
}

func identitiesSetup(fs *pflag.FlagSet) func([]string) error {
	f := newOrgFlags(fs)
	return f.run(func(ctx context.Context, t *fabnet.Topology, h fabrun.Home) error {
		if err := fabrun.Identities(ctx, t, h, f.tools); err != nil {
			return err
		}
		return printDigest(h.Bundle(), h.Org+"'s bundle")
	})
}

func genesisSetup(fs *pflag.FlagSet) func([]string) error {
	f := newOrgFlags(fs)
	return f.run(func(ctx context.Context, t *fabnet.Topology, h fabrun.Home) error {
		if err := fabrun.GenesisBlock(ctx, t, h, f.tools); err != nil {
			return err
		}
		return printDigest(h.Bundle(), h.Org+"'s bundle with the genesis block")
	})
}

func orderersSetup(fs *pflag.FlagSet) func([]string) error {
	f, n := newOrgFlags(fs), newNodeFlags(fs)
	f.check = n.check
	return f.run(func(ctx context.Context, t *fabnet.Topology, h fabrun.Home) error {
		opts, err := n.options()
		if err != nil {
			return err
		}
		if err := fabrun.StartOrderers(ctx, t, h, f.tools, opts); err != nil {
			return err
		}
		return fabrun.WriteConnection(t, h)
	})
}

func peerSetup(fs *pflag.FlagSet) func([]string) error {
	f, n := newOrgFlags(fs), newNodeFlags(fs)
	chaincodes := fs.StringArray("chaincode", nil, "NAME=BINARY of a chaincode service (repeatable)")
	var bins map[string]string
	f.check = func() (err error) {
		if err = n.check(); err == nil {
			bins, err = chaincodeBins(*chaincodes)
		}
		return err
	}
	return f.run(func(ctx context.Context, t *fabnet.Topology, h fabrun.Home) error {
		opts, err := n.options()
		if err != nil {
			return err
		}
		if err := fabrun.StartPeer(ctx, t, h, f.tools, opts); err != nil {
			return err
		}
		return fabrun.StartChaincodes(ctx, t, h, f.tools, bins, opts)
	})
}

func commitSetup(fs *pflag.FlagSet) func([]string) error {
	f := newOrgFlags(fs)
	return f.run(func(ctx context.Context, t *fabnet.Topology, h fabrun.Home) error {
		if err := fabrun.Commit(ctx, t, h, f.tools); err != nil {
			return err
		}
		return writeConnectionAndWait(ctx, t, h)
	})
}

func connectionSetup(fs *pflag.FlagSet) func([]string) error {
	f := newOrgFlags(fs)
	return f.run(func(ctx context.Context, t *fabnet.Topology, h fabrun.Home) error {
		if err := fabrun.WaitCommitted(ctx, t, h, f.tools); err != nil {
			return err
		}
		return writeConnectionAndWait(ctx, t, h)
	})
}

// writeConnectionAndWait writes the org's network.json and waits until its
// gateway can gather endorsements.
func writeConnectionAndWait(ctx context.Context, t *fabnet.Topology, h fabrun.Home) error {
	if err := fabrun.WriteConnection(t, h); err != nil {
		return err
	}
	return fabrun.WaitGateway(ctx, h)
}

func infoSetup(fs *pflag.FlagSet) func([]string) error {
	f := newOrgFlags(fs)
	return f.run(func(ctx context.Context, t *fabnet.Topology, h fabrun.Home) error {
		info, err := fabrun.ChannelInfo(ctx, t, h, f.tools)
		if err == nil {
			fmt.Println(info)
		}
		return err
	})
}

func addOrgSetup(fs *pflag.FlagSet) func([]string) error {
	f := newOrgFlags(fs)
	newOrg := fs.String("new", "", "the organisation to add to the channel (required)")
	out := fs.String("out", "", "where to write the update envelope (required)")
	f.check = func() error {
		if *newOrg == "" || *out == "" {
			return cli.Usagef("--new and --out are required")
		}
		return nil
	}
	return f.run(func(ctx context.Context, t *fabnet.Topology, h fabrun.Home) error {
		return fabrun.AddOrgUpdate(ctx, t, h, f.tools, *newOrg, *out)
	})
}

// updateStep is the flags of sign-update and submit-update, and the step
// that takes them.
func updateStep(fs *pflag.FlagSet, do func(ctx context.Context, t *fabnet.Topology, h fabrun.Home, tools fabrun.Tools, newOrg, file string) error) func([]string) error {
	f := newOrgFlags(fs)
	newOrg := fs.String("new", "", "the organisation the update adds to the channel (required)")
	update := fs.String("update", "", "the configuration update envelope (required)")
	f.check = func() error {
		if *update == "" || *newOrg == "" {
			return cli.Usagef("--update and --new are required")
		}
		return nil
	}
	return f.run(func(ctx context.Context, t *fabnet.Topology, h fabrun.Home) error {
		return do(ctx, t, h, f.tools, *newOrg, *update)
	})
}

func signUpdateSetup(fs *pflag.FlagSet) func([]string) error {
	return updateStep(fs, fabrun.SignUpdate)
}

func submitUpdateSetup(fs *pflag.FlagSet) func([]string) error {
	return updateStep(fs, fabrun.SubmitUpdate)
}

func chaincodeBins(list []string) (map[string]string, error) {
	bins := map[string]string{}
	for _, kv := range list {
		name, bin, ok := strings.Cut(kv, "=")
		if !ok || name == "" || bin == "" {
			return nil, cli.Usagef("--chaincode %q: want NAME=BINARY", kv)
		}
		abs, err := filepath.Abs(bin)
		if err != nil {
			return nil, err
		}
		bins[name] = abs
	}
	return bins, nil
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
