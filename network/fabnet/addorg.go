package fabnet

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/fabvote/fabvote/internal/atomicfile"
)

// AddOrg appends a peer organisation to the topology in the next slot of
// the port plan from basePort (net.sh's: peer at basePort+100+10j, CAs at
// basePort+300+10j, services' operations at basePort+200+10j+k), with its
// MSP id and domain derived from its name.
func (t *Topology) AddOrg(name, host string, basePort int) error {
	if !labelRE.MatchString(name) {
		return fmt.Errorf("organisation %q: not a DNS label", name)
	}
	j := len(t.Orgs)
	p := basePort + 100 + 10*j
	peer := Peer{Name: "peer0", Port: p, ChaincodePort: p + 1, OpsPort: p + 2}
	for k, cc := range t.Chaincodes {
		s := Service{Port: p + 3 + k}
		if cc.Ballot {
			s.OpsPort = basePort + 200 + 10*j + k
		}
		peer.Services = append(peer.Services, s)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	t.Orgs = append(t.Orgs, PeerOrg{Name: name, MSPID: mspID(name), Domain: name + ".fabvote.local", Host: host,
		CAPort: basePort + 300 + 10*j, Peer: peer})
	if err := t.Check(); err != nil {
		t.Orgs = t.Orgs[:j]
		return err
	}
	return nil
}

// AddOrgUpdate is run by a member of the channel for an organisation of
// the topology that is not on the channel yet, whose bundle the member
// received. It writes to out the channel configuration update that adds
// the organisation (its MSP, policies and anchor peer), as an unsigned
// envelope: the channel's Admins policy (MAJORITY) decides how many
// member organisations sign it (SignUpdate) before one submits it
// (SubmitUpdate).
func AddOrgUpdate(ctx context.Context, t *Topology, h Home, tools Tools, newOrg, out string) error {
	o, err := t.PeerOrg(h.Org)
	if err != nil {
		return err
	}
	n, err := t.PeerOrg(newOrg)
	if err != nil {
		return err
	}
	msp := filepath.Join(h.Received(n.Name), "msp")
	if err := h.need(msp, newOrg+"'s bundle"); err != nil {
		return err
	}
	work := h.path("updates", n.Name)
	if err := os.MkdirAll(work, 0o700); err != nil {
		return err
	}
	u := updater{ctx: ctx, lator: filepath.Join(tools.Fabric, "configtxlator"), work: work}
	block := filepath.Join(work, "config_block.pb")
	args := append([]string{"channel", "fetch", "config", block, "-c", t.Channel}, h.ordererFlags(t)...)
	if _, err := h.peerCLI(t, o, tools).retry(ctx, 3, args...); err != nil {
		return fmt.Errorf("fetching the channel's configuration: %w", err)
	}
	config, err := u.channelConfig(block)
	if err != nil {
		return err
	}
	group, err := u.orgGroup(tools, configtxOrg{MSPID: n.MSPID, MSPDir: msp, Host: n.Host, Port: n.Peer.Port})
	if err != nil {
		return err
	}
	updated, err := withOrg(config, n.MSPID, group)
	if err != nil {
		return err
	}
	env, err := u.envelope(t.Channel, config, updated)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(out, env, 0o644)
}

// updater runs configtxlator in a work directory.
type updater struct {
	ctx   context.Context
	lator string
	work  string
}

func (u updater) file(name string) string { return filepath.Join(u.work, name) }

// channelConfig decodes a config block and returns its channel Config as
// configtxlator's JSON.
func (u updater) channelConfig(block string) (json.RawMessage, error) {
	if _, err := run(u.ctx, u.lator, "proto_decode", "--input", block, "--type", "common.Block", "--output", u.file("config_block.json")); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(u.file("config_block.json"))
	if err != nil {
		return nil, err
	}
	var blk struct {
		Data struct {
			Data []struct {
				Payload struct {
					Data struct {
						Config json.RawMessage `json:"config"`
					} `json:"data"`
				} `json:"payload"`
			} `json:"data"`
		} `json:"data"`
	}
	if err := json.Unmarshal(b, &blk); err != nil {
		return nil, fmt.Errorf("config block: %w", err)
	}
	if len(blk.Data.Data) != 1 || len(blk.Data.Data[0].Payload.Data.Config) == 0 {
		return nil, errors.New("config block: no channel configuration in it")
	}
	return blk.Data.Data[0].Payload.Data.Config, nil
}

// orgGroup is the new organisation's config group, from configtxgen
// -printOrg, with its anchor peer.
func (u updater) orgGroup(tools Tools, org configtxOrg) (map[string]any, error) {
	var text bytes.Buffer
	if err := orgTemplate.Execute(&text, org); err != nil {
		return nil, err
	}
	if err := atomicfile.WriteFile(u.file("configtx.yaml"), text.Bytes(), 0o600); err != nil {
		return nil, err
	}
	out, err := runEnv(u.ctx, nil, filepath.Join(tools.Fabric, "configtxgen"), "-configPath", u.work, "-printOrg", org.MSPID)
	if err != nil {
		return nil, err
	}
	var group map[string]any
	// configtxgen logs to stderr, which runEnv merges: the JSON is the
	// object from the first '{'.
	if i := bytes.IndexByte([]byte(out), '{'); i < 0 || json.Unmarshal([]byte(out[i:]), &group) != nil {
		return nil, fmt.Errorf("configtxgen -printOrg %s: no JSON in %q", org.MSPID, out)
	}
	values, _ := group["values"].(map[string]any)
	if values == nil {
		return nil, fmt.Errorf("configtxgen -printOrg %s: no values", org.MSPID)
	}
	if _, ok := values["AnchorPeers"]; !ok {
		values["AnchorPeers"] = map[string]any{"mod_policy": "Admins", "version": "0",
			"value": map[string]any{"anchor_peers": []any{map[string]any{"host": org.Host, "port": org.Port}}}}
	}
	return group, nil
}

// withOrg returns config with group added to the Application groups
// under mspID; an organisation already there is an error.
func withOrg(config json.RawMessage, mspID string, group map[string]any) (json.RawMessage, error) {
	var c map[string]any
	if err := json.Unmarshal(config, &c); err != nil {
		return nil, err
	}
	app, err := dig(c, "channel_group", "groups", "Application", "groups")
	if err != nil {
		return nil, err
	}
	if _, ok := app[mspID]; ok {
		return nil, fmt.Errorf("%s is already on the channel", mspID)
	}
	app[mspID] = group
	return json.Marshal(c)
}

func dig(m map[string]any, keys ...string) (map[string]any, error) {
	for _, k := range keys {
		next, ok := m[k].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("channel configuration: no %s", k)
		}
		m = next
	}
	return m, nil
}

