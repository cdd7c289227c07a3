package fabrun

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/fabvote/fabvote/internal/atomicfile"
	"github.com/fabvote/fabvote/network/cfgmerge"
	"github.com/fabvote/fabvote/network/fabnet"
)

// NodeOptions are the settings of the org's nodes that are not part of
// the topology.
type NodeOptions struct {
	LogSpec string   // FABRIC_LOGGING_SPEC; "" is info
	Env     []string // more KEY=VALUE settings for every node
	// PeerEnv are KEY=VALUE settings for the peer only, after every other.
	PeerEnv []string
	// Pass names the caller's variables the nodes inherit besides PATH,
	// HOME, TMPDIR and FABVOTE_*; nil is the Go runtime's knobs and the
	// loader path (goRuntimeEnv).
	Pass []string
	// Wait bounds each native node's start, until it listens; 0 leaves
	// it to the step's context.
	Wait time.Duration
	// Runtime starts the orderers, peers and chaincode services; nil runs
	// them as native processes of the home (Home.Start). The CA servers
	// run natively either way.
	Runtime Runtime
}

// Runtime starts a node another way than as a native process: as a
// container of the organisation's own compose project (network/compose).
type Runtime interface {
	Start(ctx context.Context, h Home, p fabnet.Proc) error
}

// start runs a node. A native node is defined first, so that it can be
// stopped, killed and started again by name (fabnet node).
func (o NodeOptions) start(ctx context.Context, h Home, p fabnet.Proc) error {
	if o.Runtime != nil {
		return o.Runtime.Start(ctx, h, p)
	}
	if err := h.Define(p); err != nil {
		return err
	}
	if o.Wait > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Wait)
		defer cancel()
	}
	return h.Start(ctx, p)
}

// env is a node's environment: the caller's variables (Pass), then Env,
// then the node's own settings, which Env cannot override.
func (o NodeOptions) env(node ...string) []string {
	pass := o.Pass
	if pass == nil {
		pass = goRuntimeEnv
	}
	return append(append(callerEnv(pass), o.Env...), node...)
}

func (o NodeOptions) logSpec() string {
	if o.LogSpec == "" {
		return "info"
	}
	return o.LogSpec
}

// writeNodeConfig merges our overrides onto upstream's kind.yaml with the
// node's values and writes it into its directory.
func writeNodeConfig(tools Tools, kind, dir string, vars map[string]string) error {
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o700); err != nil {
		return err
	}
	lookup := func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
	b, err := cfgmerge.File(filepath.Join(tools.ConfigSrc, kind+".yaml"), filepath.Join(tools.Overrides, kind+".yaml"), lookup)
	if err != nil {
		return fmt.Errorf("%s.yaml for %s: %w", kind, filepath.Base(dir), err)
	}
	return atomicfile.WriteFile(filepath.Join(dir, kind+".yaml"), b, 0o600)
}

// StartPeer writes the org's peer configuration, starts the peer and joins
// it to the channel with the genesis block from the orderer org's bundle.
func StartPeer(ctx context.Context, t *fabnet.Topology, h Home, tools Tools, opts NodeOptions) error {
	o, err := t.PeerOrg(h.Org)
	if err != nil {
		return err
	}
	block := h.genesisBlock(t)
	if err := h.need(block, "the channel's genesis block"); err != nil {
		return err
	}
	for _, cc := range t.Chaincodes {
		if opts.Runtime != nil && !cc.Ballot { // before anything starts
			return fmt.Errorf("chaincode %s has no container image: only the ballot contract runs in a container", cc.Name)
		}
	}
	builder, err := installBuilder(h, tools)
	if err != nil {
		return err
	}
	dir, crypto := h.Node(h.peerNode(o)), h.nodeCrypto("peers", o.Peer.Name, o.Domain)
	vars := map[string]string{
		"NODE_NAME": o.Peer.Name + "." + o.Domain, "NODE_HOME": dir, "NODE_HOST": o.Host, "NODE_LISTEN_HOST": fabnet.ListenHost(o.Host),
		"NODE_PORT": strconv.Itoa(o.Peer.Port), "NODE_CC_PORT": strconv.Itoa(o.Peer.ChaincodePort), "NODE_OPS_PORT": strconv.Itoa(o.Peer.OpsPort),
		"NODE_TLS_DIR": filepath.Join(crypto, "tls"), "NODE_MSP_DIR": filepath.Join(crypto, "msp"), "NODE_MSPID": o.MSPID,
		"FABVOTE_CCAAS_BUILDER": builder,
	}
	if err := writeNodeConfig(tools, "core", dir, vars); err != nil {
		return err
	}
	p := fabnet.Proc{Name: h.peerNode(o), Path: filepath.Join(tools.Fabric, "peer"), Args: []string{"node", "start"}, Dir: dir,
		Env:   append(opts.env("FABRIC_CFG_PATH="+dir, "FABRIC_LOGGING_SPEC="+opts.logSpec()), opts.PeerEnv...),
		Ready: o.PeerDial(), Image: "fabvote/peer", ImageCmd: "peer", Mounts: []string{crypto, builder}}
	if err := opts.start(ctx, h, p); err != nil {
		return err
	}
	_, err = joinPeer(ctx, t, h.peerCLI(t, o, tools), o, block)
	return err
}

