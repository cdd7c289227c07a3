// Package chain reads a channel's committed blocks and answers one question
// the world state cannot: which writes were committed after a given one.
//
// The world state keeps one value per key and no commit order, so an auditor
// reading it cannot tell a ballot committed before the result from one
// committed after it. The blocks can: a transaction's position is its block
// number and its index in the block, and the block's transactions filter
// says whether the committing peers found it valid. WritesSince walks back
// from the tip to the genesis block and returns the valid writes under a
// key prefix (the ballots) since the first valid write of a floor key (the
// election's manifest) that precede and follow the first valid write of a
// marker key (the result) since then, and every write of both keys.
//
// Only the fields that question needs are decoded: the channel header's
// type and transaction id, and the public write set of each namespace.
package chain

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/asn1"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/hyperledger/fabric-protos-go-apiv2/common"
	"github.com/hyperledger/fabric-protos-go-apiv2/ledger/rwset"
	"github.com/hyperledger/fabric-protos-go-apiv2/ledger/rwset/kvrwset"
	"github.com/hyperledger/fabric-protos-go-apiv2/peer"
	"google.golang.org/protobuf/proto"
)

// Write is one key written by a transaction.
type Write struct {
	Namespace string // chaincode name
	Key       string
	Value     []byte
	IsDelete  bool
}

// Tx is one transaction of a block.
type Tx struct {
	ID    string // transaction id (empty for config transactions)
	Valid bool   // the committing peers marked it VALID; only valid writes reach the state
	// Code is the block's transactions filter entry: the committing peer's
	// own validation verdict, which no hash covers, so two peers' copies of
	// a block can differ only here and in CommitHash.
	Code   peer.TxValidationCode
	Writes []Write // public writes of an endorser transaction, in rwset order
	// Undecodable says why the endorser transaction of a transaction marked
	// invalid does not decode; it then has no Writes. Anyone allowed to
	// write to the channel can have such a transaction ordered (the orderer
	// decodes only the envelope, payload and headers), every peer marks it
	// invalid, and its writes never reach the state.
	Undecodable string
}

// Block is a decoded block.
type Block struct {
	Number       uint64
	Hash         []byte // hash of this block's header: the next block's PreviousHash
	PreviousHash []byte
	Txs          []Tx
	// CommitHash is the committing peer's hash chain over the state
	// updates of every block up to this one (Fabric's COMMIT_HASH
	// metadata), nil if the block carries none: like the transactions
	// filter, the peer's own and covered by no block hash.
	CommitHash []byte
}

// HeaderHash is Fabric's block header hash (protoutil.BlockHeaderHash):
// SHA-256 of the DER encoding of (number, previous hash, data hash). The
// next block's PreviousHash carries it.
func HeaderHash(h *common.BlockHeader) []byte {
	sum := sha256.Sum256(HeaderDER(h))
	return sum[:]
}

// HeaderDER is the DER encoding of (number, previous hash, data hash) that
// HeaderHash hashes and an orderer's block signature covers
// (protoutil.BlockHeaderBytes).
func HeaderDER(h *common.BlockHeader) []byte {
	der, err := asn1.Marshal(struct {
		Number       *big.Int
		PreviousHash []byte
		DataHash     []byte
	}{new(big.Int).SetUint64(h.Number), h.PreviousHash, h.DataHash})
	if err != nil {
		panic(err) // a big.Int and two byte slices always encode
	}
	return der
}

// DataHash is Fabric's block data hash (protoutil.BlockDataHash): SHA-256
// of the concatenated envelopes. The header's DataHash must equal it.
func DataHash(d *common.BlockData) []byte {
	h := sha256.New()
	for _, env := range d.Data {
		h.Write(env)
	}
	return h.Sum(nil)
}

