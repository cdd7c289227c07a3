package fabrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/fabvote/fabvote/network/fabnet"
)

// The steps below set up the channel on nodes that another tool runs and
// that this host reaches at the topology's addresses: the single-host
// Docker network, whose containers publish their ports on the host's
// loopback. Every step that is already done is skipped, so they run
// again on a network whose volumes were kept.

// JoinChannel joins every orderer and every organisation's peer of a
// shared home (LocalHome) to the channel with its genesis block, and
// waits until each orderer is active and each peer has the ledger.
func JoinChannel(ctx context.Context, t *fabnet.Topology, h Home, tools Tools, logf func(format string, args ...any)) error {
	if !h.shared() {
		return errors.New("JoinChannel needs a home that holds every organisation (LocalHome)")
	}
	block := h.genesisBlock(t)
	if err := h.need(block, "the channel's genesis block"); err != nil {
		return err
	}
	for _, o := range t.OrdererOrg.Orderers {
		joined, err := osnJoin(ctx, t, h.as(t.OrdererOrg.Name), tools, o, block)
		if err != nil {
			return err
		}
		logJoin(logf, o.Name, t.Channel, joined)
	}
	for i := range t.Orgs {
		o := &t.Orgs[i]
		joined, err := joinPeer(ctx, t, h.as(o.Name).peerCLI(t, o, tools), o, block)
		if err != nil {
			return err
		}
		logJoin(logf, o.Name+"'s peer", t.Channel, joined)
	}
	return nil
}

func logJoin(logf func(format string, args ...any), node, channel string, joined bool) {
	if joined {
		logf("%s: joined %s", node, channel)
	} else {
		logf("%s: already a member of %s", node, channel)
	}
}

// Height is the ledger height of org's peer, from a shared home.
func Height(ctx context.Context, t *fabnet.Topology, h Home, tools Tools, org string) (int, error) {
	o, err := t.PeerOrg(org)
	if err != nil {
		return 0, err
	}
	return h.as(org).peerCLI(t, o, tools).height(ctx, t.Channel)
}

// A Deployment is a chaincode definition to install, approve and commit
// on every organisation's peer from packages made beforehand.
type Deployment struct {
	Chaincode string // the topology's chaincode
	Version   string // "" is the topology's
	Sequence  int    // 1 is the first definition; an upgrade is the next
	// Package is the path of org's package, whose connection points its
	// peer at its own chaincode service.
	Package func(org string) string
	Log     func(format string, args ...any)
}

// Deploy installs each org's package, approves the definition for each
// org, commits it endorsed by every org's peer once every org approved
// it, and waits until every peer has it. A definition committed at this
// sequence or a later one is left alone. Each wait is bounded by WithWait.
func Deploy(ctx context.Context, t *fabnet.Topology, h Home, tools Tools, d Deployment) error {
	cc, err := d.chaincode(t)
	if err != nil {
		return err
	}
	if !h.shared() {
		return errors.New("Deploy needs a home that holds every organisation (LocalHome)")
	}
	first := &t.Orgs[0]
	c, err := committedDefinition(ctx, h.as(first.Name).peerCLI(t, first, tools), t, cc)
	if err != nil {
		return fmt.Errorf("querying %s's committed definition on %s's peer: %w", cc.Name, first.Name, err)
	}
	if done, err := d.settled(cc, c); done || err != nil {
		return err
	}
	ids := map[string]string{} // every package's id before any change
	for i := range t.Orgs {
		o := &t.Orgs[i]
		out, err := h.as(o.Name).peerCLI(t, o, tools).run(ctx, "lifecycle", "chaincode", "calculatepackageid", d.Package(o.Name))
		if err != nil {
			return fmt.Errorf("%s's %s package %s: %w", o.Name, cc.Name, d.Package(o.Name), err)
		}
		ids[o.Name] = strings.TrimSpace(out)
	}
	for i := range t.Orgs {
		if err := d.approve(ctx, t, h, tools, &t.Orgs[i], cc, ids[t.Orgs[i].Name]); err != nil {
			return err
		}
	}
	return d.commit(ctx, t, h, tools, cc)
}

