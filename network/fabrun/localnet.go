package fabrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fabvote/fabvote/internal/atomicfile"
	"github.com/fabvote/fabvote/network/fabnet"
	"github.com/fabvote/fabvote/network/netjson"
)

// A Local network runs every organisation of a topology on this host
// (network/net.sh's single-host network). It goes through the same steps
// as organisations on separate hosts, from one home that holds them all
// (LocalHome): each organisation's identities from its own Fabric CA (or
// cryptogen, the quick option), the genesis block, the orderers, each
// peer and its chaincode services, the definitions' approval and commit.
type Local struct {
	Topology *fabnet.Topology
	Home     Home // LocalHome
	Profile  string
	BasePort int
	Tools    Tools
	// Cryptogen makes every organisation's keys in one step instead of
	// from each organisation's CA servers.
	Cryptogen bool
	// ServiceNode names the TLS identity of each organisation's chaincode
	// services ("" is ccaas0).
	ServiceNode string
	// Chaincodes are the services' binaries by chaincode name.
	Chaincodes map[string]string
	// Options are every organisation's node settings; PeerEnv adds an
	// organisation's own settings to its peer (by organisation name).
	Options NodeOptions
	PeerEnv map[string][]string
	// Wait bounds each wait for a Raft leader, a ledger or a committed
	// definition.
	Wait time.Duration
	Log  func(format string, args ...any)
}

// LocalHome is a home in dir for every organisation of t, their files in
// one cryptogen-layout tree (dir/crypto), as cryptogen and network/fabca
// write them.
func LocalHome(dir string, t *fabnet.Topology) (Home, error) {
	h, err := NewHome(dir, t.OrdererOrg.Name)
	if err != nil {
		return h, err
	}
	return layoutHome(h, t), nil
}

// OpenLocalHome is the LocalHome in dir, which exists already. Its modes
// are left as they are: the Docker network's directory also grants the
// containers' user access, by owner or by ACL, which a chmod would undo.
func OpenLocalHome(dir string, t *fabnet.Topology) (Home, error) {
	abs, err := HomePath(dir)
	if err != nil {
		return Home{}, err
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return Home{}, fmt.Errorf("home %s: not a directory", abs)
	}
	return layoutHome(Home{Dir: abs, Org: t.OrdererOrg.Name}, t), nil
}

func layoutHome(h Home, t *fabnet.Topology) Home {
	l := fabnet.Layout{Dir: h.path("crypto")}
	h.orgDirs = map[string]string{t.OrdererOrg.Name: l.OrdererOrgDir(t.OrdererOrg.Domain)}
	for _, o := range t.Orgs {
		h.orgDirs[o.Name] = l.PeerOrgDir(o.Domain)
	}
	return h
}

// Up brings the network up. A failure leaves what it started running:
// the caller stops it (Home.StopAll) or keeps it for inspection.
func (l *Local) Up(ctx context.Context) error {
	t, h := l.Topology, l.Home
	ctx = WithWait(ctx, l.wait())
	if !h.shared() {
		return errors.New("a local network needs a LocalHome")
	}
	if err := t.Save(h.path("topology.json")); err != nil {
		return err
	}
	if _, err := installBuilder(h, l.Tools); err != nil {
		return err
	}
	if err := l.Identities(ctx); err != nil {
		return err
	}
	if err := l.genesis(ctx); err != nil {
		return err
	}
	if err := l.orderers(ctx); err != nil {
		return err
	}
	for i := range t.Orgs {
		o := &t.Orgs[i]
		l.Log("starting %s and joining it to channel %s", h.peerNode(o), t.Channel)
		if env := l.PeerEnv[o.Name]; len(env) > 0 {
			l.Log("peer of %s: %s", o.Name, strings.Join(env, " "))
		}
		if err := StartPeer(ctx, t, h.as(o.Name), l.Tools, l.orgOptions(o.Name)); err != nil {
			return err
		}
	}
	if err := l.chaincodes(ctx); err != nil {
		return err
	}
	return l.connection(ctx)
}

func (l *Local) orgOptions(org string) NodeOptions {
	opts := l.Options
	opts.PeerEnv = l.PeerEnv[org]
	return opts
}

