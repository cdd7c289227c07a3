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

// fabvoteLifecycle answers ValidationInfo from a table by channel and
// chaincode, and counts the reads.
type fabvoteLifecycle struct {
	answers map[string]fabvoteAnswer // by "channel/chaincode"
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
	a, ok := l.answers[channelID+"/"+name]
	if !ok {
		return "", nil, nil, fmt.Errorf("chaincode %s not found", name)
	}
	return a.plugin, a.args, a.unexpectedErr, a.validationErr
}

func fabvoteBlock(n uint64) *common.Block {
	return &common.Block{Header: &common.BlockHeader{Number: n}}
}

// fabvoteDispatchers returns a dispatcher of channel "vote" without the
// memo (stock's path) and one with it, each with its own lifecycle.
func fabvoteDispatchers(answers map[string]fabvoteAnswer, check bool) (stock, memo *dispatcherImpl, stockLC, memoLC *fabvoteLifecycle) {
	stockLC, memoLC = &fabvoteLifecycle{answers: answers}, &fabvoteLifecycle{answers: answers}
	stock = New("vote", nil, fabvoteLedger{}, stockLC, nil)
	stock.definitions = nil
	memo = New("vote", nil, fabvoteLedger{}, memoLC, nil)
	memo.definitions = decodememo.NewDefinitions(check)
	return stock, memo, stockLC, memoLC
}

// fabvoteSameAnswers asks both dispatchers and fails unless they agree.
func fabvoteSameAnswers(t *testing.T, stock, memo *dispatcherImpl, block *common.Block, chdr *common.ChannelHeader, ns string) {
	t.Helper()
	wantPlugin, wantArgs, wantErr := stock.infoForValidateInBlock(block, chdr, ns)
	plugin, args, err := memo.infoForValidateInBlock(block, chdr, ns)
	if plugin != wantPlugin || string(args) != string(wantArgs) || fmt.Sprint(err) != fmt.Sprint(wantErr) {
		t.Fatalf("channel %s, %s: memo gave (%q, %q, %v), stock (%q, %q, %v)", chdr.ChannelId, ns, plugin, args, err, wantPlugin, wantArgs, wantErr)
	}
}

// The dispatcher with the definitions memo answers every transaction of a
// block exactly as the stock path does, errors included, and reads each
// namespace's definition once per block (on), or once per block plus a
// fresh read on every answer from the memo (check).
func TestFabvoteDefinitionReadOncePerBlock(t *testing.T) {
	answers := map[string]fabvoteAnswer{
		"vote/ballot":    {plugin: "ballotvscc", args: []byte("policy")},
		"vote/noplugin":  {args: []byte("policy")},
		"vote/nopolicy":  {plugin: "vscc"},
		"vote/brokendb":  {unexpectedErr: errors.New("leveldb: closed")},
		"vote/forbidden": {validationErr: errors.New("chaincode definition is not approved")},
	}
	names := []string{"ballot", "noplugin", "nopolicy", "brokendb", "forbidden", "undefined"}
	const blocks, txsPerBlock = 3, 4
	failing := len(names) - 1 // read on every transaction: failures are never remembered
	for _, check := range []bool{false, true} {
		t.Run(fmt.Sprintf("check=%v", check), func(t *testing.T) {
			stock, memo, stockLC, memoLC := fabvoteDispatchers(answers, check)
			for n := uint64(1); n <= blocks; n++ {
				for tx := 0; tx < txsPerBlock; tx++ {
					chdr := &common.ChannelHeader{ChannelId: "vote", TxId: fmt.Sprintf("tx%d.%d", n, tx)}
					for _, ns := range names {
						fabvoteSameAnswers(t, stock, memo, fabvoteBlock(n), chdr, ns)
					}
				}
			}
			if stockLC.reads != blocks*txsPerBlock*len(names) {
				t.Fatalf("stock read %d definitions, want one per transaction and namespace (%d)", stockLC.reads, blocks*txsPerBlock*len(names))
			}
			ballotReads := blocks // on: the first transaction of each block
			if check {
				ballotReads = blocks * txsPerBlock // and a fresh read for every hit
			}
			if want := ballotReads + blocks*txsPerBlock*failing; memoLC.reads != want {
				t.Fatalf("memo read %d definitions, want %d", memoLC.reads, want)
			}
			hits, misses := memo.definitions.Stats()
			if hits != uint64(blocks*(txsPerBlock-1)) || misses != uint64(blocks*(1+txsPerBlock*failing)) {
				t.Fatalf("memo stats %d hits, %d misses", hits, misses)
			}
		})
	}
}

// A transaction whose header names another channel, and a block without a
// header, are read as stock reads them, every time, and leave the memo alone.
func TestFabvoteDefinitionBypassedForOtherChannelsAndNoHeader(t *testing.T) {
	answers := map[string]fabvoteAnswer{
		"vote/ballot":  {plugin: "ballotvscc", args: []byte("vote's policy")},
		"other/ballot": {plugin: "ballotvscc", args: []byte("other's policy")},
	}
	stock, memo, _, memoLC := fabvoteDispatchers(answers, true)
	own := &common.ChannelHeader{ChannelId: "vote"}
	other := &common.ChannelHeader{ChannelId: "other"}
	for i := 0; i < 3; i++ {
		fabvoteSameAnswers(t, stock, memo, fabvoteBlock(5), other, "ballot")
		fabvoteSameAnswers(t, stock, memo, fabvoteBlock(5), own, "ballot")
		fabvoteSameAnswers(t, stock, memo, nil, own, "ballot")
		fabvoteSameAnswers(t, stock, memo, &common.Block{}, own, "ballot")
	}
	// Per round: other channel 1, no block 1, no header 1; own channel 1
	// (a miss, then a fresh read per hit in check mode).
	if memoLC.reads != 3*4 {
		t.Fatalf("%d reads, want 12", memoLC.reads)
	}
	if hits, misses := memo.definitions.Stats(); hits != 2 || misses != 1 {
		t.Fatalf("memo stats %d hits, %d misses; want 2, 1: only the own channel's transactions in a block with a header use it", hits, misses)
	}
}

// A definition changed by block n is the one block n+1's transactions get.
func TestFabvoteDefinitionChangeTakesEffectNextBlock(t *testing.T) {
	lc := &fabvoteLifecycle{answers: map[string]fabvoteAnswer{"vote/ballot": {plugin: "ballotvscc", args: []byte("policy v1")}}}
	d := New("vote", nil, fabvoteLedger{}, lc, nil)
	d.definitions = decodememo.NewDefinitions(false)
	chdr := &common.ChannelHeader{ChannelId: "vote"}
	if _, args, _ := d.infoForValidateInBlock(fabvoteBlock(8), chdr, "ballot"); string(args) != "policy v1" {
		t.Fatalf("block 8: %q", args)
	}
	lc.answers["vote/ballot"] = fabvoteAnswer{plugin: "ballotvscc", args: []byte("policy v2")} // committed by block 8
	if _, args, _ := d.infoForValidateInBlock(fabvoteBlock(8), chdr, "ballot"); string(args) != "policy v1" {
		t.Fatalf("block 8 again: %q, want the block's first read, policy v1", args)
	}
	if _, args, _ := d.infoForValidateInBlock(fabvoteBlock(9), chdr, "ballot"); string(args) != "policy v2" {
		t.Fatalf("block 9 after a definition change in block 8: %q, want policy v2", args)
	}
	if lc.reads != 2 {
		t.Fatalf("%d reads, want 2", lc.reads)
	}
}