// ParseBlock decodes a marshalled common.Block (what qscc GetBlockByNumber
// returns) and checks that its header's data hash covers its transactions.
// It fails on any transaction it cannot decode rather than skip it: an
// auditor must not miss a write because of an unexpected encoding.
func ParseBlock(raw []byte) (*Block, error) {
	var b common.Block
	if err := proto.Unmarshal(raw, &b); err != nil {
		return nil, fmt.Errorf("block does not decode: %w", err)
	}
	if b.Header == nil || b.Data == nil {
		return nil, errors.New("block has no header or no data")
	}
	if !bytes.Equal(DataHash(b.Data), b.Header.DataHash) {
		return nil, fmt.Errorf("block %d: the header's data hash does not match the transactions", b.Header.Number)
	}
	out := &Block{Number: b.Header.Number, Hash: HeaderHash(b.Header), PreviousHash: b.Header.PreviousHash, Txs: make([]Tx, len(b.Data.Data))}
	var filter []byte
	if md := b.Metadata; md != nil && len(md.Metadata) > int(common.BlockMetadataIndex_TRANSACTIONS_FILTER) {
		filter = md.Metadata[common.BlockMetadataIndex_TRANSACTIONS_FILTER]
	}
	if len(filter) != len(b.Data.Data) {
		return nil, fmt.Errorf("block %d: transactions filter has %d entries for %d transactions", out.Number, len(filter), len(b.Data.Data))
	}
	for i, env := range b.Data.Data {
		code := peer.TxValidationCode(filter[i])
		tx, err := parseTx(env, code == peer.TxValidationCode_VALID)
		if err != nil {
			return nil, fmt.Errorf("block %d, transaction %d: %w", out.Number, i, err)
		}
		tx.Code = code
		tx.Valid = code == peer.TxValidationCode_VALID
		out.Txs[i] = tx
	}
	ch, err := commitHash(b.Metadata)
	if err != nil {
		return nil, fmt.Errorf("block %d: %w", out.Number, err)
	}
	out.CommitHash = ch
	return out, nil
}

// commitHash decodes the COMMIT_HASH metadata entry, nil when absent.
func commitHash(md *common.BlockMetadata) ([]byte, error) {
	if md == nil || len(md.Metadata) <= int(common.BlockMetadataIndex_COMMIT_HASH) ||
		len(md.Metadata[common.BlockMetadataIndex_COMMIT_HASH]) == 0 {
		return nil, nil
	}
	var m common.Metadata
	if err := proto.Unmarshal(md.Metadata[common.BlockMetadataIndex_COMMIT_HASH], &m); err != nil {
		return nil, fmt.Errorf("commit hash metadata does not decode: %w", err)
	}
	return m.Value, nil
}

// SameCommit reports how two peers' copies of a block differ, nil if they
// do not: the header hash (the same block from the orderer), then each
// transaction's validation code and the commit hash, which each peer
// computes itself. A validation plugin whose verdicts depend on the peer
// (its randomness, its scheduling, its cache) shows up here as two copies
// of one block that differ.
func SameCommit(a, b *Block) error {
	switch {
	case a.Number != b.Number:
		return fmt.Errorf("block %d compared with block %d", a.Number, b.Number)
	case !bytes.Equal(a.Hash, b.Hash):
		return fmt.Errorf("block %d: header hashes differ (%x, %x)", a.Number, a.Hash, b.Hash)
	case len(a.Txs) != len(b.Txs):
		return fmt.Errorf("block %d: %d and %d transactions", a.Number, len(a.Txs), len(b.Txs))
	}
	for i := range a.Txs {
		if a.Txs[i].Code != b.Txs[i].Code {
			return fmt.Errorf("block %d, transaction %d (%s): validated %s and %s", a.Number, i, a.Txs[i].ID, a.Txs[i].Code, b.Txs[i].Code)
		}
	}
	if !bytes.Equal(a.CommitHash, b.CommitHash) {
		return fmt.Errorf("block %d: commit hashes (state updates) differ (%x, %x)", a.Number, a.CommitHash, b.CommitHash)
	}
	return nil
}

// parseTx decodes one envelope. The envelope, payload and channel header
// must decode for every transaction; the endorser transaction below them
// must decode only when valid is true: an invalid one that does not is
// returned with Undecodable set and no writes.
func parseTx(raw []byte, valid bool) (Tx, error) {
	var env common.Envelope
	if err := proto.Unmarshal(raw, &env); err != nil {
		return Tx{}, fmt.Errorf("envelope: %w", err)
	}
	var pl common.Payload
	if err := proto.Unmarshal(env.Payload, &pl); err != nil {
		return Tx{}, fmt.Errorf("payload: %w", err)
	}
	if pl.Header == nil {
		return Tx{}, errors.New("payload has no header")
	}
	var ch common.ChannelHeader
	if err := proto.Unmarshal(pl.Header.ChannelHeader, &ch); err != nil {
		return Tx{}, fmt.Errorf("channel header: %w", err)
	}
	tx := Tx{ID: ch.TxId}
	if common.HeaderType(ch.Type) != common.HeaderType_ENDORSER_TRANSACTION {
		return tx, nil // config and other system transactions write no chaincode state
	}
	writes, err := endorserWrites(tx.ID, pl.Data)
	switch {
	case err == nil:
		tx.Writes = writes
	case valid:
		return Tx{}, err
	default:
		tx.Undecodable = err.Error()
	}
	return tx, nil
}