// settled tells whether the committed definition c leaves nothing to do,
// and refuses a deployment Fabric would refuse after the first changes:
// a new version at the committed sequence, or a sequence past the next.
func (d Deployment) settled(cc fabnet.Chaincode, c committed) (bool, error) {
	switch {
	case c.Sequence == d.Sequence && c.Version != cc.Version:
		return false, fmt.Errorf("%s: sequence %d is committed with version %s, not %s: a new version needs the next sequence, %d",
			cc.Name, c.Sequence, c.Version, cc.Version, c.Sequence+1)
	case c.Sequence >= d.Sequence:
		d.logf("%s: sequence %d is committed (wanted %d): nothing to do", cc.Name, c.Sequence, d.Sequence)
		return true, nil
	case d.Sequence > c.Sequence+1:
		return false, fmt.Errorf("%s: sequence %d is committed, so the next definition is sequence %d, not %d",
			cc.Name, c.Sequence, c.Sequence+1, d.Sequence)
	}
	return false, nil
}

func (d Deployment) chaincode(t *fabnet.Topology) (fabnet.Chaincode, error) {
	if d.Sequence < 1 {
		return fabnet.Chaincode{}, fmt.Errorf("sequence %d: a definition's sequence is 1 or more", d.Sequence)
	}
	for _, cc := range t.Chaincodes {
		if cc.Name == d.Chaincode {
			if d.Version != "" {
				cc.Version = d.Version
			}
			return cc, nil
		}
	}
	return fabnet.Chaincode{}, fmt.Errorf("no chaincode %q in the topology", d.Chaincode)
}

func (d Deployment) logf(format string, args ...any) {
	if d.Log != nil {
		d.Log(format, args...)
	}
}

// approve installs o's package (id pkgID) on o's peer unless it is
// installed, and approves the definition for o unless o approved it.
func (d Deployment) approve(ctx context.Context, t *fabnet.Topology, h Home, tools Tools, o *fabnet.PeerOrg, cc fabnet.Chaincode, pkgID string) error {
	pkg := d.Package(o.Name)
	cli := h.as(o.Name).peerCLI(t, o, tools)
	installed := func() bool {
		out, err := cli.run(ctx, "lifecycle", "chaincode", "queryinstalled")
		return err == nil && strings.Contains(out, "Package ID: "+pkgID+",")
	}
	if !installed() {
		d.logf("%s's peer: installing %s", o.Name, pkgID)
		if err := cli.retryUnless(ctx, 5, installed, "lifecycle", "chaincode", "install", pkg); err != nil {
			return fmt.Errorf("installing %s on %s's peer: %w", cc.Name, o.Name, err)
		}
	}
	// An approval counts when it is of this definition and this package:
	// one with an earlier package (new packages at the same sequence) is
	// made again, which Fabric allows before the commit.
	approved := func() bool {
		approvals, err := readiness(ctx, cli, t, cc, d.Sequence)
		if err != nil || !approvals[o.MSPID] {
			return false
		}
		id, err := approvedPackage(ctx, cli, t, cc, d.Sequence)
		return err == nil && id == pkgID
	}
	if approved() {
		return nil
	}
	d.logf("%s: approving %s %s sequence %d", o.MSPID, cc.Name, cc.Version, d.Sequence)
	if err := cli.retryUnless(ctx, 10, approved, h.approveArgs(t, cc, d.Sequence, pkgID)...); err != nil {
		return fmt.Errorf("approving %s for %s: %w", cc.Name, o.MSPID, err)
	}
	return nil
}

