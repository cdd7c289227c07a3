package chain

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/hyperledger/fabric-protos-go-apiv2/common"
	"github.com/hyperledger/fabric-protos-go-apiv2/ledger/rwset"
	"github.com/hyperledger/fabric-protos-go-apiv2/ledger/rwset/kvrwset"
	"github.com/hyperledger/fabric-protos-go-apiv2/peer"
	"google.golang.org/protobuf/proto"
)

// txSpec describes a synthetic transaction: an endorser transaction with
// writes ("ns/key=value", "ns/key" with no "=" is a delete), or a config
// transaction when config is set.
type txSpec struct {
	id     string
	valid  bool
	config bool
	writes []string
}

func mustMarshal(m proto.Message) []byte {
	b, err := proto.Marshal(m)
	if err != nil {
		panic(err)
	}
	return b
}

func envelope(tx txSpec) []byte {
	typ := common.HeaderType_ENDORSER_TRANSACTION
	var data []byte
	if tx.config {
		typ = common.HeaderType_CONFIG
		data = []byte("config")
	} else {
		byNS := map[string]*kvrwset.KVRWSet{}
		var order []string
		for _, w := range tx.writes {
			ns, rest, _ := strings.Cut(w, "/")
			key, value, hasValue := strings.Cut(rest, "=")
			if byNS[ns] == nil {
				byNS[ns] = &kvrwset.KVRWSet{}
				order = append(order, ns)
			}
			byNS[ns].Writes = append(byNS[ns].Writes, &kvrwset.KVWrite{Key: key, Value: []byte(value), IsDelete: !hasValue})
		}
		rws := &rwset.TxReadWriteSet{DataModel: rwset.TxReadWriteSet_KV}
		for _, ns := range order {
			rws.NsRwset = append(rws.NsRwset, &rwset.NsReadWriteSet{Namespace: ns, Rwset: mustMarshal(byNS[ns])})
		}
		action := &peer.ChaincodeAction{Results: mustMarshal(rws)}
		prp := &peer.ProposalResponsePayload{ProposalHash: []byte{1}, Extension: mustMarshal(action)}
		actionPayload := &peer.ChaincodeActionPayload{Action: &peer.ChaincodeEndorsedAction{ProposalResponsePayload: mustMarshal(prp)}}
		data = mustMarshal(&peer.Transaction{Actions: []*peer.TransactionAction{{Payload: mustMarshal(actionPayload)}}})
	}
	ch := &common.ChannelHeader{Type: int32(typ), TxId: tx.id, ChannelId: "fabvote"}
	pl := &common.Payload{Header: &common.Header{ChannelHeader: mustMarshal(ch)}, Data: data}
	return mustMarshal(&common.Envelope{Payload: mustMarshal(pl)})
}

func block(num uint64, txs ...txSpec) []byte {
	b := &common.Block{Header: &common.BlockHeader{Number: num}, Data: &common.BlockData{}, Metadata: &common.BlockMetadata{Metadata: make([][]byte, 5)}}
	filter := make([]byte, len(txs))
	for i, tx := range txs {
		b.Data.Data = append(b.Data.Data, envelope(tx))
		if !tx.valid {
			filter[i] = byte(peer.TxValidationCode_MVCC_READ_CONFLICT)
		}
	}
	b.Metadata.Metadata[common.BlockMetadataIndex_TRANSACTIONS_FILTER] = filter
	return mustMarshal(b)
}

