package main

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/fabvote/fabvote/internal/cli"
	"github.com/fabvote/fabvote/network/fabnet"
)

// topologyFlags are the flags of fabnet topology.
type topologyFlags struct {
	fs                  *pflag.FlagSet
	profile, from, out  string
	base                int
	containers          bool
	batch               fabnet.Batch
	hosts, ccs, addOrgs []string
}

func topologySetup(fs *pflag.FlagSet) func([]string) error {
	f := &topologyFlags{fs: fs}
	fs.StringVar(&f.profile, "profile", "three-orgs", "a registered profile: "+strings.Join(fabnet.Profiles(), ", "))
	fs.StringVar(&f.from, "from", "", "start from this topology file instead of --profile (to add organisations)")
	fs.IntVar(&f.base, "base-port", 7050, "the first port of the port plan")
	fs.StringVar(&f.out, "out", "", "the topology file to write (required)")
	fs.IntVar(&f.batch.MaxMessageCount, "batch-size", fabnet.DefaultBatch.MaxMessageCount, "transactions per block at most")
	fs.BoolVar(&f.containers, "containers", false, "every node a container of its own, as the Docker network runs them (fabnet.Containers)")
	fs.StringVar(&f.batch.Timeout, "batch-timeout", fabnet.DefaultBatch.Timeout, "how long the orderer waits to fill a block")
	fs.StringVar(&f.batch.PreferredMaxBytes, "batch-preferred-bytes", fabnet.DefaultBatch.PreferredMaxBytes, "preferred block size")
	fs.StringVar(&f.batch.AbsoluteMaxBytes, "batch-absolute-bytes", fabnet.DefaultBatch.AbsoluteMaxBytes, "largest block size")
	fs.StringArrayVar(&f.hosts, "host", nil, "ORG=ADDRESS: where the others reach ORG (repeatable; default 127.0.0.1)")
	fs.StringArrayVar(&f.ccs, "chaincode", nil, "NAME[:ballot[:PLUGIN]] of a chaincode every org runs (repeatable)")
	fs.StringArrayVar(&f.addOrgs, "add-org", nil, "NAME=ADDRESS: a peer organisation to add, in the next slot of the port plan (repeatable)")
	return func([]string) error { return f.write() }
}

func (f *topologyFlags) write() error {
	if f.out == "" {
		return cli.Usagef("--out is required")
	}
	hostOf, err := pairs("--host", f.hosts)
	if err != nil {
		return err
	}
	added, err := pairs("--add-org", f.addOrgs)
	if err != nil {
		return err
	}
	t, err := f.start(hostOf)
	if err != nil {
		return err
	}
	for org := range hostOf {
		if _, err := t.PeerOrg(org); err != nil && org != t.OrdererOrg.Name {
			return cli.Usagef("--host: %v", err)
		}
	}
	for _, kv := range f.addOrgs { // in the order given: each takes the next slot
		name, _, _ := strings.Cut(kv, "=")
		if err := t.AddOrg(name, added[name], f.base); err != nil {
			return fmt.Errorf("--add-org %s: %w", name, err)
		}
	}
	if err := t.Check(); err != nil {
		return err
	}
	return t.Save(f.out)
}

// start is the topology the flags start from: the containers' layout, the
// file of --from, or the profile.
func (f *topologyFlags) start(hostOf map[string]string) (*fabnet.Topology, error) {
	switch {
	case f.containers && (f.from != "" || len(f.hosts) > 0):
		return nil, cli.Usagef("--containers names every node's host itself: not with --from or --host")
	case f.containers:
		t, err := fabnet.Containers(f.profile, chaincodes(f.ccs))
		if err == nil {
			t.Batch = f.batch
		}
		return t, err
	case f.from != "":
		t, err := f.loadFrom()
		if err == nil {
			f.base = t.OrdererOrg.Orderers[0].Port // orderer0 is on the plan's first port
		}
		return t, err
	}
	t, err := fabnet.Profile(f.profile, f.base, hostOf, chaincodes(f.ccs))
	if err == nil {
		t.Batch = f.batch
	}
	return t, err
}

// loadFrom loads the agreed topology for --from, which only --add-org
// changes: every other flag of the profile is refused.
func (f *topologyFlags) loadFrom() (*fabnet.Topology, error) {
	var err error
	f.fs.Visit(func(fl *pflag.Flag) {
		if fl.Name != "from" && fl.Name != "add-org" && fl.Name != "out" && err == nil {
			err = cli.Usagef("--%s does not apply with --from: the topology file decides it", fl.Name)
		}
	})
	if err != nil {
		return nil, err
	}
	return fabnet.Load(f.from)
}

// pairs reads NAME=VALUE flag values.
func pairs(flagName string, list []string) (map[string]string, error) {
	m := map[string]string{}
	for _, kv := range list {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, cli.Usagef("%s %q: want NAME=VALUE", flagName, kv)
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
