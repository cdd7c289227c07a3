package chain_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/internal/chain"
	"github.com/fabvote/fabvote/internal/chain/chaintest"
	"github.com/hyperledger/fabric-protos-go-apiv2/common"
	"github.com/hyperledger/fabric-protos-go-apiv2/peer"
	"google.golang.org/protobuf/proto"
)

type tx = chaintest.Tx

func TestParseBlock(t *testing.T) {
	prev := []byte("previous")
	b := chaintest.Block(9, prev,
		tx{ID: "cfg", Valid: true, Config: true},
		tx{ID: "t1", Valid: true, Writes: []string{"ballot/k1=v1", "lscc/x=y"}},
		tx{ID: "t2", Valid: false, Writes: []string{"ballot/k2=v2"}},
		tx{ID: "t3", Valid: true, Writes: []string{"ballot/k3"}},
	)
	b.Metadata.Metadata[common.BlockMetadataIndex_COMMIT_HASH] = chaintest.Marshal(&common.Metadata{Value: []byte("state hash")})
	got, err := chain.ParseBlock(chaintest.Marshal(b))
	if err != nil {
		t.Fatal(err)
	}
	want := &chain.Block{Number: 9, Hash: chaintest.HeaderHash(b.Header), PreviousHash: prev, CommitHash: []byte("state hash"), Txs: []chain.Tx{
		{ID: "cfg", Valid: true},
		{ID: "t1", Valid: true, Writes: []chain.Write{{Namespace: "ballot", Key: "k1", Value: []byte("v1")}, {Namespace: "lscc", Key: "x", Value: []byte("y")}}},
		{ID: "t2", Valid: false, Code: peer.TxValidationCode_MVCC_READ_CONFLICT, Writes: []chain.Write{{Namespace: "ballot", Key: "k2", Value: []byte("v2")}}},
		{ID: "t3", Valid: true, Writes: []chain.Write{{Namespace: "ballot", Key: "k3", IsDelete: true}}},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ParseBlock:\n got %+v\nwant %+v", got, want)
	}
}

func TestParseBlockRejects(t *testing.T) {
	good := chaintest.Block(1, nil, tx{ID: "t1", Valid: true, Writes: []string{"ballot/k=v"}})
	// with re-encodes a modified copy; rehash keeps the data hash right so
	// that the check under test is the one that fails.
	with := func(rehash bool, f func(*common.Block)) []byte {
		c := proto.Clone(good).(*common.Block)
		f(c)
		if rehash {
			c.Header.DataHash = chaintest.DataHash(c.Data)
		}
		return chaintest.Marshal(c)
	}
	envelopeWith := func(typ common.HeaderType, data []byte) []byte {
		ch := &common.ChannelHeader{Type: int32(typ), TxId: "t1"}
		return chaintest.Marshal(&common.Envelope{Payload: chaintest.Marshal(&common.Payload{Header: &common.Header{ChannelHeader: chaintest.Marshal(ch)}, Data: data})})
	}
	actionWith := func(ap *peer.ChaincodeActionPayload) []byte {
		return chaintest.Marshal(&peer.Transaction{Actions: []*peer.TransactionAction{{Payload: chaintest.Marshal(ap)}}})
	}
	for _, tc := range []struct {
		name, want string
		raw        []byte
	}{
		{"not a block", "does not decode", []byte{0xff, 0xff, 0xff}},
		{"no header", "no header", with(false, func(c *common.Block) { c.Header = nil })},
		{"data hash does not cover the transactions", "data hash does not match", with(false, func(c *common.Block) {
			c.Data.Data = append(c.Data.Data, chaintest.Envelope(tx{ID: "smuggled", Valid: true, Writes: []string{"ballot/x=y"}}))
			c.Metadata.Metadata[common.BlockMetadataIndex_TRANSACTIONS_FILTER] = []byte{0, 0}
		})},
		{"filter shorter than the transactions", "transactions filter has 0 entries for 1", with(false, func(c *common.Block) {
			c.Metadata.Metadata[common.BlockMetadataIndex_TRANSACTIONS_FILTER] = nil
		})},
		{"no metadata", "transactions filter", with(false, func(c *common.Block) { c.Metadata = nil })},
		{"envelope garbage", "transaction 0: envelope", with(true, func(c *common.Block) { c.Data.Data[0] = []byte{0xff, 0xff} })},
		{"payload without header", "payload has no header", with(true, func(c *common.Block) {
			c.Data.Data[0] = chaintest.Marshal(&common.Envelope{Payload: chaintest.Marshal(&common.Payload{})})
		})},
		{"read-write set garbage", "read-write set", with(true, func(c *common.Block) {
			action := &peer.ChaincodeAction{Results: []byte{0xff, 0xff}}
			prp := &peer.ProposalResponsePayload{Extension: chaintest.Marshal(action)}
			c.Data.Data[0] = envelopeWith(common.HeaderType_ENDORSER_TRANSACTION,
				actionWith(&peer.ChaincodeActionPayload{Action: &peer.ChaincodeEndorsedAction{ProposalResponsePayload: chaintest.Marshal(prp)}}))
		})},
		{"action without endorsed action", "no endorsed action", with(true, func(c *common.Block) {
			c.Data.Data[0] = envelopeWith(common.HeaderType_ENDORSER_TRANSACTION, actionWith(&peer.ChaincodeActionPayload{}))
		})},
		{"commit hash garbage", "commit hash metadata does not decode", with(false, func(c *common.Block) {
			c.Metadata.Metadata[common.BlockMetadataIndex_COMMIT_HASH] = []byte{0xff, 0xff}
		})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := chain.ParseBlock(tc.raw)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("ParseBlock: error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// An endorser transaction whose data does not decode is an error when the
// block marks it valid, and an invalid transaction without writes
// otherwise: anyone who may write to the channel can have one ordered, and
// it must not make the chain unreadable.
func TestParseBlockUndecodableInvalidTx(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"transaction garbage", []byte{0xff, 0xff}},
		{"read-write set garbage", chaintest.Marshal(&peer.Transaction{Actions: []*peer.TransactionAction{{Payload: chaintest.Marshal(
			&peer.ChaincodeActionPayload{Action: &peer.ChaincodeEndorsedAction{ProposalResponsePayload: chaintest.Marshal(
				&peer.ProposalResponsePayload{Extension: chaintest.Marshal(&peer.ChaincodeAction{Results: []byte{0xff, 0xff}})})}})}}})},
		{"action without endorsed action", chaintest.Marshal(&peer.Transaction{Actions: []*peer.TransactionAction{{Payload: chaintest.Marshal(&peer.ChaincodeActionPayload{})}}})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := chaintest.Block(3, nil, tx{ID: "t1", Valid: true, Writes: []string{"ballot/k=v"}}, tx{ID: "junk"})
			ch := &common.ChannelHeader{Type: int32(common.HeaderType_ENDORSER_TRANSACTION), TxId: "junk", ChannelId: "fabvote"}
			b.Data.Data[1] = chaintest.Marshal(&common.Envelope{Payload: chaintest.Marshal(&common.Payload{
				Header: &common.Header{ChannelHeader: chaintest.Marshal(ch)}, Data: tc.data})})
			b.Header.DataHash = chaintest.DataHash(b.Data)
			got, err := chain.ParseBlock(chaintest.Marshal(b))
			if err != nil {
				t.Fatalf("ParseBlock of a block with an undecodable invalid transaction: %v", err)
			}
			junk := got.Txs[1]
			if junk.Valid || junk.ID != "junk" || junk.Writes != nil || junk.Undecodable == "" {
				t.Fatalf("undecodable invalid transaction parsed as %+v", junk)
			}
			if len(got.Txs[0].Writes) != 1 || got.Txs[0].Undecodable != "" {
				t.Fatalf("the valid transaction beside it parsed as %+v", got.Txs[0])
			}
			b.Metadata.Metadata[common.BlockMetadataIndex_TRANSACTIONS_FILTER][1] = byte(peer.TxValidationCode_VALID)
			if _, err := chain.ParseBlock(chaintest.Marshal(b)); err == nil || !strings.Contains(err.Error(), "transaction 1") {
				t.Fatalf("ParseBlock with the same transaction marked VALID: error %v, want one naming transaction 1", err)
			}
		})
	}
}

// TestSameCommit compares two peers' copies of a block: equal copies pass,
// and each field a peer sets itself (or a different block) is named.
func TestSameCommit(t *testing.T) {
	txs := []tx{{ID: "t1", Valid: true, Writes: []string{"ballot/k=v"}}, {ID: "t2", Valid: true, Writes: []string{"ballot/j=w"}}}
	// copyWith is block 4 as a peer committed it, changed by f.
	copyWith := func(f func(*common.Block)) *chain.Block {
		b := chaintest.Block(4, []byte("prev"), txs...)
		b.Metadata.Metadata[common.BlockMetadataIndex_COMMIT_HASH] = chaintest.Marshal(&common.Metadata{Value: []byte("h4")})
		if f != nil {
			f(b)
		}
		pb, err := chain.ParseBlock(chaintest.Marshal(b))
		if err != nil {
			t.Fatal(err)
		}
		return pb
	}
	ours := copyWith(nil)
	for _, tc := range []struct {
		name, want string // want "" means the copies agree
		theirs     *chain.Block
	}{
		{"the same copy", "", copyWith(nil)},
		{"another validation code", "transaction 1 (t2): validated VALID and ENDORSEMENT_POLICY_FAILURE", copyWith(func(b *common.Block) {
			b.Metadata.Metadata[common.BlockMetadataIndex_TRANSACTIONS_FILTER][1] = byte(peer.TxValidationCode_ENDORSEMENT_POLICY_FAILURE)
		})},
		{"another commit hash", "commit hashes (state updates) differ", copyWith(func(b *common.Block) {
			b.Metadata.Metadata[common.BlockMetadataIndex_COMMIT_HASH] = chaintest.Marshal(&common.Metadata{Value: []byte("other")})
		})},
		{"no commit hash", "commit hashes", copyWith(func(b *common.Block) { b.Metadata.Metadata[common.BlockMetadataIndex_COMMIT_HASH] = nil })},
		{"another block at that height", "header hashes differ", copyWith(func(b *common.Block) { b.Header.PreviousHash = []byte("fork") })},
		{"another height", "block 4 compared with block 5", copyWith(func(b *common.Block) { b.Header.Number = 5 })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := chain.SameCommit(ours, tc.theirs)
			if (tc.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("SameCommit: %v, want %q", err, tc.want)
			}
		})
	}
}

const (
	result   = "\x00result\x00e1\x00"
	manifest = "\x00manifest\x00e1\x00"
	prefix   = "\x00ballot\x00e1\x00"
)

func ballot(voter string) string { return "ballot/" + prefix + voter + "\x00=rec-" + voter }

func writesSince(c *chaintest.Chain) (*chain.Writes, error) {
	return chain.WritesSince(context.Background(), c, "ballot", result, prefix, manifest)
}

// describe renders located writes as "tx@block.index:voter".
func describe(ls []chain.Located) []string {
	var out []string
	for _, w := range ls {
		out = append(out, fmt.Sprintf("%s@%d.%d:%s", w.TxID, w.Block, w.Index, strings.TrimSuffix(strings.TrimPrefix(w.Key, prefix), "\x00")))
	}
	return out
}

func TestWritesSince(t *testing.T) {
	c := chaintest.NewChain(
		[]tx{{ID: "genesis", Valid: true, Config: true}},
		[]tx{{ID: "open", Valid: true, Writes: []string{"ballot/" + manifest + "=M"}}, {ID: "b1", Valid: true, Writes: []string{ballot("v1")}}},
		[]tx{
			{ID: "b2", Valid: true, Writes: []string{ballot("v2")}},                              // before the result in its block
			{ID: "res", Valid: true, Writes: []string{"ballot/" + result + "=R", ballot("own")}}, // the marker
			{ID: "b3", Valid: true, Writes: []string{ballot("v3")}},                              // after, same block
			{ID: "b3x", Valid: false, Writes: []string{ballot("v3x")}},                           // invalid: never reached the state
		},
		[]tx{
			{ID: "bad-result", Valid: false, Writes: []string{"ballot/" + result + "=forged"}}, // invalid: not the marker
			{ID: "other-ns", Valid: true, Writes: []string{"other/" + prefix + "v4\x00=x"}},
			{ID: "other-election", Valid: true, Writes: []string{"ballot/\x00ballot\x00e10\x00v5\x00=x"}},
			{ID: "b6", Valid: true, Writes: []string{ballot("v6"), ballot("v7")}},
		},
		[]tx{{ID: "cfg", Valid: true, Config: true}},
	)
	ws, err := writesSince(c)
	if err != nil {
		t.Fatal(err)
	}
	marker, before, after := ws.Marker, ws.Before, ws.After
	if got, want := describe(before), []string{"b1@1.1:v1", "b2@2.0:v2", "res@2.1:own"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("writes from the manifest to the result: got %q, want %q", got, want)
	}
	if marker.TxID != "res" || marker.Block != 2 || marker.Index != 1 || string(marker.Value) != "R" {
		t.Fatalf("marker = %+v, want tx res at block 2, index 1, value R", marker)
	}
	if got, want := describe(after), []string{"b3@2.2:v3", "b6@3.3:v6", "b6@3.3:v7"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("writes after the result: got %q, want %q", got, want)
	}
	if ws.Floor == nil || ws.Floor.TxID != "open" || len(ws.FloorRewrites) != 0 {
		t.Errorf("manifest writes: first %+v, later %d; want the opening only", ws.Floor, len(ws.FloorRewrites))
	}
	if c.Reads != 5 {
		t.Errorf("read %d blocks, want 5 (the tip back to the genesis block)", c.Reads)
	}
}

// located renders writes of the manifest or the result key as
// "tx@block.index", with " (delete)" for a deletion.
func located(ls []chain.Located) []string {
	var out []string
	for _, l := range ls {
		d := fmt.Sprintf("%s@%d.%d", l.TxID, l.Block, l.Index)
		if l.IsDelete {
			d += " (delete)"
		}
		out = append(out, d)
	}
	return out
}

// The marker is the first valid write of the key since the opening: the
// contract writes a result once, so every later write (which a colluding
// endorser set could commit) is returned for the caller to report, and
// the ballots are ordered against the first.
func TestWritesSinceResultRewritten(t *testing.T) {
	open := tx{ID: "open", Valid: true, Writes: []string{"ballot/" + manifest + "=M"}}
	res := tx{ID: "res", Valid: true, Writes: []string{"ballot/" + result + "=R"}}
	del := tx{ID: "del", Valid: true, Writes: []string{"ballot/" + result}}
	for _, tc := range []struct {
		name                string
		blocks              [][]tx
		marker              string
		before, after, more []string // more: the result writes after the marker
	}{
		{"written again after a ballot", [][]tx{
			{{ID: "r1", Valid: true, Writes: []string{"ballot/" + result + "=R1"}}},
			{{ID: "b1", Valid: true, Writes: []string{ballot("v1")}}},
			// A key written twice in one transaction is returned twice:
			// the caller decides that it is tampering.
			{{ID: "r2", Valid: true, Writes: []string{"ballot/" + result + "=R2"}}, {ID: "b2", Valid: true, Writes: []string{ballot("v2"), ballot("v2")}}},
		}, "r1@0.0", nil, []string{"b1@1.0:v1", "b2@2.1:v2", "b2@2.1:v2"}, []string{"r2@2.0"}},
		{"rewritten in the transaction of a later ballot", [][]tx{
			{open, {ID: "b1", Valid: true, Writes: []string{ballot("v1")}}},
			{res},
			{{ID: "again", Valid: true, Writes: []string{ballot("v2"), "ballot/" + result + "=R2"}}},
		}, "res@1.0", []string{"b1@0.1:v1"}, []string{"again@2.0:v2"}, []string{"again@2.0"}},
		{"deleted after the result", [][]tx{
			{open}, {res}, {{ID: "b1", Valid: true, Writes: []string{ballot("v1")}}}, {del},
		}, "res@1.0", nil, []string{"b1@2.0:v1"}, []string{"del@3.0 (delete)"}},
		{"deleted before its first write", [][]tx{
			{open}, {del}, {{ID: "b1", Valid: true, Writes: []string{ballot("v1")}}}, {res},
		}, "del@1.0 (delete)", nil, []string{"b1@2.0:v1"}, []string{"res@3.0"}},
		{"written twice in one transaction", [][]tx{
			{open}, {{ID: "res", Valid: true, Writes: []string{"ballot/" + result + "=R", ballot("own"), "ballot/" + result + "=R2"}}},
		}, "res@1.0", []string{"res@1.0:own"}, nil, []string{"res@1.0"}},
		{"a result before the opening is not the election's", [][]tx{
			{{ID: "old", Valid: true, Writes: []string{"ballot/" + result + "=R0"}}},
			{open}, {{ID: "b1", Valid: true, Writes: []string{ballot("v1")}}}, {res},
		}, "res@3.0", []string{"b1@2.0:v1"}, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := chaintest.NewChain(tc.blocks...)
			ws, err := writesSince(c)
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range []struct {
				what      string
				got, want []string
			}{
				{"marker", located([]chain.Located{ws.Marker}), []string{tc.marker}},
				{"before the result", describe(ws.Before), tc.before},
				{"after the result", describe(ws.After), tc.after},
				{"result writes after the marker", located(ws.MarkerRewrites), tc.more},
			} {
				if !reflect.DeepEqual(x.got, x.want) {
					t.Errorf("%s: got %q, want %q", x.what, x.got, x.want)
				}
			}
		})
	}
}

