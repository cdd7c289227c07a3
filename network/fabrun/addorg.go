package fabrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"

	"github.com/fabvote/fabvote/internal/atomicfile"
	"github.com/fabvote/fabvote/network/fabnet"
)

// AddOrgUpdate is run by a member of the channel for an organisation of
// the topology that is not on the channel yet, whose bundle the member
// received. It writes to out the channel configuration update that adds
// the organisation (its MSP, policies and anchor peer), as an unsigned
// envelope: the channel's Admins policy (MAJORITY) decides how many
// member organisations sign it (SignUpdate) before one submits it
// (SubmitUpdate).
func AddOrgUpdate(ctx context.Context, t *fabnet.Topology, h Home, tools Tools, newOrg, out string) error {
	u, config, updated, err := addOrgConfigs(ctx, t, h, tools, newOrg)
	if err != nil {
		return err
	}
	env, err := u.envelope(t.Channel, config, updated)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(out, env, 0o644)
}

// addOrgConfigs fetches the channel's configuration as this member sees it
// and returns it with the configuration that adds newOrg from this
// member's own copy of newOrg's bundle.
func addOrgConfigs(ctx context.Context, t *fabnet.Topology, h Home, tools Tools, newOrg string) (u updater, config, updated json.RawMessage, err error) {
	o, err := t.PeerOrg(h.Org)
	if err != nil {
		return u, nil, nil, err
	}
	n, err := t.PeerOrg(newOrg)
	if err != nil {
		return u, nil, nil, err
	}
	msp := filepath.Join(h.Received(n.Name), "msp")
	if err := h.need(msp, newOrg+"'s bundle"); err != nil {
		return u, nil, nil, err
	}
	work, err := os.MkdirTemp(h.path(), "update-"+n.Name+"-")
	if err != nil {
		return u, nil, nil, err
	}
	u = updater{ctx: ctx, lator: filepath.Join(tools.Fabric, "configtxlator"), work: work}
	block := filepath.Join(work, "config_block.pb")
	args := append([]string{"channel", "fetch", "config", block, "-c", t.Channel}, h.ordererFlags(t)...)
	if _, err := h.peerCLI(t, o, tools).retry(ctx, 3, args...); err != nil {
		return u, nil, nil, fmt.Errorf("fetching the channel's configuration: %w", err)
	}
	if config, err = u.channelConfig(block); err != nil {
		return u, nil, nil, err
	}
	group, err := u.orgGroup(tools, n, msp)
	if err != nil {
		return u, nil, nil, err
	}
	updated, err = withOrg(config, n.MSPID, group)
	return u, config, updated, err
}

// checkUpdate refuses an update envelope that is not exactly the update
// this member computes itself for adding newOrg: a member signs only the
// change it has checked, not whatever another member hands it.
func checkUpdate(ctx context.Context, t *fabnet.Topology, h Home, tools Tools, newOrg, file string) error {
	u, config, updated, err := addOrgConfigs(ctx, t, h, tools, newOrg)
	if err != nil {
		return err
	}
	want, err := u.computeUpdate(t.Channel, config, updated)
	if err != nil {
		return err
	}
	if _, err := run(ctx, u.lator, "proto_decode", "--input", file, "--type", "common.Envelope", "--output", u.file("given.json")); err != nil {
		return fmt.Errorf("%s: not a configuration update envelope: %w", file, err)
	}
	var given struct {
		Payload struct {
			Data struct {
				ConfigUpdate json.RawMessage `json:"config_update"`
			} `json:"data"`
		} `json:"payload"`
	}
	b, err := os.ReadFile(u.file("given.json"))
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, &given); err != nil {
		return err
	}
	var got, exp any
	if json.Unmarshal(given.Payload.Data.ConfigUpdate, &got) != nil || json.Unmarshal(want, &exp) != nil || !reflect.DeepEqual(got, exp) {
		return fmt.Errorf("%s is not the update that adds %s as %s computes it from the channel and %s's bundle: not signed", file, newOrg, h.Org, newOrg)
	}
	return nil
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
// -printOrg with its MSP from mspDir, with its anchor peer.
func (u updater) orgGroup(tools Tools, org *fabnet.PeerOrg, mspDir string) (map[string]any, error) {
	text, err := fabnet.OrgConfigtx(org, mspDir)
	if err != nil {
		return nil, err
	}
	if err := atomicfile.WriteFile(u.file("configtx.yaml"), text, 0o600); err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(u.ctx, filepath.Join(tools.Fabric, "configtxgen"), "-configPath", u.work, "-printOrg", org.MSPID)
	cmd.Env = nodeEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output() // the JSON, without the log lines on stderr
	if err != nil {
		return nil, fmt.Errorf("configtxgen -printOrg %s: %v\n%s", org.MSPID, err, stderr.String())
	}
	var group map[string]any
	if err := json.Unmarshal(out, &group); err != nil {
		return nil, fmt.Errorf("configtxgen -printOrg %s: %w", org.MSPID, err)
	}
	values, _ := group["values"].(map[string]any)
	if values == nil {
		return nil, fmt.Errorf("configtxgen -printOrg %s: no values", org.MSPID)
	}
	if _, ok := values["AnchorPeers"]; !ok {
		values["AnchorPeers"] = map[string]any{"mod_policy": "Admins", "version": "0",
			"value": map[string]any{"anchor_peers": []any{map[string]any{"host": org.Host, "port": org.Peer.Port}}}}
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

// computeUpdate returns the ConfigUpdate from config to updated as
// configtxlator's JSON.
func (u updater) computeUpdate(channel string, config, updated json.RawMessage) (json.RawMessage, error) {
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
	return os.ReadFile(u.file("update.json"))
}

// envelope wraps the update from config to updated in an unsigned
// CONFIG_UPDATE envelope for the channel.
func (u updater) envelope(channel string, config, updated json.RawMessage) ([]byte, error) {
	update, err := u.computeUpdate(channel, config, updated)
	if err != nil {
		return nil, err
	}
	env := map[string]any{"payload": map[string]any{
		"header": map[string]any{"channel_header": map[string]any{"channel_id": channel, "type": 2}},
		"data":   map[string]any{"config_update": update},
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

// SignUpdate adds the org's admin signature to the configuration update
// envelope that adds newOrg, in place, once checkUpdate has found it to
// be exactly that change.
func SignUpdate(ctx context.Context, t *fabnet.Topology, h Home, tools Tools, newOrg, file string) error {
	o, err := t.PeerOrg(h.Org)
	if err != nil {
		return err
	}
	if err := checkUpdate(ctx, t, h, tools, newOrg, file); err != nil {
		return err
	}
	_, err = h.peerCLI(t, o, tools).run(ctx, "channel", "signconfigtx", "-f", file)
	return err
}

// SubmitUpdate checks the update as SignUpdate does, signs it as the org's
// admin and sends it to the ordering service.
func SubmitUpdate(ctx context.Context, t *fabnet.Topology, h Home, tools Tools, newOrg, file string) error {
	o, err := t.PeerOrg(h.Org)
	if err != nil {
		return err
	}
	if err := checkUpdate(ctx, t, h, tools, newOrg, file); err != nil {
		return err
	}
	args := append([]string{"channel", "update", "-f", file, "-c", t.Channel}, h.ordererFlags(t)...)
	_, err = h.peerCLI(t, o, tools).retry(ctx, 3, args...)
	return err
}