// commit waits until every org approved the definition (an approval
// reaches each peer in a block), commits it and waits until every peer
// has it at this sequence.
func (d Deployment) commit(ctx context.Context, t *fabnet.Topology, h Home, tools Tools, cc fabnet.Chaincode) error {
	first := &t.Orgs[0]
	cli := h.as(first.Name).peerCLI(t, first, tools)
	err := poll(ctx, waitBound(ctx), func() (bool, string) {
		approvals, err := readiness(ctx, cli, t, cc, d.Sequence)
		for i := range t.Orgs {
			if !approvals[t.Orgs[i].MSPID] {
				return false, fmt.Sprint(approvals, err)
			}
		}
		return err == nil, ""
	}, cc.Name+"'s definition to be approved by every organisation")
	if err != nil {
		return err
	}
	d.logf("%s %s: committing sequence %d, endorsed by every organisation's peer", cc.Name, cc.Version, d.Sequence)
	committed := func() bool {
		c, err := committedDefinition(ctx, cli, t, cc)
		return err == nil && c.Sequence >= d.Sequence
	}
	if err := cli.retryUnless(ctx, 10, committed, h.commitArgs(t, cc, d.Sequence)...); err != nil {
		return fmt.Errorf("committing %s: %w", cc.Name, err)
	}
	for i := range t.Orgs {
		o := &t.Orgs[i]
		cli := h.as(o.Name).peerCLI(t, o, tools)
		err := poll(ctx, waitBound(ctx), func() (bool, string) {
			c, err := committedDefinition(ctx, cli, t, cc)
			return err == nil && c.Sequence == d.Sequence, fmt.Sprint(c.Sequence, err)
		}, fmt.Sprintf("%s sequence %d on %s's peer", cc.Name, d.Sequence, o.Name))
		if err != nil {
			return err
		}
	}
	return nil
}

// readiness is checkcommitreadiness: which orgs approved the definition.
func readiness(ctx context.Context, cli peerCLI, t *fabnet.Topology, cc fabnet.Chaincode, sequence int) (map[string]bool, error) {
	args := append([]string{"lifecycle", "chaincode", "checkcommitreadiness"}, definitionFlags(t, cc, sequence)...)
	out, err := cli.run(ctx, append(args, "--output", "json")...)
	if err != nil {
		return nil, err
	}
	var r struct {
		Approvals map[string]bool `json:"approvals"`
	}
	if err := json.Unmarshal([]byte(jsonPart(out)), &r); err != nil {
		return nil, fmt.Errorf("checkcommitreadiness: %w in %q", err, strings.TrimSpace(out))
	}
	return r.Approvals, nil
}

// approvedPackageRE reads the package id from queryapproved's text output
// ("sequence: 1, version: 1.0, init-required: false, package-id: ID, ...").
var approvedPackageRE = regexp.MustCompile(`package-id: ([^,\s]*),`)

// approvedPackage is the package id of the org's approval of cc at
// sequence ("" for an approval without a package).
func approvedPackage(ctx context.Context, cli peerCLI, t *fabnet.Topology, cc fabnet.Chaincode, sequence int) (string, error) {
	out, err := cli.run(ctx, "lifecycle", "chaincode", "queryapproved", "--channelID", t.Channel, "--name", cc.Name,
		"--sequence", strconv.Itoa(sequence))
	if err != nil {
		return "", err
	}
	m := approvedPackageRE.FindStringSubmatch(out)
	if m == nil {
		return "", fmt.Errorf("queryapproved: no package-id in %q", strings.TrimSpace(out))
	}
	return m[1], nil
}

// committed is a committed definition's sequence and version.
type committed struct {
	Sequence int    `json:"sequence"`
	Version  string `json:"version"`
}

// committedDefinition is cc's committed definition on the peer; its
// sequence is 0 if none is committed.
func committedDefinition(ctx context.Context, cli peerCLI, t *fabnet.Topology, cc fabnet.Chaincode) (committed, error) {
	var c committed
	out, err := cli.run(ctx, "lifecycle", "chaincode", "querycommitted", "--channelID", t.Channel, "--name", cc.Name, "--output", "json")
	if err != nil {
		if strings.Contains(out, "namespace "+cc.Name+" is not defined") {
			return c, nil
		}
		return c, err
	}
	if err := json.Unmarshal([]byte(jsonPart(out)), &c); err != nil {
		return c, fmt.Errorf("querycommitted: %w in %q", err, strings.TrimSpace(out))
	}
	return c, nil
}

// jsonPart is the peer CLI's output from its first line that opens a
// JSON object: a warning may come before it.
func jsonPart(out string) string {
	if strings.HasPrefix(out, "{") {
		return out
	}
	if i := strings.Index(out, "\n{"); i >= 0 {
		return out[i+1:]
	}
	return out
}
