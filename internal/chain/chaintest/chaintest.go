// Package chaintest builds synthetic Fabric blocks for tests of code that
// reads blocks (package chain and its users): endorser transactions with
// given writes, config transactions, the transactions filter, the data hash
// and the previous-hash links, encoded as a peer's qscc would return them.
package chaintest

import (
	"context"
	"fmt"
	"strings"

	"github.com/fabvote/fabvote/internal/chain"
	"github.com/hyperledger/fabric-protos-go-apiv2/common"
	"github.com/hyperledger/fabric-protos-go-apiv2/ledger/rwset"
	"github.com/hyperledger/fabric-protos-go-apiv2/ledger/rwset/kvrwset"
	"github.com/hyperledger/fabric-protos-go-apiv2/peer"
	"google.golang.org/protobuf/proto"
)

// Tx describes a transaction. Writes are "ns/key=value"; "ns/key" with no
// "=" is a delete. Config makes it a config transaction (no writes).
type Tx struct {
	ID     string
	Valid  bool
	Config bool
	Writes []string
	// KVs are more writes, after Writes, for keys and values that are
	// not text (a Value of nil with Delete set is a delete).
	KVs []KV
	// ConfigData is a config transaction's payload data (a marshalled
	// ConfigEnvelope); nil: the placeholder "config".
	ConfigData []byte
	Channel    string // the channel header's channel; "": "fabvote"
}

// KV is one write of namespace NS.
type KV struct {
	NS, Key string
	Value   []byte
	Delete  bool
}

// Marshal encodes m or panics (test data only).
func Marshal(m proto.Message) []byte {
	b, err := proto.Marshal(m)
	if err != nil {
		panic(err)
	}
	return b
}

// Envelope encodes tx as a transaction envelope.
func Envelope(tx Tx) []byte {
	typ := common.HeaderType_ENDORSER_TRANSACTION
	var data []byte
	if tx.Config {
		typ = common.HeaderType_CONFIG
		data = []byte("config")
		if tx.ConfigData != nil {
			data = tx.ConfigData
		}
	} else {
		byNS := map[string]*kvrwset.KVRWSet{}
		var order []string
		for _, w := range tx.Writes {
			ns, rest, _ := strings.Cut(w, "/")
			key, value, hasValue := strings.Cut(rest, "=")
			if byNS[ns] == nil {
				byNS[ns] = &kvrwset.KVRWSet{}
				order = append(order, ns)
			}
			byNS[ns].Writes = append(byNS[ns].Writes, &kvrwset.KVWrite{Key: key, Value: []byte(value), IsDelete: !hasValue})
		}
		for _, kv := range tx.KVs {
			if byNS[kv.NS] == nil {
				byNS[kv.NS] = &kvrwset.KVRWSet{}
				order = append(order, kv.NS)
			}
			byNS[kv.NS].Writes = append(byNS[kv.NS].Writes, &kvrwset.KVWrite{Key: kv.Key, Value: kv.Value, IsDelete: kv.Delete})
		}
		rws := &rwset.TxReadWriteSet{DataModel: rwset.TxReadWriteSet_KV}
		for _, ns := range order {
			rws.NsRwset = append(rws.NsRwset, &rwset.NsReadWriteSet{Namespace: ns, Rwset: Marshal(byNS[ns])})
		}
		action := &peer.ChaincodeAction{Results: Marshal(rws)}
		prp := &peer.ProposalResponsePayload{ProposalHash: []byte{1}, Extension: Marshal(action)}
		ap := &peer.ChaincodeActionPayload{Action: &peer.ChaincodeEndorsedAction{ProposalResponsePayload: Marshal(prp)}}
		data = Marshal(&peer.Transaction{Actions: []*peer.TransactionAction{{Payload: Marshal(ap)}}})
	}
	channel := tx.Channel
	if channel == "" {
		channel = "fabvote"
	}
	ch := &common.ChannelHeader{Type: int32(typ), TxId: tx.ID, ChannelId: channel}
	pl := &common.Payload{Header: &common.Header{ChannelHeader: Marshal(ch)}, Data: data}
	return Marshal(&common.Envelope{Payload: Marshal(pl)})
}

// Block builds block num with the given previous hash: data hash set,
// transactions filter VALID or MVCC_READ_CONFLICT per transaction.
func Block(num uint64, prev []byte, txs ...Tx) *common.Block {
	b := &common.Block{Header: &common.BlockHeader{Number: num, PreviousHash: prev}, Data: &common.BlockData{},
		Metadata: &common.BlockMetadata{Metadata: make([][]byte, 5)}}
	filter := make([]byte, len(txs))
	for i, tx := range txs {
		b.Data.Data = append(b.Data.Data, Envelope(tx))
		if !tx.Valid {
			filter[i] = byte(peer.TxValidationCode_MVCC_READ_CONFLICT)
		}
	}
	b.Metadata.Metadata[common.BlockMetadataIndex_TRANSACTIONS_FILTER] = filter
	b.Header.DataHash = DataHash(b.Data)
	return b
}

// DataHash is the header's data hash of d.
func DataHash(d *common.BlockData) []byte { return chain.DataHash(d) }

// HeaderHash is the hash the next block's PreviousHash must carry.
func HeaderHash(h *common.BlockHeader) []byte { return chain.HeaderHash(h) }

// Chain is a chain.Reader over blocks numbered from 0, each linked to the
// one before. Reads counts Block calls; Err, if set, fails every Block call.
type Chain struct {
	Blocks [][]byte
	Reads  int
	Err    error
}

// NewChain numbers and links one block per transaction list.
func NewChain(blocks ...[]Tx) *Chain {
	c := &Chain{}
	var prev []byte
	for i, txs := range blocks {
		b := Block(uint64(i), prev, txs...)
		prev = HeaderHash(b.Header)
		c.Blocks = append(c.Blocks, Marshal(b))
	}
	return c
}

// Height implements chain.Reader.
func (c *Chain) Height(context.Context) (uint64, error) { return uint64(len(c.Blocks)), nil }

// Block implements chain.Reader.
func (c *Chain) Block(_ context.Context, n uint64) ([]byte, error) {
	c.Reads++
	if c.Err != nil {
		return nil, c.Err
	}
	if n >= uint64(len(c.Blocks)) {
		return nil, fmt.Errorf("no block %d", n)
	}
	return c.Blocks[n], nil
}
