/*
SPDX-License-Identifier: Apache-2.0
*/

package plugindispatcher

import (
	"errors"
	"fmt"
	"testing"

	"github.com/hyperledger/fabric-protos-go/common"
	"github.com/hyperledger/fabric/core/ledger"
	"github.com/hyperledger/fabric/fabvote/decodememo"
)

// fabvoteQE is a query executor whose only used method is Done.
type fabvoteQE struct{ ledger.QueryExecutor }

func (fabvoteQE) Done() {}

type fabvoteLedger struct{}

func (fabvoteLedger) NewQueryExecutor() (ledger.QueryExecutor, error) { return fabvoteQE{}, nil }

// fabvoteLifecycle answers ValidationInfo from a table and counts the reads.
type fabvoteLifecycle struct {
	answers map[string]fabvoteAnswer
	reads   int
}

type fabvoteAnswer struct {
	plugin        string
	args          []byte
	unexpectedErr error
	validationErr error
}

func (l *fabvoteLifecycle) ValidationInfo(channelID, name string, _ ledger.SimpleQueryExecutor) (string, []byte, error, error) {
	l.reads++
	a, ok := l.answers[name]
	if !ok {
		return "", nil, nil, fmt.Errorf("chaincode %s not found", name)
	}
	return a.plugin, a.args, a.unexpectedErr, a.validationErr
}

func fabvoteBlock(n uint64) *common.Block {
	return &common.Block{Header: &common.BlockHeader{Number: n}}
}

// The dispatcher with the definitions memo answers every transaction of a
// block exactly as the stock dispatcher does, errors included, and reads each
// namespace's definition once per block.
func TestFabvoteDefinitionReadOncePerBlock(t *testing.T) {
	answers := map[string]fabvoteAnswer{
		"ballot":    {plugin: "ballotvscc", args: []byte("policy")},
		"noplugin":  {args: []byte("policy")},
		"nopolicy":  {plugin: "vscc"},
		"brokendb":  {unexpectedErr: errors.New("leveldb: closed")},
		"forbidden": {validationErr: errors.New("chaincode definition is not approved")},
	}
	names := []string{"ballot", "noplugin", "nopolicy", "brokendb", "forbidden", "undefined"}
	stockLC, memoLC := &fabvoteLifecycle{answers: answers}, &fabvoteLifecycle{answers: answers}
	stock := New("vote", nil, fabvoteLedger{}, stockLC, nil)
	stock.definitions = nil
	memo := New("vote", nil, fabvoteLedger{}, memoLC, nil)
	memo.definitions = decodememo.NewDefinitions(true)

	const blocks, txsPerBlock = 3, 4
	for n := uint64(1); n <= blocks; n++ {
		for tx := 0; tx < txsPerBlock; tx++ {
			chdr := &common.ChannelHeader{ChannelId: "vote", TxId: fmt.Sprintf("tx%d.%d", n, tx)}
			for _, ns := range names {
				wantPlugin, wantArgs, wantErr := stock.infoForValidateInBlock(fabvoteBlock(n), chdr, ns)
				plugin, args, err := memo.infoForValidateInBlock(fabvoteBlock(n), chdr, ns)
				if plugin != wantPlugin || string(args) != string(wantArgs) || fmt.Sprint(err) != fmt.Sprint(wantErr) {
					t.Fatalf("block %d, %s: memo gave (%q, %q, %v), stock (%q, %q, %v)", n, ns, plugin, args, err, wantPlugin, wantArgs, wantErr)
				}
			}
		}
	}
	perTx := len(names)
	if stockLC.reads != blocks*txsPerBlock*perTx {
		t.Fatalf("stock read %d definitions, want one per transaction and namespace (%d)", stockLC.reads, blocks*txsPerBlock*perTx)
	}
	// ballot is read once per block (plus the check mode's fresh read on
	// every hit); the five failing namespaces on every transaction.
	failing := perTx - 1
	wantReads := blocks * (1 + (txsPerBlock-1)*1 + txsPerBlock*failing)
	if memoLC.reads != wantReads {
		t.Fatalf("memo in check mode read %d definitions, want %d", memoLC.reads, wantReads)
	}
	if hits, misses := memo.definitions.Stats(); hits != uint64(blocks*(txsPerBlock-1)) || misses != uint64(blocks*(1+txsPerBlock*failing)) {
		t.Fatalf("memo stats %d hits, %d misses", hits, misses)
	}
}

// A definition changed by block n is the one block n+1's transactions get.
func TestFabvoteDefinitionChangeTakesEffectNextBlock(t *testing.T) {
	lc := &fabvoteLifecycle{answers: map[string]fabvoteAnswer{"ballot": {plugin: "ballotvscc", args: []byte("policy v1")}}}
	d := New("vote", nil, fabvoteLedger{}, lc, nil)
	d.definitions = decodememo.NewDefinitions(false)
	chdr := &common.ChannelHeader{ChannelId: "vote"}
	if _, args, _ := d.infoForValidateInBlock(fabvoteBlock(8), chdr, "ballot"); string(args) != "policy v1" {
		t.Fatalf("block 8: %q", args)
	}
	lc.answers["ballot"] = fabvoteAnswer{plugin: "ballotvscc", args: []byte("policy v2")} // committed by block 8
	if _, args, _ := d.infoForValidateInBlock(fabvoteBlock(9), chdr, "ballot"); string(args) != "policy v2" {
		t.Fatalf("block 9 after a definition change in block 8: %q, want policy v2", args)
	}
	if lc.reads != 2 {
		t.Fatalf("%d reads, want 2", lc.reads)
	}
}