// endorserWrites returns the writes of the endorser transaction data of
// transaction txID.
func endorserWrites(txID string, data []byte) ([]Write, error) {
	var t peer.Transaction
	if err := proto.Unmarshal(data, &t); err != nil {
		return nil, fmt.Errorf("transaction %s: %w", txID, err)
	}
	var writes []Write
	for _, a := range t.Actions {
		w, err := actionWrites(txID, a)
		if err != nil {
			return nil, err
		}
		writes = append(writes, w...)
	}
	return writes, nil
}

// actionWrites returns the writes of one action of transaction txID. Each
// layer of an endorser transaction wraps the next in bytes.
func actionWrites(txID string, a *peer.TransactionAction) ([]Write, error) {
	in := func(b []byte, m proto.Message, what string) error {
		if err := proto.Unmarshal(b, m); err != nil {
			return fmt.Errorf("transaction %s: %s: %w", txID, what, err)
		}
		return nil
	}
	var actionPayload peer.ChaincodeActionPayload
	if err := in(a.Payload, &actionPayload, "chaincode action payload"); err != nil {
		return nil, err
	}
	if actionPayload.Action == nil {
		return nil, fmt.Errorf("transaction %s: no endorsed action", txID)
	}
	var prp peer.ProposalResponsePayload
	var ca peer.ChaincodeAction
	var rws rwset.TxReadWriteSet
	if err := in(actionPayload.Action.ProposalResponsePayload, &prp, "proposal response payload"); err != nil {
		return nil, err
	}
	if err := in(prp.Extension, &ca, "chaincode action"); err != nil {
		return nil, err
	}
	if err := in(ca.Results, &rws, "read-write set"); err != nil {
		return nil, err
	}
	var writes []Write
	for _, ns := range rws.NsRwset {
		var kv kvrwset.KVRWSet
		if err := proto.Unmarshal(ns.Rwset, &kv); err != nil {
			return nil, fmt.Errorf("transaction %s: namespace %q: %w", txID, ns.Namespace, err)
		}
		for _, w := range kv.Writes {
			writes = append(writes, Write{Namespace: ns.Namespace, Key: w.Key, Value: w.Value, IsDelete: w.IsDelete})
		}
	}
	return writes, nil
}

// Reader fetches committed blocks.
type Reader interface {
	Height(ctx context.Context) (uint64, error)               // number of blocks; the tip is Height-1
	Block(ctx context.Context, number uint64) ([]byte, error) // marshalled common.Block
}

// Located is a write and where it was committed.
type Located struct {
	Write
	TxID  string
	Block uint64
	Index int // transaction index in the block
}

// ErrNotFound is returned by WritesSince when no valid transaction wrote the
// marker key at or after the floor key's first write.
var ErrNotFound = errors.New("no valid transaction wrote the key")

// Writes is what WritesSince finds.
type Writes struct {
	// Marker is the first valid write of the marker key (the result) at
	// or after the floor. MarkerRewrites are every later valid write of
	// it, deletions included, oldest first.
	Marker         Located
	MarkerRewrites []Located
	// Floor is the first valid write of the floor key (the election's
	// manifest: its opening), nil if no block holds one. FloorRewrites
	// are every later valid write of it, deletions included, oldest first.
	Floor         *Located
	FloorRewrites []Located
	Before, After []Located // writes under the prefix before and after the marker, oldest first
}