func TestParseBlock(t *testing.T) {
	raw := block(9,
		txSpec{id: "cfg", valid: true, config: true},
		txSpec{id: "t1", valid: true, writes: []string{"ballot/k1=v1", "lscc/x=y"}},
		txSpec{id: "t2", valid: false, writes: []string{"ballot/k2=v2"}},
		txSpec{id: "t3", valid: true, writes: []string{"ballot/k3"}},
	)
	got, err := ParseBlock(raw)
	if err != nil {
		t.Fatal(err)
	}
	want := &Block{Number: 9, Txs: []Tx{
		{ID: "cfg", Valid: true},
		{ID: "t1", Valid: true, Writes: []Write{{Namespace: "ballot", Key: "k1", Value: []byte("v1")}, {Namespace: "lscc", Key: "x", Value: []byte("y")}}},
		{ID: "t2", Valid: false, Writes: []Write{{Namespace: "ballot", Key: "k2", Value: []byte("v2")}}},
		{ID: "t3", Valid: true, Writes: []Write{{Namespace: "ballot", Key: "k3", IsDelete: true}}},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ParseBlock:\n got %+v\nwant %+v", got, want)
	}
}

func TestParseBlockRejects(t *testing.T) {
	good := block(1, txSpec{id: "t1", valid: true, writes: []string{"ballot/k=v"}})
	var b common.Block
	if err := proto.Unmarshal(good, &b); err != nil {
		t.Fatal(err)
	}
	with := func(f func(*common.Block)) []byte {
		c := proto.Clone(&b).(*common.Block)
		f(c)
		return mustMarshal(c)
	}
	for _, tc := range []struct {
		name, want string
		raw        []byte
	}{
		{"not a block", "does not decode", []byte{0xff, 0xff, 0xff}},
		{"no header", "no header", with(func(c *common.Block) { c.Header = nil })},
		{"filter shorter than the transactions", "transactions filter has 0 entries for 1", with(func(c *common.Block) {
			c.Metadata.Metadata[common.BlockMetadataIndex_TRANSACTIONS_FILTER] = nil
		})},
		{"no metadata", "transactions filter", with(func(c *common.Block) { c.Metadata = nil })},
		{"envelope garbage", "transaction 0: envelope", with(func(c *common.Block) { c.Data.Data[0] = []byte{0xff, 0xff} })},
		{"payload without header", "payload has no header", with(func(c *common.Block) {
			c.Data.Data[0] = mustMarshal(&common.Envelope{Payload: mustMarshal(&common.Payload{})})
		})},
		{"read-write set garbage", "read-write set", with(func(c *common.Block) {
			action := &peer.ChaincodeAction{Results: []byte{0xff, 0xff}}
			prp := &peer.ProposalResponsePayload{Extension: mustMarshal(action)}
			actionPayload := &peer.ChaincodeActionPayload{Action: &peer.ChaincodeEndorsedAction{ProposalResponsePayload: mustMarshal(prp)}}
			ch := &common.ChannelHeader{Type: int32(common.HeaderType_ENDORSER_TRANSACTION), TxId: "t1"}
			pl := &common.Payload{Header: &common.Header{ChannelHeader: mustMarshal(ch)},
				Data: mustMarshal(&peer.Transaction{Actions: []*peer.TransactionAction{{Payload: mustMarshal(actionPayload)}}})}
			c.Data.Data[0] = mustMarshal(&common.Envelope{Payload: mustMarshal(pl)})
		})},
		{"action without endorsed action", "no endorsed action", with(func(c *common.Block) {
			ch := &common.ChannelHeader{Type: int32(common.HeaderType_ENDORSER_TRANSACTION), TxId: "t1"}
			pl := &common.Payload{Header: &common.Header{ChannelHeader: mustMarshal(ch)},
				Data: mustMarshal(&peer.Transaction{Actions: []*peer.TransactionAction{{Payload: mustMarshal(&peer.ChaincodeActionPayload{})}}})}
			c.Data.Data[0] = mustMarshal(&common.Envelope{Payload: mustMarshal(pl)})
		})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseBlock(tc.raw)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("ParseBlock: error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// chainOf is a Reader over a slice of marshalled blocks.
type chainOf struct {
	blocks [][]byte
	reads  int
	err    error // returned for every Block call when set
}

func (c *chainOf) Height(context.Context) (uint64, error) { return uint64(len(c.blocks)), nil }
func (c *chainOf) Block(_ context.Context, n uint64) ([]byte, error) {
	c.reads++
	if c.err != nil {
		return nil, c.err
	}
	return c.blocks[n], nil
}

const (
	result = "\x00result\x00e1\x00"
	prefix = "\x00ballot\x00e1\x00"
)

func ballot(voter string) string { return "ballot/" + prefix + voter + "\x00=rec-" + voter }

func TestWritesAfter(t *testing.T) {
	c := &chainOf{blocks: [][]byte{
		block(0, txSpec{id: "genesis", valid: true, config: true}),
		block(1, txSpec{id: "b1", valid: true, writes: []string{ballot("v1")}}),
		block(2,
			txSpec{id: "b2", valid: true, writes: []string{ballot("v2")}},                              // before the result in its block
			txSpec{id: "res", valid: true, writes: []string{"ballot/" + result + "=R", ballot("own")}}, // the marker
			txSpec{id: "b3", valid: true, writes: []string{ballot("v3")}},                              // after, same block
			txSpec{id: "b3x", valid: false, writes: []string{ballot("v3x")}},                           // invalid: never reached the state
		),
		block(3,
			txSpec{id: "bad-result", valid: false, writes: []string{"ballot/" + result + "=forged"}}, // invalid: not the marker
			txSpec{id: "other-ns", valid: true, writes: []string{"other/" + prefix + "v4\x00=x"}},
			txSpec{id: "other-election", valid: true, writes: []string{"ballot/\x00ballot\x00e10\x00v5\x00=x"}},
			txSpec{id: "b6", valid: true, writes: []string{ballot("v6"), ballot("v7")}},
		),
		block(4, txSpec{id: "cfg", valid: true, config: true}),
	}}
	marker, after, err := WritesAfter(context.Background(), c, "ballot", result, prefix)
	if err != nil {
		t.Fatal(err)
	}
	if marker.TxID != "res" || marker.Block != 2 || marker.Index != 1 || string(marker.Value) != "R" {
		t.Fatalf("marker = %+v, want tx res at block 2, index 1, value R", marker)
	}
	var got []string
	for _, w := range after {
		got = append(got, fmt.Sprintf("%s@%d.%d:%s", w.TxID, w.Block, w.Index, strings.TrimSuffix(strings.TrimPrefix(w.Key, prefix), "\x00")))
	}
	want := []string{"b3@2.2:v3", "b6@3.3:v6", "b6@3.3:v7"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("writes after the result: got %q, want %q", got, want)
	}
	if c.reads != 3 {
		t.Errorf("read %d blocks, want 3 (the tip back to the result's block)", c.reads)
	}
}

func TestWritesAfterErrors(t *testing.T) {
	ctx := context.Background()
	noResult := &chainOf{blocks: [][]byte{block(0, txSpec{id: "b1", valid: true, writes: []string{ballot("v1")}})}}
	if _, _, err := WritesAfter(ctx, noResult, "ballot", result, prefix); !errors.Is(err, ErrNotFound) {
		t.Errorf("no result on the chain: err %v, want ErrNotFound", err)
	}
	onlyInvalid := &chainOf{blocks: [][]byte{block(0, txSpec{id: "r", valid: false, writes: []string{"ballot/" + result + "=R"}})}}
	if _, _, err := WritesAfter(ctx, onlyInvalid, "ballot", result, prefix); !errors.Is(err, ErrNotFound) {
		t.Errorf("only an invalid result transaction: err %v, want ErrNotFound", err)
	}
	broken := &chainOf{blocks: [][]byte{nil}, err: errors.New("access denied")}
	if _, _, err := WritesAfter(ctx, broken, "ballot", result, prefix); err == nil || !strings.Contains(err.Error(), "reading block 0: access denied") {
		t.Errorf("reader failure: err %v", err)
	}
	misnumbered := &chainOf{blocks: [][]byte{block(5)}}
	if _, _, err := WritesAfter(ctx, misnumbered, "ballot", result, prefix); err == nil || !strings.Contains(err.Error(), "asked for block 0, got block 5") {
		t.Errorf("misnumbered block: err %v", err)
	}
	garbage := &chainOf{blocks: [][]byte{{0xff}}}
	if _, _, err := WritesAfter(ctx, garbage, "ballot", result, prefix); err == nil || !strings.Contains(err.Error(), "does not decode") {
		t.Errorf("undecodable block: err %v", err)
	}
}

func FuzzParseBlock(f *testing.F) {
	f.Add(block(1, txSpec{id: "t1", valid: true, writes: []string{"ballot/k=v", "ballot/d"}}))
	f.Add(block(0, txSpec{id: "c", valid: true, config: true}))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, raw []byte) {
		b, err := ParseBlock(raw)
		if err != nil {
			return
		}
		// A block that decodes re-encodes to one that decodes the same.
		var pb common.Block
		if err := proto.Unmarshal(raw, &pb); err != nil {
			t.Fatalf("ParseBlock accepted bytes proto rejects: %v", err)
		}
		if len(b.Txs) != len(pb.Data.Data) {
			t.Fatalf("%d transactions decoded from a block of %d", len(b.Txs), len(pb.Data.Data))
		}
	})
}