// Identities makes every organisation's keys and certificates in the
// home: each from its own CA servers, all enrolling at the same time, each
// into its own directory; or all from cryptogen. The CA servers keep
// running as nodes of the home.
func (l *Local) Identities(ctx context.Context) error {
	t, h := l.Topology, l.Home
	service := l.ServiceNode
	if service == "" {
		service = serviceNode
	}
	if l.Cryptogen {
		l.Log("generating crypto material (cryptogen)")
		text, err := fabnet.CryptogenConfig(t, service)
		if err != nil {
			return err
		}
		config := h.path("crypto-config.yaml")
		if err := atomicfile.WriteFile(config, text, 0o600); err != nil {
			return err
		}
		_, err = run(ctx, filepath.Join(l.Tools.Fabric, "cryptogen"), "generate", "--config="+config, "--output="+h.path("crypto"))
		return err
	}
	orgs := []string{t.OrdererOrg.Name}
	for _, o := range t.Orgs {
		orgs = append(orgs, o.Name)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, len(orgs))
	var wg sync.WaitGroup
	for i, org := range orgs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.Log("%s: Fabric CA servers (MSP and TLS CA) and enrollment of its nodes and users", org)
			if errs[i] = enrollOrg(ctx, t, h.as(org), l.Tools, service); errs[i] != nil {
				errs[i] = fmt.Errorf("%s's identities: %w", org, errs[i])
				cancel() // the others stop too
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// genesis writes configtx.yaml from every organisation's MSP and makes
// the channel's genesis block.
func (l *Local) genesis(ctx context.Context) error {
	t, h := l.Topology, l.Home
	l.Log("generating the channel genesis block")
	text, err := fabnet.Configtx(t, fabnet.Layout{Dir: h.path("crypto")}.ConfigtxFiles(t))
	if err != nil {
		return err
	}
	return writeGenesis(ctx, t, l.Tools, h.path("configtx"), text)
}

// orderers starts and joins the orderers, then waits until the channel
// has a Raft leader that each of them has heard from.
func (l *Local) orderers(ctx context.Context) error {
	t, h := l.Topology, l.Home
	l.Log("starting %d orderer(s) and joining them to channel %s", len(t.OrdererOrg.Orderers), t.Channel)
	if err := StartOrderers(ctx, t, h, l.Tools, l.Options); err != nil {
		return err
	}
	crypto := fabnet.Layout{Dir: h.path("crypto")}
	for _, o := range t.OrdererOrg.Orderers {
		wctx, cancel := context.WithTimeout(ctx, l.wait())
		err := WaitOrderer(wctx, crypto, t, h, o.Name)
		cancel()
		if err != nil {
			return err
		}
	}
	return nil
}

// chaincodes starts every organisation's chaincode services, installs
// and approves their packages, commits each definition with every peer's
// endorsement and waits until every peer has it.
func (l *Local) chaincodes(ctx context.Context) error {
	t, h := l.Topology, l.Home
	if len(t.Chaincodes) == 0 {
		return nil
	}
	names := make([]string, len(t.Chaincodes))
	for i, cc := range t.Chaincodes {
		names[i] = cc.Name
	}
	l.Log("deploying chaincode %s", strings.Join(names, ", "))
	for i := range t.Orgs {
		o := &t.Orgs[i]
		if err := StartChaincodes(ctx, t, h.as(o.Name), l.Tools, l.Chaincodes, l.orgOptions(o.Name)); err != nil {
			return err
		}
	}
	if err := Commit(ctx, t, h.as(t.Orgs[0].Name), l.Tools); err != nil {
		return err
	}
	for _, o := range t.Orgs[1:] {
		if err := WaitCommitted(ctx, t, h.as(o.Name), l.Tools); err != nil {
			return err
		}
	}
	return atomicfile.WriteFile(h.path("chaincodes.list"), []byte(strings.Join(names, "\n")+"\n"), 0o600)
}

// connection writes network.json and waits until every organisation's
// gateway can gather endorsements (service discovery has learned every
// peer and chaincode).
func (l *Local) connection(ctx context.Context) error {
	t, h := l.Topology, l.Home
	c := fabnet.LocalConnection{Profile: l.Profile, RunDir: h.Dir, BasePort: l.BasePort, Crypto: fabnet.Layout{Dir: h.path("crypto")}}
	b, err := json.MarshalIndent(c.Network(t), "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(h.NetworkJSON(), append(b, '\n'), 0o600); err != nil {
		return err
	}
	if len(t.Chaincodes) == 0 {
		return nil
	}
	l.Log("waiting until every org's gateway can gather endorsements (service discovery)")
	n, err := netjson.Load(h.NetworkJSON())
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { // WaitEndorsable has no context: an interrupted up does not wait for it
		var err error
		for i := range n.Orgs {
			if err = n.WaitEndorsable(&n.Orgs[i], gatewayWait); err != nil {
				break
			}
		}
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// gatewayWait bounds the wait for each gateway's first endorsement.
const gatewayWait = 2 * time.Minute

// writeGenesis writes configtx.yaml into dir and the channel's genesis
// block beside it.
func writeGenesis(ctx context.Context, t *fabnet.Topology, tools Tools, dir string, configtx []byte) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, "configtx.yaml"), configtx, 0o600); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, filepath.Join(tools.Fabric, "configtxgen"), "-configPath", dir,
		"-profile", "FabvoteChannel", "-channelID", t.Channel, "-outputBlock", filepath.Join(dir, t.Channel+".block"))
	cmd.Env = nodeEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("configtxgen: %v\n%s", err, out)
	}
	return nil
}

// wait is Wait, or DefaultWait when it is not set.
func (l *Local) wait() time.Duration {
	if l.Wait > 0 {
		return l.Wait
	}
	return DefaultWait
}