// WritesSince finds the first valid transaction at or after the floor that
// wrote key (the result) in namespace ns and returns that write as Marker;
// every valid write in ns whose key starts with prefix, from the first
// valid write of floor (the election's manifest: nothing of the election
// can precede it) to the marker — the marker transaction's own writes
// included — as Before; and every such write committed after the marker
// (later in its block or in a later block) as After. It also returns every
// later valid write of key, and every valid write of floor.
//
// The floor is the key's first write, not its last: the contract writes a
// manifest once, so a later write is tampering, and a walk that stopped at
// it would hide every write before it (a ballot deleted, then the manifest
// written again, then the survivors re-written). The marker is the key's
// first write for the same reason: the contract writes a result once, and
// ordering the ballots against a later write would count a ballot that
// committed after the result was published. Only the genesis block
// proves that no earlier write exists, so WritesSince reads every block of
// the channel, from the tip to block 0. It fails with ErrNotFound when no
// valid write of key is at or after the floor's first write (or, without a
// floor, anywhere).
//
// Each block it reads must hash to the next one's PreviousHash, so the
// blocks it returns writes from are one unbroken chain ending at the tip
// the peer reported. The peer is still trusted for that tip and for the
// transactions filter, which no hash covers.
func WritesSince(ctx context.Context, r Reader, ns, key, prefix, floor string) (*Writes, error) {
	h, err := r.Height(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the chain height: %w", err)
	}
	w := walk{ns: ns, key: key, prefix: prefix, floor: floor}
	var wantHash []byte // PreviousHash of the block read before (the next one up)
	for n := h; n > 0; n-- {
		num := n - 1
		raw, err := r.Block(ctx, num)
		if err != nil {
			return nil, fmt.Errorf("reading block %d: %w", num, err)
		}
		b, err := ParseBlock(raw)
		if err != nil {
			return nil, err
		}
		if b.Number != num {
			return nil, fmt.Errorf("asked for block %d, got block %d", num, b.Number)
		}
		if wantHash != nil && !bytes.Equal(b.Hash, wantHash) {
			return nil, fmt.Errorf("block %d does not hash to block %d's previous hash: the blocks are not one chain", num, num+1)
		}
		wantHash = b.PreviousHash
		w.block(b)
	}
	return w.result()
}

// walk is the state of WritesSince's backward walk. It collects newest
// first; result cuts and reverses.
type walk struct {
	ns, key, prefix, floor string
	writes                 []Located  // valid writes under prefix
	markers                []markerAt // valid writes of key
	floors                 []Located  // valid writes of floor
	// At the oldest floor write seen so far: the lengths of writes and
	// markers (what was collected later in the walk precedes the election).
	cutWrites, cutMarkers int
}

// markerAt is a write of the marker key and the number of prefix writes
// collected before it in the walk: writes[:split] were committed after it.
type markerAt struct {
	Located
	split int
}

// block visits b's valid transactions, last first.
func (w *walk) block(b *Block) {
	for i := len(b.Txs) - 1; i >= 0; i-- {
		tx := b.Txs[i]
		if !tx.Valid {
			continue
		}
		var inTx, markersInTx, floorsInTx []Located
		for _, wr := range tx.Writes {
			if wr.Namespace != w.ns {
				continue
			}
			loc := Located{Write: wr, TxID: tx.ID, Block: b.Number, Index: i}
			switch {
			case wr.Key == w.key:
				markersInTx = append(markersInTx, loc)
			case wr.Key == w.floor:
				floorsInTx = append(floorsInTx, loc)
			case strings.HasPrefix(wr.Key, w.prefix):
				inTx = append(inTx, loc)
			}
		}
		// Writes of a marker's own transaction are not after it.
		split := len(w.writes)
		for j := len(markersInTx) - 1; j >= 0; j-- {
			w.markers = append(w.markers, markerAt{markersInTx[j], split})
		}
		for j := len(inTx) - 1; j >= 0; j-- {
			w.writes = append(w.writes, inTx[j])
		}
		// The floor transaction's own writes are the election's.
		for j := len(floorsInTx) - 1; j >= 0; j-- {
			w.floors = append(w.floors, floorsInTx[j])
			w.cutWrites, w.cutMarkers = len(w.writes), len(w.markers)
		}
	}
}

// result cuts the walk at the floor's first write, splits the prefix
// writes at the marker's first write, and orders them oldest first.
func (w *walk) result() (*Writes, error) {
	writes, markers := w.writes, w.markers
	if len(w.floors) > 0 {
		writes, markers = writes[:w.cutWrites], markers[:w.cutMarkers]
	}
	if len(markers) == 0 {
		return nil, ErrNotFound
	}
	first := markers[len(markers)-1]
	after, before := writes[:first.split], writes[first.split:]
	slices.Reverse(before)
	slices.Reverse(after)
	slices.Reverse(w.floors)
	out := &Writes{Marker: first.Located, Before: before, After: after}
	for j := len(markers) - 2; j >= 0; j-- {
		out.MarkerRewrites = append(out.MarkerRewrites, markers[j].Located)
	}
	if len(w.floors) > 0 {
		out.Floor, out.FloorRewrites = &w.floors[0], w.floors[1:]
	}
	return out, nil
}
