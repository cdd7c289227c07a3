package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/fabvote/fabvote/internal/atomicfile"
	"github.com/fabvote/fabvote/internal/cli"
	"github.com/fabvote/fabvote/network/fabnet"
	"github.com/fabvote/fabvote/network/fabrun"
	"github.com/fabvote/fabvote/network/portplan"
)

// ballotPackage is the ballot contract's service: its definition may name
// the fork's validation plugin, and it serves operations.
const ballotPackage = "./chaincode/ballot/cmd/ballot-cc"

// localTools are the binaries of this directory that a local network
// keeps in RUN_DIR/tools, so that a rebuild never changes a running one.
var localTools = []string{"fabnet", "cfgmerge", "ccaas-builder", "netready", "fabca"}

// localUp is `fabnet local-up`: network/net.sh's single-host network,
// every organisation on this host in one run directory.
type localUp struct {
	profile, runDir, current, tools string
	stack                           string
	identities, validation, version string
	goBin, goTags, root, passEnv    string
	fabric                          fabrun.Tools
	batch                           fabnet.Batch
	writers                         string // the channel's Writers policy (fabnet.WritersImplicit or WritersSignature)
	basePort                        int
	chaincodes, nodeEnv, peerEnv    []string
	logSpec                         string
	wait, stopTimeout               time.Duration
	keepOnFailure, removeTools      bool
}

func newLocalUp(f *pflag.FlagSet) *localUp {
	u := &localUp{}
	f.StringVar(&u.profile, "profile", "solo-org", "a registered profile: "+strings.Join(fabnet.Profiles(), ", "))
	f.StringVar(&u.runDir, "home", "", "the network's home, its run directory (required; replaced)")
	cli.Alias(f, "home", "run-dir")
	f.StringVar(&u.current, "current", "", "a symlink to point at the run directory once the network is up")
	f.StringVar(&u.tools, "tools", "", "directory of the built network tools (fabnet, cfgmerge, ccaas-builder, netready, fabca), copied into HOME/tools (required)")
	f.StringVar(&u.stack, "stack", "default", "the port plan's stack the network belongs to (fabnet ports list)")
	f.IntVar(&u.basePort, "base-port", 0, "the first port of the network (default: the stack's base)")
	f.IntVar(&u.batch.MaxMessageCount, "batch-size", fabnet.DefaultBatch.MaxMessageCount, "transactions per block at most")
	f.StringVar(&u.batch.Timeout, "batch-timeout", fabnet.DefaultBatch.Timeout, "how long the orderer waits to fill a block")
	f.StringVar(&u.batch.PreferredMaxBytes, "batch-preferred-bytes", fabnet.DefaultBatch.PreferredMaxBytes, "preferred block size")
	f.StringVar(&u.batch.AbsoluteMaxBytes, "batch-absolute-bytes", fabnet.DefaultBatch.AbsoluteMaxBytes, "largest block size")
	f.StringVar(&u.writers, "channel-writers", fabnet.WritersImplicit, "the channel's /Channel/Writers policy: empty for Fabric's ImplicitMeta default, or signature (fabnet.WritersSignature)")
	f.StringArrayVar(&u.chaincodes, "chaincode", nil, "NAME=./go/main/package of a chaincode service (repeatable, at most 7)")
	f.StringVar(&u.version, "cc-version", "1.0", "the chaincode definitions' version")
	f.StringVar(&u.validation, "validation-plugin", "off", "off, vscc or ballotvscc: the ballot contract's validation plugin")
	f.StringVar(&u.identities, "identities", "ca", "ca: each organisation's own Fabric CA servers; cryptogen: the quick option")
	f.StringVar(&u.fabric.Fabric, "bin", "bin", "directory of peer, orderer, configtxgen, osnadmin (and cryptogen)")
	f.StringVar(&u.fabric.FabricCA, "ca-bin", "bin", "directory of fabric-ca-server and fabric-ca-client")
	f.StringVar(&u.fabric.ConfigSrc, "config-src", "build/config", "directory of upstream's core.yaml and orderer.yaml")
	f.StringVar(&u.fabric.Overrides, "overrides", "network/config", "directory of fabvote's overrides of them")
	f.StringVar(&u.goBin, "go", "go", "the Go command that builds the chaincodes")
	f.StringVar(&u.goTags, "go-tags", "", "build tags of the chaincodes (chaincode/gotags.sh)")
	f.StringVar(&u.root, "root", ".", "the repository the chaincode packages are in")
	f.StringVar(&u.logSpec, "log-spec", "info", "FABRIC_LOGGING_SPEC of the nodes")
	f.StringVar(&u.passEnv, "pass-env", "GOMAXPROCS GOGC GOMEMLIMIT GODEBUG LD_LIBRARY_PATH", "variables of this environment the nodes inherit besides PATH, HOME, TMPDIR and FABVOTE_* (space-separated)")
	f.StringArrayVar(&u.nodeEnv, "node-env", nil, "KEY=VALUE for every node (repeatable)")
	f.StringArrayVar(&u.peerEnv, "peer-env", nil, "ORG=KEY=VALUE for ORG's peer only, after every other setting (repeatable)")
	f.DurationVar(&u.wait, "wait", fabrun.DefaultWait, "time allowed for a node to listen, a Raft leader, an active orderer, a ledger, a committed definition")
	f.DurationVar(&u.stopTimeout, "stop-timeout", 10*time.Second, "on failure: time allowed after SIGTERM before SIGKILL")
	f.BoolVar(&u.keepOnFailure, "keep-on-failure", false, "a failed up leaves its nodes running for inspection")
	f.BoolVar(&u.removeTools, "remove-tools", false, "remove the --tools directory when done (a temporary build)")
	return u
}

