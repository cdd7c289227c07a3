package gateway

import (
	"context"
	"fmt"
	"strconv"

	"github.com/hyperledger/fabric-protos-go-apiv2/common"
	"google.golang.org/protobuf/proto"
)

// Height returns the number of blocks on the channel (qscc GetChainInfo).
func (c *Conn) Height(ctx context.Context) (uint64, error) { return c.height(ctx, c.qscc) }

// Block returns block number n, marshalled (qscc GetBlockByNumber).
func (c *Conn) Block(ctx context.Context, n uint64) ([]byte, error) { return c.block(ctx, c.qscc, n) }

// HeightInOwnOrg and BlockInOwnOrg are Height and Block answered by a peer
// of the gateway peer's own org only. The gateway otherwise falls back to
// another org's peer when its own org's cannot answer, and a block's
// transactions filter is the answering peer's own validation: reading each
// org's verdicts needs each org's peer.
func (c *Conn) HeightInOwnOrg(ctx context.Context) (uint64, error) {
	return c.height(ctx, orgBackend{c.qscc, c.peerMSP})
}

// BlockInOwnOrg: see HeightInOwnOrg.
func (c *Conn) BlockInOwnOrg(ctx context.Context, n uint64) ([]byte, error) {
	return c.block(ctx, orgBackend{c.qscc, c.peerMSP}, n)
}

func (c *Conn) height(ctx context.Context, qscc backend) (uint64, error) {
	out, err := c.evaluate(ctx, qscc, "GetChainInfo", [][]byte{[]byte(c.channel)})
	if err != nil {
		return 0, err
	}
	var info common.BlockchainInfo
	if err := proto.Unmarshal(out, &info); err != nil {
		return 0, fmt.Errorf("GetChainInfo: reply does not decode: %w", err)
	}
	return info.Height, nil
}

func (c *Conn) block(ctx context.Context, qscc backend, n uint64) ([]byte, error) {
	return c.evaluate(ctx, qscc, "GetBlockByNumber", [][]byte{[]byte(c.channel), []byte(strconv.FormatUint(n, 10))})
}