// envelope computes the update from config to updated and wraps it in an
// unsigned CONFIG_UPDATE envelope for the channel.
func (u updater) envelope(channel string, config, updated json.RawMessage) ([]byte, error) {
	for name, c := range map[string]json.RawMessage{"config": config, "updated": updated} {
		if err := atomicfile.WriteFile(u.file(name+".json"), c, 0o600); err != nil {
			return nil, err
		}
		if _, err := run(u.ctx, u.lator, "proto_encode", "--input", u.file(name+".json"), "--type", "common.Config", "--output", u.file(name+".pb")); err != nil {
			return nil, err
		}
	}
	if _, err := run(u.ctx, u.lator, "compute_update", "--channel_id", channel, "--original", u.file("config.pb"),
		"--updated", u.file("updated.pb"), "--output", u.file("update.pb")); err != nil {
		return nil, err
	}
	if _, err := run(u.ctx, u.lator, "proto_decode", "--input", u.file("update.pb"), "--type", "common.ConfigUpdate", "--output", u.file("update.json")); err != nil {
		return nil, err
	}
	update, err := os.ReadFile(u.file("update.json"))
	if err != nil {
		return nil, err
	}
	env := map[string]any{"payload": map[string]any{
		"header": map[string]any{"channel_header": map[string]any{"channel_id": channel, "type": 2}},
		"data":   map[string]any{"config_update": json.RawMessage(update)},
	}}
	b, err := json.Marshal(env)
	if err != nil {
		return nil, err
	}
	if err := atomicfile.WriteFile(u.file("envelope.json"), b, 0o600); err != nil {
		return nil, err
	}
	if _, err := run(u.ctx, u.lator, "proto_encode", "--input", u.file("envelope.json"), "--type", "common.Envelope", "--output", u.file("envelope.pb")); err != nil {
		return nil, err
	}
	return os.ReadFile(u.file("envelope.pb"))
}

// SignUpdate adds the org's admin signature to a configuration update
// envelope, in place.
func SignUpdate(ctx context.Context, t *Topology, h Home, tools Tools, file string) error {
	o, err := t.PeerOrg(h.Org)
	if err != nil {
		return err
	}
	_, err = h.peerCLI(t, o, tools).run(ctx, "channel", "signconfigtx", "-f", file)
	return err
}

// SubmitUpdate signs a configuration update as the org's admin and sends
// it to the ordering service.
func SubmitUpdate(ctx context.Context, t *Topology, h Home, tools Tools, file string) error {
	o, err := t.PeerOrg(h.Org)
	if err != nil {
		return err
	}
	args := append([]string{"channel", "update", "-f", file, "-c", t.Channel}, h.ordererFlags(t)...)
	_, err = h.peerCLI(t, o, tools).retry(ctx, 3, args...)
	return err
}
