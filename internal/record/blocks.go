package record

import (
	"bytes"
	"context"
	"fmt"
	"slices"

	"github.com/fabvote/fabvote/internal/audit"
	"github.com/fabvote/fabvote/internal/chain"
	"github.com/hyperledger/fabric-protos-go-apiv2/common"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// scan is the forward pass over a record's blocks (RECORD.md section 6,
// step 2): it checks each block's place in the chain and its orderer
// signature, and feeds the valid writes to the index builder for step 3.
type scan struct {
	channel    string
	cfg        *ordererConfig // the configuration in force; nil until block 0 gives one
	prevHash   []byte         // the header hash of the block before
	genesis    []byte         // block 0's header hash
	index      *indexer
	failures   []audit.Failure
	lastConfig uint64
}

func (s *scan) fail(kind string, n uint64, format string, args ...any) {
	s.failures = append(s.failures, audit.Failure{Kind: kind, Subject: fmt.Sprintf("block %d", n), Err: fmt.Sprintf(format, args...)})
}

// run reads blocks 0 … last from r.
func (s *scan) run(ctx context.Context, r chain.Reader, last uint64) {
	for n := uint64(0); n <= last; n++ {
		if err := ctx.Err(); err != nil {
			s.fail(audit.KindBlockChain, n, "not read: %v", err)
			return
		}
		raw, err := r.Block(ctx, n)
		if err != nil {
			s.fail(audit.KindBlockChain, n, "cannot be read: %v", err)
			s.prevHash = nil
			continue
		}
		s.block(n, raw)
	}
}

// block checks block n: the chain rules first, then the signature, then
// hands its writes to the index.
func (s *scan) block(n uint64, raw []byte) {
	var b common.Block
	if err := fieldsOnce(raw, "block", 1, 2, 3); err != nil {
		s.fail(audit.KindBlockChain, n, "%v", err)
		s.prevHash = nil
		return
	}
	if err := proto.Unmarshal(raw, &b); err != nil {
		s.fail(audit.KindBlockChain, n, "does not decode as a common.Block: %v", err)
		s.prevHash = nil
		return
	}
	if b.Header == nil || b.Data == nil {
		s.fail(audit.KindBlockChain, n, "has no header or no data")
		s.prevHash = nil
		return
	}
	prev := s.prevHash
	s.prevHash = chain.HeaderHash(b.Header)
	if n == 0 {
		s.genesis = s.prevHash
	}
	configData, ok := s.checkChain(n, &b, prev)
	if !ok {
		return
	}
	s.checkSignature(n, &b, configData)
	parsed, err := chain.ParseBlock(raw)
	if err != nil {
		s.fail(audit.KindBlockChain, n, "%v", err)
		return
	}
	s.index.block(parsed)
}

// checkChain applies RECORD.md 5.2 rules 1–4 and the channel rule, and
// returns the ConfigEnvelope of a configuration block (nil otherwise).
func (s *scan) checkChain(n uint64, b *common.Block, prev []byte) ([]byte, bool) {
	ok := true
	bad := func(format string, args ...any) {
		s.fail(audit.KindBlockChain, n, format, args...)
		ok = false
	}
	if b.Header.Number != n {
		bad("its file is %s, but its header's number is %d", BlockFile(n), b.Header.Number)
	}
	if !bytes.Equal(chain.DataHash(b.Data), b.Header.DataHash) {
		bad("the header's data hash is not the SHA-256 of the block's transactions")
	}
	if n > 0 && prev != nil && !bytes.Equal(b.Header.PreviousHash, prev) {
		bad("the previous hash is not the header hash of block %d", n-1)
	}
	var filter []byte
	if md := b.Metadata; md != nil && len(md.Metadata) > int(common.BlockMetadataIndex_TRANSACTIONS_FILTER) {
		filter = md.Metadata[common.BlockMetadataIndex_TRANSACTIONS_FILTER]
	}
	if len(filter) != len(b.Data.Data) {
		bad("the transactions filter has %d entries for %d transactions", len(filter), len(b.Data.Data))
	}
	config, err := s.channelHeaders(b)
	if err != nil {
		bad("%v", err)
	}
	return config, ok
}

// channelHeaders requires every transaction's channel header to name the
// record's channel, and returns the ConfigEnvelope bytes of a block whose
// one transaction is a CONFIG transaction.
func (s *scan) channelHeaders(b *common.Block) ([]byte, error) {
	var config []byte
	for i, raw := range b.Data.Data {
		var env common.Envelope
		var pl common.Payload
		var ch common.ChannelHeader
		// The data hash covers the envelopes' concatenation, not where
		// each ends: two envelopes run together would decode as the
		// second alone (RECORD.md 5.1).
		if err := fieldsOnce(raw, fmt.Sprintf("transaction %d: envelope", i), 1, 2); err != nil {
			return nil, err
		}
		if err := proto.Unmarshal(raw, &env); err != nil {
			return nil, fmt.Errorf("transaction %d: envelope does not decode: %w", i, err)
		}
		if err := proto.Unmarshal(env.Payload, &pl); err != nil || pl.Header == nil {
			return nil, fmt.Errorf("transaction %d: payload does not decode or has no header", i)
		}
		if err := proto.Unmarshal(pl.Header.ChannelHeader, &ch); err != nil {
			return nil, fmt.Errorf("transaction %d: channel header does not decode: %w", i, err)
		}
		if ch.ChannelId != s.channel {
			return nil, fmt.Errorf("transaction %d names channel %q, not the record's %q", i, ch.ChannelId, s.channel)
		}
		if common.HeaderType(ch.Type) == common.HeaderType_CONFIG {
			if len(b.Data.Data) != 1 {
				return nil, fmt.Errorf("a CONFIG transaction shares its block with %d others", len(b.Data.Data)-1)
			}
			config = pl.Data
		}
	}
	return config, nil
}

// checkSignature applies rule 5 and 5.3: block 0 sets the configuration;
// a later block is signed under the configuration before it, and a
// configuration block then replaces it.
func (s *scan) checkSignature(n uint64, b *common.Block, config []byte) {
	if n == 0 {
		if config == nil {
			s.fail(audit.KindBlockSignature, n, "the genesis block is not a configuration block: no orderer organisations to check signatures against")
			return
		}
		cfg, err := parseConfig(config, 0)
		if err != nil {
			s.fail(audit.KindBlockSignature, n, "the genesis configuration: %v", err)
			return
		}
		s.cfg = cfg
		return
	}
	want := s.lastConfig
	if config != nil {
		want = n // a configuration block names itself
	}
	if s.cfg == nil {
		// Nor is a configuration it sets taken: no unchecked signature
		// changes the configuration in force (RECORD.md 6 step 2).
		s.fail(audit.KindBlockSignature, n, "no configuration in force to check the signature against")
		return
	}
	if err := checkBlockSignature(b, s.cfg, want); err != nil {
		s.fail(audit.KindBlockSignature, n, "%v", err)
		return
	}
	if config != nil {
		cfg, err := parseConfig(config, n)
		if err != nil {
			s.fail(audit.KindBlockSignature, n, "the configuration it sets: %v", err)
			return
		}
		s.cfg, s.lastConfig = cfg, n
	}
}

// fieldsOnce requires each of the length-delimited fields nums to occur at
// most once at the top level of the message b (RECORD.md 5.1): protobuf
// would merge two occurrences, last one winning, where a message is
// expected, so that two messages run together would read as one. A field
// of one of those numbers with another wire type, a group among them, is
// an unknown field that protobuf skips, and so does this check.
func fieldsOnce(b []byte, what string, nums ...protowire.Number) error {
	seen := make(map[protowire.Number]bool, len(nums))
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return fmt.Errorf("%s does not decode: %v", what, protowire.ParseError(n))
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return fmt.Errorf("%s does not decode: %v", what, protowire.ParseError(m))
		}
		b = b[n+m:]
		if typ != protowire.BytesType || !slices.Contains(nums, num) {
			continue
		}
		if seen[num] {
			return fmt.Errorf("%s has field %d more than once: it is not one message but several run together", what, num)
		}
		seen[num] = true
	}
	return nil
}