// The floor is the manifest's first write, the election's opening. Every
// later write of the manifest key is returned for the caller to report,
// and the writes before it stay in view: colluding endorsers who delete a
// ballot, write the manifest again and re-write the survivors must not be
// able to move the floor past the deletion.
func TestWritesSinceManifestRewritten(t *testing.T) {
	open := tx{ID: "open", Valid: true, Writes: []string{"ballot/" + manifest + "=M"}}
	res := tx{ID: "res", Valid: true, Writes: []string{"ballot/" + result + "=R"}}
	for _, tc := range []struct {
		name                string
		blocks              [][]tx
		before, after, more []string // more: the manifest writes after the opening
	}{
		{"deletion hidden behind a manifest rewrite", [][]tx{
			{{ID: "genesis", Valid: true, Config: true}},
			{open},
			{{ID: "cA", Valid: true, Writes: []string{ballot("a")}}, {ID: "cB", Valid: true, Writes: []string{ballot("b")}}},
			{{ID: "tx1", Valid: true, Writes: []string{"ballot/" + prefix + "a\x00"}}},
			{{ID: "tx2", Valid: true, Writes: []string{"ballot/" + manifest + "=M"}}},
			{{ID: "tx3", Valid: true, Writes: []string{ballot("b")}}},
			{res},
		}, []string{"cA@2.0:a", "cB@2.1:b", "tx1@3.0:a", "tx3@5.0:b"}, nil, []string{"tx2@4.0"}},
		{"manifest rewritten after the result", [][]tx{
			{open, {ID: "b1", Valid: true, Writes: []string{ballot("v1")}}},
			{res},
			{{ID: "again", Valid: true, Writes: []string{"ballot/" + manifest + "=M2"}}, {ID: "b2", Valid: true, Writes: []string{ballot("v2")}}},
		}, []string{"b1@0.1:v1"}, []string{"b2@2.1:v2"}, []string{"again@2.0"}},
		{"manifest key deleted", [][]tx{
			{open},
			{{ID: "b1", Valid: true, Writes: []string{ballot("v1")}}},
			{{ID: "del", Valid: true, Writes: []string{"ballot/" + manifest}}, res},
		}, []string{"b1@1.0:v1"}, nil, []string{"del@2.0 (delete)"}},
		{"ballot writes before the opening are not the election's", [][]tx{
			{{ID: "pre", Valid: true, Writes: []string{ballot("v0")}}},
			{{ID: "open", Valid: true, Writes: []string{"ballot/" + manifest + "=M", ballot("v1")}}},
			{res},
		}, []string{"open@1.0:v1"}, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := chaintest.NewChain(tc.blocks...)
			ws, err := writesSince(c)
			if err != nil {
				t.Fatal(err)
			}
			if ws.Marker.TxID != "res" {
				t.Errorf("marker %+v, want res", ws.Marker)
			}
			if ws.Floor == nil || ws.Floor.TxID != "open" {
				t.Fatalf("floor %+v, want the opening", ws.Floor)
			}
			more := located(ws.FloorRewrites)
			for _, x := range []struct {
				what      string
				got, want []string
			}{{"before the result", describe(ws.Before), tc.before}, {"after the result", describe(ws.After), tc.after}, {"manifest writes after the opening", more, tc.more}} {
				if !reflect.DeepEqual(x.got, x.want) {
					t.Errorf("%s: got %q, want %q", x.what, x.got, x.want)
				}
			}
			if c.Reads != len(tc.blocks) {
				t.Errorf("read %d blocks, want all %d", c.Reads, len(tc.blocks))
			}
		})
	}
}

func TestWritesSinceErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		chain *chaintest.Chain
		want  string // error text; "" means ErrNotFound
		reads int    // blocks read before giving up (-1: do not check)
	}{
		{"empty chain", chaintest.NewChain(), "", 0},
		{"no result on the chain", chaintest.NewChain([]tx{{ID: "b1", Valid: true, Writes: []string{ballot("v1")}}}), "", 1},
		{"only an invalid result transaction", chaintest.NewChain([]tx{{ID: "r", Valid: false, Writes: []string{"ballot/" + result + "=R"}}}), "", 1},
		{"a result before the election's opening is not its result", chaintest.NewChain(
			[]tx{{ID: "old", Valid: true, Writes: []string{"ballot/" + result + "=R"}}},
			[]tx{{ID: "open", Valid: true, Writes: []string{"ballot/" + manifest + "=M"}}},
			[]tx{{ID: "b1", Valid: true, Writes: []string{ballot("v1")}}},
		), "", 3},
		{"reader failure", &chaintest.Chain{Blocks: [][]byte{nil}, Err: errors.New("access denied")}, "reading block 0: access denied", -1},
		{"misnumbered block", &chaintest.Chain{Blocks: [][]byte{chaintest.Marshal(chaintest.Block(5, nil))}}, "asked for block 0, got block 5", -1},
		{"undecodable block", &chaintest.Chain{Blocks: [][]byte{{0xff}}}, "does not decode", -1},
		{"broken hash chain", func() *chaintest.Chain {
			c := chaintest.NewChain([]tx{{ID: "b0", Valid: true, Writes: []string{ballot("v0")}}}, []tx{{ID: "b1", Valid: true, Writes: []string{ballot("v1")}}})
			c.Blocks[0] = chaintest.Marshal(chaintest.Block(0, nil, tx{ID: "swapped", Valid: true, Writes: []string{"ballot/" + result + "=R"}}))
			return c
		}(), "block 0 does not hash to block 1's previous hash", -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := writesSince(tc.chain)
			if tc.want == "" {
				if !errors.Is(err, chain.ErrNotFound) {
					t.Fatalf("err %v, want ErrNotFound", err)
				}
			} else if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want one containing %q", err, tc.want)
			}
			if tc.reads >= 0 && tc.chain.Reads != tc.reads {
				t.Errorf("read %d blocks, want %d", tc.chain.Reads, tc.reads)
			}
		})
	}
}

func FuzzParseBlock(f *testing.F) {
	f.Add(chaintest.Marshal(chaintest.Block(1, nil, tx{ID: "t1", Valid: true, Writes: []string{"ballot/k=v", "ballot/d"}})))
	f.Add(chaintest.Marshal(chaintest.Block(0, nil, tx{ID: "c", Valid: true, Config: true})))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, raw []byte) {
		b, err := chain.ParseBlock(raw)
		if err != nil {
			return
		}
		var pb common.Block
		if err := proto.Unmarshal(raw, &pb); err != nil {
			t.Fatalf("ParseBlock accepted bytes proto rejects: %v", err)
		}
		if len(b.Txs) != len(pb.Data.Data) {
			t.Fatalf("%d transactions decoded from a block of %d", len(b.Txs), len(pb.Data.Data))
		}
		if !reflect.DeepEqual(chaintest.DataHash(pb.Data), pb.Header.DataHash) || !reflect.DeepEqual(b.Hash, chaintest.HeaderHash(pb.Header)) {
			t.Fatal("ParseBlock accepted a block whose hashes do not check out")
		}
	})
}
