package record_test

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/internal/chain/chaintest"
	"github.com/fabvote/fabvote/internal/record"
	"github.com/fabvote/fabvote/internal/record/recordtest"
)

// signedChain builds genesis (orderer org a), then one block per step,
// each signed by its orderer naming its last_config.
type step struct {
	tx         chaintest.Tx
	signer     *recordtest.Orderer
	lastConfig uint64
}

func signedChain(a *recordtest.Orderer, steps ...step) *chaintest.Chain {
	c := &chaintest.Chain{}
	genesis := chaintest.Block(0, nil, chaintest.Tx{Valid: true, Config: true, ConfigData: a.ConfigEnvelope()})
	c.Blocks = append(c.Blocks, chaintest.Marshal(genesis))
	prev := chaintest.HeaderHash(genesis.Header)
	for i, s := range steps {
		b := chaintest.Block(uint64(i+1), prev, s.tx)
		s.signer.Sign(b, s.lastConfig)
		prev = chaintest.HeaderHash(b.Header)
		c.Blocks = append(c.Blocks, chaintest.Marshal(b))
	}
	return c
}

// blockKinds exports c and returns the BLOCK_* kinds of its verification
// (the chain holds no election, so the later steps fail anyway).
func blockKinds(t *testing.T, c *chaintest.Chain) []string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "rec")
	src := record.Source{Blocks: c, Channel: "fabvote", Chaincode: "ballot", ElectionID: "e", Manifest: []byte("{}")}
	if _, err := record.Export(context.Background(), src, dir); err != nil {
		t.Fatal(err)
	}
	out := []string{}
	for _, k := range kinds(verify(t, dir, record.Options{})) {
		if strings.HasPrefix(k, "BLOCK_") {
			out = append(out, k)
		}
	}
	return out
}

// TestConfigInForce: a configuration block replaces the orderer
// organisations for the blocks after it (RECORD.md 5.3), once signed under
// the configuration before it, and every block names it as last_config.
func TestConfigInForce(t *testing.T) {
	a, b := recordtest.NewOrderer("OrdererMSP"), recordtest.NewOrderer("OrdererMSP")
	withICA := recordtest.NewOrdererWithIntermediate("OrdererMSP")
	rotate := chaintest.Tx{ID: "cfg", Valid: true, Config: true, ConfigData: b.ConfigEnvelope()}
	tx := chaintest.Tx{ID: "tx", Valid: true, Writes: []string{"other/k=v"}}
	cases := []struct {
		name    string
		genesis *recordtest.Orderer // nil: a
		steps   []step
		kinds   []string
	}{
		{"rotated, then signed by the new CA", nil, []step{{tx, a, 0}, {rotate, a, 2}, {tx, b, 2}}, []string{}},
		{"signed by the old CA after the rotation", nil, []step{{tx, a, 0}, {rotate, a, 2}, {tx, a, 2}}, []string{"BLOCK_SIGNATURE"}},
		{"rotation signed by the new CA", nil, []step{{tx, a, 0}, {rotate, b, 2}, {tx, b, 2}}, []string{"BLOCK_SIGNATURE"}},
		{"last_config not the rotation", nil, []step{{tx, a, 0}, {rotate, a, 2}, {tx, b, 0}}, []string{"BLOCK_SIGNATURE"}},
		{"config block not naming itself", nil, []step{{tx, a, 0}, {rotate, a, 0}, {tx, b, 2}}, []string{"BLOCK_SIGNATURE"}},
		{"through an intermediate CA", withICA, []step{{tx, withICA, 0}, {tx, withICA, 0}}, []string{}},
		{"unknown MSP", nil, []step{{tx, recordtest.NewOrderer("OtherMSP"), 0}}, []string{"BLOCK_SIGNATURE"}},
		{"another channel", nil, []step{{chaintest.Tx{ID: "x", Valid: true, Channel: "other"}, a, 0}}, []string{"BLOCK_CHAIN"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := tc.genesis
			if g == nil {
				g = a
			}
			if got := blockKinds(t, signedChain(g, tc.steps...)); !reflect.DeepEqual(got, tc.kinds) {
				t.Fatalf("kinds %v, want %v", got, tc.kinds)
			}
		})
	}
}

// TestGenesisNotConfig: a genesis block with no configuration leaves
// nothing to check signatures against.
func TestGenesisNotConfig(t *testing.T) {
	o := recordtest.NewOrderer("OrdererMSP")
	tx := chaintest.Tx{ID: "tx", Valid: true, Writes: []string{"other/k=v"}}
	g := chaintest.Block(0, nil, tx)
	b := chaintest.Block(1, chaintest.HeaderHash(g.Header), tx)
	o.Sign(b, 0)
	c := &chaintest.Chain{Blocks: [][]byte{chaintest.Marshal(g), chaintest.Marshal(b)}}
	if got := blockKinds(t, c); !reflect.DeepEqual(got, []string{"BLOCK_SIGNATURE"}) {
		t.Fatalf("kinds %v, want [BLOCK_SIGNATURE]", got)
	}
}
