package fabrun

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/fabvote/fabvote/internal/filetree"
	"github.com/fabvote/fabvote/network/fabnet"
)

// configtx renders the channel configuration for the orderer org's home:
// its own MSP and orderer certificates, the others' MSPs from their bundles.
func configtx(t *fabnet.Topology, h Home) ([]byte, error) {
	oo := t.OrdererOrg
	files := fabnet.ConfigtxFiles{OrdererMSP: filepath.Join(h.Crypto(), "msp"), MSP: map[string]string{}, ConsenterCert: map[string]string{}}
	for _, o := range oo.Orderers {
		files.ConsenterCert[o.Name] = filepath.Join(h.nodeCrypto("orderers", o.Name, oo.Domain), "tls", "server.crt")
	}
	for _, o := range t.Orgs {
		files.MSP[o.Name] = filepath.Join(h.Received(o.Name), "msp")
		if err := h.need(files.MSP[o.Name], o.Name+"'s bundle"); err != nil {
			return nil, err
		}
	}
	return fabnet.Configtx(t, files)
}

// GenesisBlock makes the channel's genesis block from the orderer org's
// MSP and the bundles it received, and adds it to its bundle.
func GenesisBlock(ctx context.Context, t *fabnet.Topology, h Home, tools Tools) error {
	if h.Org != t.OrdererOrg.Name {
		return fmt.Errorf("%s is not the ordering organisation (%s): only it makes the genesis block", h.Org, t.OrdererOrg.Name)
	}
	text, err := configtx(t, h)
	if err != nil {
		return err
	}
	dir := h.path("configtx")
	if err := writeGenesis(ctx, t, tools, dir, text); err != nil {
		return err
	}
	if err := filetree.CopyFile(filepath.Join(dir, t.Channel+".block"), filepath.Join(h.Bundle(), t.Channel+".block")); err != nil {
		return err
	}
	return CheckPublic(h.Bundle())
}

// StartOrderers writes each orderer's configuration, starts it, joins it
// to the channel with the genesis block and waits until it is active.
func StartOrderers(ctx context.Context, t *fabnet.Topology, h Home, tools Tools, opts NodeOptions) error {
	oo := t.OrdererOrg
	if h.Org != oo.Name {
		return fmt.Errorf("%s runs no orderers", h.Org)
	}
	block := h.genesisBlock(t)
	if err := h.need(block, "the genesis block (run genesis first)"); err != nil {
		return err
	}
	for _, o := range oo.Orderers {
		if err := startOrderer(ctx, t, h, tools, opts, o); err != nil {
			return err
		}
	}
	for _, o := range oo.Orderers {
		if _, err := osnJoin(ctx, t, h, tools, o, block); err != nil {
			return err
		}
	}
	return nil
}

func startOrderer(ctx context.Context, t *fabnet.Topology, h Home, tools Tools, opts NodeOptions, o fabnet.Orderer) error {
	oo := t.OrdererOrg
	dir, tls := h.Node(o.Name), filepath.Join(h.nodeCrypto("orderers", o.Name, oo.Domain), "tls")
	vars := map[string]string{
		"NODE_NAME": o.Name, "NODE_HOME": dir, "NODE_HOST": oo.HostOf(o), "NODE_LISTEN_HOST": fabnet.ListenHost(oo.HostOf(o)),
		"NODE_PORT": strconv.Itoa(o.Port), "NODE_ADMIN_PORT": strconv.Itoa(o.AdminPort), "NODE_OPS_PORT": strconv.Itoa(o.OpsPort),
		"NODE_TLS_DIR": tls, "NODE_MSP_DIR": filepath.Join(h.nodeCrypto("orderers", o.Name, oo.Domain), "msp"), "NODE_MSPID": oo.MSPID,
	}
	if err := writeNodeConfig(tools, "orderer", dir, vars); err != nil {
		return err
	}
	p := fabnet.Proc{Name: o.Name, Path: filepath.Join(tools.Fabric, "orderer"), Dir: dir,
		Env:   opts.env("FABRIC_CFG_PATH="+dir, "FABRIC_LOGGING_SPEC="+opts.logSpec()),
		Ready: net.JoinHostPort(fabnet.DialHost(oo.HostOf(o)), strconv.Itoa(o.Port)), Image: "fabvote/orderer", ImageCmd: "orderer",
		Mounts: []string{h.nodeCrypto("orderers", o.Name, oo.Domain)}}
	return opts.start(ctx, h, p)
}

// osnJoin joins orderer o to the channel unless it is a member, and waits
// until it is active; joined tells whether it had to join.
func osnJoin(ctx context.Context, t *fabnet.Topology, h Home, tools Tools, o fabnet.Orderer, block string) (joined bool, err error) {
	oo := t.OrdererOrg
	admin := filepath.Join(h.user("Admin", oo.Domain), "tls")
	flags := []string{"--channelID", t.Channel, "-o", net.JoinHostPort(fabnet.DialHost(oo.HostOf(o)), strconv.Itoa(o.AdminPort)),
		"--ca-file", h.tlsCA(oo.Domain), "--client-cert", filepath.Join(admin, "client.crt"), "--client-key", filepath.Join(admin, "client.key")}
	osn := filepath.Join(tools.Fabric, "osnadmin")
	// A member names the channel (a network whose volumes were kept).
	member := func() bool {
		out, err := run(ctx, osn, append([]string{"channel", "list"}, flags...)...)
		return err == nil && namesChannel(out, t.Channel)
	}
	if !member() {
		joined = true
		if err := osnadminJoin(ctx, osn, block, flags, member); err != nil {
			return joined, fmt.Errorf("joining %s to %s: %w", o.Name, t.Channel, err)
		}
	}
	return joined, poll(ctx, waitBound(ctx), func() (bool, string) {
		out, err := run(ctx, osn, append([]string{"channel", "list"}, flags...)...)
		return err == nil && strings.Contains(out, `"status": "active"`), out
	}, o.Name+" to become active on "+t.Channel)
}

// osnadminJoin asks the orderer to join, up to 5 times, 2 s apart, until
// it accepts (201) or is a member. osnadmin exits 0 whenever the orderer
// answers, whatever the status: the status line tells.
func osnadminJoin(ctx context.Context, osn, block string, flags []string, member func() bool) error {
	_, err := attempt(ctx, 5, member, func() (string, error) {
		out, err := run(ctx, osn, append([]string{"channel", "join", "--config-block", block}, flags...)...)
		if err == nil && !strings.Contains(out, "Status: 201") {
			err = fmt.Errorf("osnadmin channel join: %s", strings.TrimSpace(out))
		}
		return out, err
	})
	return err
}

// namesChannel tells whether osnadmin's channel list output names channel
// (osnadmin indents the JSON with encoding/json: `"name": "fabvote"`).
func namesChannel(out, channel string) bool {
	return strings.Contains(out, `"name": "`+channel+`"`)
}
