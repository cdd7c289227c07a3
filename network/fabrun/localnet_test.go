package fabrun

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fabvote/fabvote/network/fabnet"
)

// TestLocalHome: a home for every organisation finds each one's files in
// the cryptogen layout, names each org's processes apart, and needs no
// bundle for the genesis block.
func TestLocalHome(t *testing.T) {
	top, err := fabnet.Profile("three-orgs", 7050, nil, []fabnet.Chaincode{{Name: "ballot", Version: "1.0", Ballot: true}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	h, err := LocalHome(dir, top)
	if err != nil {
		t.Fatal(err)
	}
	crypto := filepath.Join(dir, "crypto")
	party1 := h.as("party1")
	o, _ := top.PeerOrg("party1")
	for _, c := range []struct{ got, want string }{
		{h.Crypto(), filepath.Join(crypto, "ordererOrganizations", "orderer.fabvote.local")},
		{party1.Crypto(), filepath.Join(crypto, "peerOrganizations", "party1.fabvote.local")},
		{party1.user("Admin", o.Domain), filepath.Join(crypto, "peerOrganizations", "party1.fabvote.local", "users", "Admin@party1.fabvote.local")},
		{party1.orgTLSCA("party2", "party2.fabvote.local"), filepath.Join(crypto, "peerOrganizations", "party2.fabvote.local", "tlsca", "tlsca.party2.fabvote.local-cert.pem")},
		{party1.orgTLSCA("orderer", "orderer.fabvote.local"), filepath.Join(crypto, "ordererOrganizations", "orderer.fabvote.local", "tlsca", "tlsca.orderer.fabvote.local-cert.pem")},
		{party1.genesisBlock(top), filepath.Join(dir, "configtx", "fabvote.block")},
		{party1.peerNode(o), "peer0.party1"},
		{party1.serviceNode(o, top.Chaincodes[0]), "cc.ballot.peer0.party1"},
	} {
		if c.got != c.want {
			t.Errorf("got %s, want %s", c.got, c.want)
		}
	}
	// An organisation's own home: its files under crypto/, the others' from their bundles.
	own, err := NewHome(filepath.Join(dir, "party1"), "party1")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ got, want string }{
		{own.Crypto(), filepath.Join(own.Dir, "crypto")},
		{own.orgTLSCA("party2", "party2.fabvote.local"), filepath.Join(own.Dir, "received", "party2", "msp", "tlscacerts", "tlsca.party2.fabvote.local-cert.pem")},
		{own.genesisBlock(top), filepath.Join(own.Dir, "received", "orderer", "fabvote.block")},
		{own.peerNode(o), "peer0"},
		{own.serviceNode(o, top.Chaincodes[0]), "cc.ballot"},
	} {
		if c.got != c.want {
			t.Errorf("own home: got %s, want %s", c.got, c.want)
		}
	}
}

// captureRuntime records the nodes it is asked to start.
type captureRuntime struct{ procs []fabnet.Proc }

func (c *captureRuntime) Start(_ context.Context, _ Home, p fabnet.Proc) error {
	c.procs = append(c.procs, p)
	return nil
}

// TestBallotServiceFollowsTheDefinition: the ballot service leaves the
// proof check to validation only when its definition names the plugin,
// whatever the caller's environment says; node settings come after
// Env, which cannot override them.
func TestBallotServiceFollowsTheDefinition(t *testing.T) {
	t.Setenv("FABVOTE_VALIDATION_PLUGIN", "ballotvscc")
	top, err := fabnet.Profile("solo-org", 7050, nil, []fabnet.Chaincode{{Name: "ballot", Version: "1.0", Ballot: true}})
	if err != nil {
		t.Fatal(err)
	}
	h, err := LocalHome(t.TempDir(), top)
	if err != nil {
		t.Fatal(err)
	}
	o := &top.Orgs[0]
	for _, plugin := range []string{"", "ballotvscc"} {
		cc := top.Chaincodes[0]
		cc.ValidationPlugin = plugin
		rt := &captureRuntime{}
		opts := NodeOptions{Runtime: rt, Env: []string{"CHAINCODE_ID=forged", "GOGC=50"}}
		if err := h.as(o.Name).startService(context.Background(), opts, o, cc, o.Peer.Services[0], "/bin/true", "ballot_1.0:abc"); err != nil {
			t.Fatal(err)
		}
		env := envMap(rt.procs[0].Env)
		want := plugin
		if want == "" {
			want = "off"
		}
		if env["FABVOTE_VALIDATION_PLUGIN"] != want || env["CHAINCODE_ID"] != "ballot_1.0:abc" || env["GOGC"] != "50" {
			t.Errorf("plugin %q: FABVOTE_VALIDATION_PLUGIN=%q CHAINCODE_ID=%q GOGC=%q", plugin, env["FABVOTE_VALIDATION_PLUGIN"], env["CHAINCODE_ID"], env["GOGC"])
		}
	}
}

// envMap is an environment as exec runs it: the last setting of a key wins.
func envMap(env []string) map[string]string {
	m := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return m
}

// TestLocalWait: an unset Wait bounds the waits at 90 s rather than
// failing them at once.
func TestLocalWait(t *testing.T) {
	for _, c := range []struct{ set, want time.Duration }{{0, 90 * time.Second}, {5 * time.Second, 5 * time.Second}} {
		if got := (&Local{Wait: c.set}).wait(); got != c.want {
			t.Errorf("Wait %v: %v, want %v", c.set, got, c.want)
		}
	}
}