// localUpSetup is `fabnet local-up`.
func localUpSetup(fs *pflag.FlagSet) func([]string) error {
	u := newLocalUp(fs)
	return func([]string) error { return u.up() }
}

// up brings the network up. Interrupted (SIGINT, SIGTERM) or failed, it
// stops every node it started and keeps the run directory with the logs;
// the next up removes it.
func (u *localUp) up() error {
	if u.removeTools && u.tools != "" { // a temporary build: copied into the run directory, or refused
		defer os.RemoveAll(u.tools)
	}
	l, err := u.prepare()
	if err != nil {
		return err
	}
	if _, ok := os.LookupEnv("FABVOTE_AUTHORITY_MSPS"); !ok {
		// Only the election authority's MSP (the profile's first
		// organisation's) may open elections on the ballot services (package
		// ballot): without it any channel member could open an election
		// naming itself the authority. Set it empty to lift that.
		os.Setenv("FABVOTE_AUTHORITY_MSPS", l.Topology.Orgs[0].MSPID)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = u.build(ctx, l)
	if err == nil {
		err = l.Up(ctx)
	}
	if err != nil {
		return u.failed(ctx, l, err)
	}
	if u.current != "" {
		if err := pointAt(u.current, l.Home.Dir); err != nil {
			return u.failed(ctx, l, err)
		}
	}
	names, _ := l.Home.DefinedNodes()
	logf("network up: %d processes; description in %s", len(names), l.Home.NetworkJSON())
	return nil
}

func (u *localUp) failed(ctx context.Context, l *fabrun.Local, err error) error {
	if u.keepOnFailure {
		logf("network-up failed; nodes left running (--keep-on-failure); logs in %s", filepath.Join(l.Home.Dir, "logs"))
	} else {
		logf("network-up failed; stopping the nodes it started; logs kept in %s", filepath.Join(l.Home.Dir, "logs"))
		err = errors.Join(err, l.Home.StopAll(u.stopTimeout))
	}
	if ctx.Err() != nil {
		return interrupted{err}
	}
	return err
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "[net %s] %s\n", time.Now().UTC().Format("15:04:05"), fmt.Sprintf(format, args...))
}

// pointAt makes link a symlink to dir, replacing it in one rename.
func pointAt(link, dir string) error {
	tmp := link + ".tmp"
	_ = os.Remove(tmp)
	if err := os.Symlink(dir, tmp); err != nil {
		return err
	}
	return os.Rename(tmp, link)
}

// prepare checks everything the network needs before it touches the
// run directory, then replaces it with a fresh one holding the tools.
func (u *localUp) prepare() (*fabrun.Local, error) {
	if u.runDir == "" || u.tools == "" {
		return nil, cli.Usagef("--home and --tools are required")
	}
	t, err := u.topology()
	if err != nil {
		return nil, err
	}
	if err := u.checkTools(); err != nil {
		return nil, err
	}
	pass := strings.Fields(u.passEnv)
	peerEnv := map[string][]string{}
	settings := slices.Clone(u.nodeEnv)
	for _, kv := range u.peerEnv {
		org, setting, _ := strings.Cut(kv, "=")
		peerEnv[org] = append(peerEnv[org], setting)
		settings = append(settings, setting)
	}
	if _, err := fabrun.PassEnv(pass, settings...); err != nil {
		return nil, err
	}
	dir, err := u.checkRunDir()
	if err != nil {
		return nil, err
	}
	if err := fabnet.CheckPortsFree(t, u.stack, u.identities == "ca"); err != nil {
		return nil, err
	}
	h, err := u.freshRunDir(t, dir)
	if err != nil {
		return nil, err
	}
	logf("profile %s in %s, binaries %s, base port %d", u.profile, h.Dir, u.fabric.Fabric, u.basePort)
	return &fabrun.Local{Topology: t, Home: h, Profile: u.profile, BasePort: u.basePort, Tools: u.fabric,
		Cryptogen: u.identities == "cryptogen", Chaincodes: map[string]string{}, PeerEnv: peerEnv, Wait: u.wait, Log: logf,
		Options: fabrun.NodeOptions{LogSpec: u.logSpec, Env: u.nodeEnv, Pass: pass, Wait: u.wait}}, nil
}