// joinPeer joins the org's peer to the channel, unless it has joined
// already (a network whose volumes were kept), and waits for its ledger;
// joined tells whether it had to join.
func joinPeer(ctx context.Context, t *fabnet.Topology, cli peerCLI, o *fabnet.PeerOrg, block string) (joined bool, err error) {
	if !cli.joined(ctx, t.Channel) {
		joined = true
		done := func() bool { return cli.joined(ctx, t.Channel) }
		if err := cli.retryUnless(ctx, 5, done, "channel", "join", "-b", block); err != nil {
			return joined, fmt.Errorf("joining %s to %s: %w", o.Peer.Name, t.Channel, err)
		}
	}
	return joined, poll(ctx, waitBound(ctx), func() (bool, string) {
		h, err := cli.height(ctx, t.Channel)
		return err == nil && h >= 1, fmt.Sprint(h, err)
	}, o.Name+"'s peer to have the channel's ledger")
}

// installBuilder lays out the external builder (bin/detect, build,
// release) for the org's peer.
// The binary is copied into the home, and the steps link to it by a
// relative name, so that the builder works wherever the home is mounted
// (a container sees the home and nothing else of the host).
func installBuilder(h Home, tools Tools) (string, error) {
	dir := h.path("builder")
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		return "", err
	}
	b, err := os.ReadFile(tools.Builder)
	if err != nil {
		return "", fmt.Errorf("the external builder: %w", err)
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, "bin", "ccaas-builder"), b, 0o755); err != nil {
		return "", err
	}
	for _, step := range []string{"detect", "build", "release"} {
		dst := filepath.Join(dir, "bin", step)
		_ = os.Remove(dst)
		if err := os.Symlink("ccaas-builder", dst); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// peerCLI runs the peer CLI as the org's admin against its own peer.
type peerCLI struct {
	bin string
	env []string
}

func (h Home) peerCLI(t *fabnet.Topology, o *fabnet.PeerOrg, tools Tools) peerCLI {
	cfg := h.Node(h.peerNode(o))
	if _, err := os.Stat(filepath.Join(cfg, "core.yaml")); err != nil && tools.ConfigSrc != "" {
		cfg = tools.ConfigSrc // the peer runs elsewhere (a container): the CLI needs only upstream's defaults
	}
	return peerCLI{bin: filepath.Join(tools.Fabric, "peer"), env: []string{
		"FABRIC_CFG_PATH=" + cfg,
		"FABRIC_LOGGING_SPEC=warning",
		"CORE_PEER_LOCALMSPID=" + o.MSPID,
		"CORE_PEER_MSPCONFIGPATH=" + filepath.Join(h.user("Admin", o.Domain), "msp"),
		"CORE_PEER_ADDRESS=" + o.PeerDial(),
		"CORE_PEER_TLS_ENABLED=true",
		"CORE_PEER_TLS_ROOTCERT_FILE=" + h.tlsCA(o.Domain),
	}}
}

func (c peerCLI) run(ctx context.Context, args ...string) (string, error) {
	return runEnv(ctx, c.env, c.bin, args...)
}

func (c peerCLI) retry(ctx context.Context, n int, args ...string) (string, error) {
	return retryEnv(ctx, n, c.env, c.bin, args...)
}

// retryUnless retries a step that changes the network until it succeeds
// or done reports that an earlier try took effect.
func (c peerCLI) retryUnless(ctx context.Context, n int, done func() bool, args ...string) error {
	_, err := retryUnless(ctx, n, done, c.env, c.bin, args...)
	return err
}

// joined tells whether the peer has joined channel: `peer channel list`
// prints a header line, then one channel per line.
func (c peerCLI) joined(ctx context.Context, channel string) bool {
	out, err := c.run(ctx, "channel", "list")
	if err != nil {
		return false
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	for _, l := range lines[1:] {
		if strings.TrimSpace(l) == channel {
			return true
		}
	}
	return false
}

var heightRE = regexp.MustCompile(`"height":(\d+)`)

func (c peerCLI) height(ctx context.Context, channel string) (int, error) {
	out, err := c.run(ctx, "channel", "getinfo", "-c", channel)
	if err != nil {
		return 0, err
	}
	m := heightRE.FindStringSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("no height in %q", strings.TrimSpace(out))
	}
	return strconv.Atoi(m[1])
}

// ChannelInfo is the org's peer's view of the channel: the JSON of `peer
// channel getinfo` (height, currentBlockHash, previousBlockHash).
func ChannelInfo(ctx context.Context, t *fabnet.Topology, h Home, tools Tools) (string, error) {
	o, err := t.PeerOrg(h.Org)
	if err != nil {
		return "", err
	}
	out, err := h.peerCLI(t, o, tools).run(ctx, "channel", "getinfo", "-c", t.Channel)
	if err != nil {
		return "", err
	}
	i := strings.Index(out, "{")
	if i < 0 {
		return "", fmt.Errorf("peer channel getinfo: no JSON in %q", strings.TrimSpace(out))
	}
	return strings.TrimSpace(out[i:]), nil
}

// ordererFlags point the peer CLI at the first orderer, verified with the
// orderer org's TLS root from its bundle.
func (h Home) ordererFlags(t *fabnet.Topology) []string {
	oo := t.OrdererOrg
	return []string{"-o", net.JoinHostPort(oo.HostOf(oo.Orderers[0]), strconv.Itoa(oo.Orderers[0].Port)), "--tls",
		"--cafile", h.orgTLSCA(oo.Name, oo.Domain)}
}