var chaincodeNameRE = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)

// topology is the profile's topology with the batch settings and the
// chaincodes of the flags.
func (u *localUp) topology() (*fabnet.Topology, error) {
	switch u.validation {
	case "off", "vscc", "ballotvscc":
	default:
		return nil, cli.Usagef("--validation-plugin %q: want ballotvscc, vscc or off", u.validation)
	}
	if err := u.placeOnPlan(); err != nil {
		return nil, err
	}
	var ccs []fabnet.Chaincode
	for _, kv := range u.chaincodes {
		name, pkg, ok := strings.Cut(kv, "=")
		if !ok || !chaincodeNameRE.MatchString(name) || pkg == "" {
			return nil, cli.Usagef("chaincode %q: want name=./go/package/path, the name matching [a-z][a-z0-9_-]*", kv)
		}
		cc := fabnet.Chaincode{Name: name, Version: u.version, Ballot: pkg == ballotPackage}
		if cc.Ballot && u.validation == "ballotvscc" {
			cc.ValidationPlugin = "ballotvscc"
		}
		ccs = append(ccs, cc)
	}
	t, err := fabnet.Profile(u.profile, u.basePort, nil, ccs)
	if err != nil {
		return nil, err
	}
	for _, kv := range u.peerEnv {
		org, setting, _ := strings.Cut(kv, "=")
		if _, err := t.PeerOrg(org); err != nil || !strings.Contains(setting, "=") {
			return nil, cli.Usagef("--peer-env %q: want ORG=KEY=VALUE, ORG a peer organisation of %s", kv, u.profile)
		}
	}
	t.Batch, t.Writers = u.batch, u.writers
	return t, t.Check()
}

// placeOnPlan sets the base port from the stack when none is given, and
// refuses one whose ports meet another stack's.
func (u *localUp) placeOnPlan() error {
	s, err := portplan.Lookup(u.stack)
	if err != nil {
		return cli.Usagef("--stack: %v", err)
	}
	if u.basePort == 0 {
		u.basePort = s.Base
	}
	return portplan.CheckPlacement(u.stack, u.basePort)
}

// checkTools finds the binaries and configuration the network needs, and
// refuses a stock peer with the fork's configuration.
func (u *localUp) checkTools() error {
	if err := absPaths(&u.fabric.Fabric, &u.fabric.FabricCA, &u.fabric.ConfigSrc, &u.fabric.Overrides, &u.tools, &u.root); err != nil {
		return err
	}
	need := []string{filepath.Join(u.fabric.Fabric, "peer"), filepath.Join(u.fabric.Fabric, "orderer"),
		filepath.Join(u.fabric.Fabric, "configtxgen"), filepath.Join(u.fabric.Fabric, "osnadmin"),
		filepath.Join(u.fabric.ConfigSrc, "core.yaml"), filepath.Join(u.fabric.ConfigSrc, "orderer.yaml")}
	switch u.identities {
	case "cryptogen":
		need = append(need, filepath.Join(u.fabric.Fabric, "cryptogen"))
	case "ca":
		need = append(need, filepath.Join(u.fabric.FabricCA, "fabric-ca-server"), filepath.Join(u.fabric.FabricCA, "fabric-ca-client"))
	default:
		return cli.Usagef("--identities %q: want ca or cryptogen", u.identities)
	}
	for _, tool := range localTools {
		need = append(need, filepath.Join(u.tools, tool))
	}
	for _, p := range need {
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("%s not found: run 'make fabric' (and 'make fabric-ca' for CA identities), or point --bin, --ca-bin, --config-src elsewhere", p)
		}
	}
	return u.checkForkPair()
}

// checkForkPair: the fork's core.yaml registers its compiled-in ballot
// validation handler, on which a stock peer panics at start.
func (u *localUp) checkForkPair() error {
	core, err := os.ReadFile(filepath.Join(u.fabric.ConfigSrc, "core.yaml"))
	if err != nil {
		return err
	}
	forkConfig := strings.Contains(string(core), "name: BallotValidation")
	if u.validation == "ballotvscc" && !forkConfig {
		return fmt.Errorf("--validation-plugin ballotvscc: %s/core.yaml registers no ballotvscc validator; the plugin needs the fork (make fabric)", u.fabric.ConfigSrc)
	}
	if !forkConfig {
		return nil
	}
	out, _ := exec.Command(filepath.Join(u.fabric.Fabric, "peer"), "version").Output()
	if !strings.Contains(string(out), "fabvote patch series") {
		return fmt.Errorf("%s/peer is not the fork's peer, but %s/core.yaml is the fork's configuration: give a stock peer its own (FABRIC_CFG_SRC=build/config-stock, made by make fabric-stock)", u.fabric.Fabric, u.fabric.ConfigSrc)
	}
	return nil
}

// checkRunDir is the run directory, refused when its path cannot go into
// node configuration, when it is not a run directory, or when its
// network still runs.
func (u *localUp) checkRunDir() (string, error) {
	dir, err := fabrun.HomePath(u.runDir)
	if err != nil {
		return "", fmt.Errorf("run dir: %w", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(dir, "profile")); len(entries) > 0 && err != nil {
		return "", fmt.Errorf("%s exists and is not a network run dir; choose another NET_RUN_DIR", dir)
	}
	old := fabrun.Home{Dir: dir}
	names, err := old.DefinedNodes()
	if err != nil {
		return "", fmt.Errorf("cannot tell whether the nodes of %s run: %w", dir, err)
	}
	for _, n := range names {
		if _, ok := old.Running(n); ok {
			return "", fmt.Errorf("a network is already up in %s (%s is running); run 'make network-down' first", dir, n)
		}
	}
	return dir, nil
}

// freshRunDir replaces the run directory with an empty one holding the
// tools, the profile and the settings later commands read (state.env).
func (u *localUp) freshRunDir(t *fabnet.Topology, dir string) (fabrun.Home, error) {
	if err := os.RemoveAll(dir); err != nil {
		return fabrun.Home{}, err
	}
	h, err := fabrun.LocalHome(dir, t)
	if err != nil {
		return h, err
	}
	for _, sub := range []string{"nodes", "logs", "pids", "configtx", "tools", "ccbin"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o700); err != nil {
			return h, err
		}
	}
	for _, tool := range localTools {
		b, err := os.ReadFile(filepath.Join(u.tools, tool))
		if err != nil {
			return h, err
		}
		if err := atomicfile.WriteFile(filepath.Join(dir, "tools", tool), b, 0o755); err != nil {
			return h, err
		}
	}
	u.fabric.Builder = filepath.Join(dir, "tools", "ccaas-builder")
	if err := atomicfile.WriteFile(filepath.Join(dir, "nodes.list"), nil, 0o600); err != nil {
		return h, err
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, "profile"), []byte(u.profile+"\n"), 0o600); err != nil {
		return h, err
	}
	return h, atomicfile.WriteFile(filepath.Join(dir, "state.env"), u.stateEnv(t), 0o600)
}

// stateEnv is what network/net.sh's other commands read back (sourced
// by bash: every value single-quoted).
func (u *localUp) stateEnv(t *fabnet.Topology) []byte {
	var b strings.Builder
	for _, kv := range [][2]string{{"PROFILE", u.profile}, {"FABRIC_BIN", u.fabric.Fabric}, {"FABRIC_CFG_SRC", u.fabric.ConfigSrc},
		{"CHANNEL", t.Channel}, {"BASE_PORT", fmt.Sprint(u.basePort)}, {"BATCH_SIZE", fmt.Sprint(u.batch.MaxMessageCount)},
		{"BATCH_TIMEOUT", u.batch.Timeout}, {"BATCH_PREFERRED_BYTES", u.batch.PreferredMaxBytes}, {"CHANNEL_WRITERS", u.writers},
		{"CHAINCODES", strings.Join(u.chaincodes, " ")}} {
		fmt.Fprintf(&b, "%s='%s'\n", kv[0], strings.ReplaceAll(kv[1], "'", `'\''`))
	}
	return []byte(b.String())
}

// build builds each chaincode's service binary into RUN_DIR/ccbin.
func (u *localUp) build(ctx context.Context, l *fabrun.Local) error {
	for _, kv := range u.chaincodes {
		name, pkg, _ := strings.Cut(kv, "=")
		out := filepath.Join(l.Home.Dir, "ccbin", name)
		args := []string{"build"}
		if u.goTags != "" {
			args = append(args, "-tags", u.goTags)
		}
		cmd := exec.CommandContext(ctx, u.goBin, append(args, "-o", out, pkg)...)
		cmd.Dir = u.root
		// Interrupted, the whole build stops: go and the compilers it runs.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
		if b, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s (chaincode %s): %v\n%s", pkg, name, err, b)
		}
		l.Chaincodes[name] = out
	}
	return nil
}
