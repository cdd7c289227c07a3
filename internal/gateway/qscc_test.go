package gateway

import (
	"context"
	"strings"
	"testing"

	"github.com/hyperledger/fabric-protos-go-apiv2/common"
	"google.golang.org/protobuf/proto"
)

// qsccFake answers qscc calls and records them.
type qsccFake struct {
	reply []byte
	calls []string
}

func (q *qsccFake) evaluate(_ context.Context, fn string, args [][]byte) ([]byte, error) {
	var as []string
	for _, a := range args {
		as = append(as, string(a))
	}
	q.calls = append(q.calls, fn+"("+strings.Join(as, ",")+")")
	return q.reply, nil
}

func (q *qsccFake) endorse(context.Context, string, [][]byte) (endorsedTx, error) {
	panic("qscc is only evaluated")
}

func TestHeightAndBlockCallQSCC(t *testing.T) {
	info, err := proto.Marshal(&common.BlockchainInfo{Height: 42})
	if err != nil {
		t.Fatal(err)
	}
	q := &qsccFake{reply: info}
	c := testConn(nil, 1)
	c.qscc, c.channel = q, "fabvote"
	h, err := c.Height(context.Background())
	if err != nil || h != 42 {
		t.Fatalf("Height = %d, %v; want 42", h, err)
	}
	q.reply = []byte("block bytes")
	b, err := c.Block(context.Background(), 7)
	if err != nil || string(b) != "block bytes" {
		t.Fatalf("Block = %q, %v", b, err)
	}
	want := []string{"GetChainInfo(fabvote)", "GetBlockByNumber(fabvote,7)"}
	if strings.Join(q.calls, " ") != strings.Join(want, " ") {
		t.Fatalf("qscc calls %q, want %q", q.calls, want)
	}
	q.reply = []byte{0xff}
	if _, err := c.Height(context.Background()); err == nil || !strings.Contains(err.Error(), "GetChainInfo: reply does not decode") {
		t.Fatalf("undecodable chain info: err %v", err)
	}
}

// qsccOrgFake is qsccFake that also records the org an evaluation was
// restricted to ("" for none).
type qsccOrgFake struct {
	qsccFake
	orgs []string
}

func (q *qsccOrgFake) evaluate(ctx context.Context, fn string, args [][]byte) ([]byte, error) {
	q.orgs = append(q.orgs, "")
	return q.qsccFake.evaluate(ctx, fn, args)
}

func (q *qsccOrgFake) evaluateInOrg(ctx context.Context, msp, fn string, args [][]byte) ([]byte, error) {
	q.orgs = append(q.orgs, msp)
	return q.qsccFake.evaluate(ctx, fn, args)
}

// TestQSCCInOwnOrg: the InOwnOrg reads send the same qscc calls as Height
// and Block, restricted to the gateway peer's org (where the plain ones are
// not), so that a block's transactions filter is that org's.
func TestQSCCInOwnOrg(t *testing.T) {
	info, err := proto.Marshal(&common.BlockchainInfo{Height: 42})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tc := range []struct {
		name, wantCall, wantOrg string
		read                    func(c *Conn) error
	}{
		{"Height", "GetChainInfo(fabvote)", "", func(c *Conn) error { _, err := c.Height(ctx); return err }},
		{"HeightInOwnOrg", "GetChainInfo(fabvote)", "Party1MSP", func(c *Conn) error { _, err := c.HeightInOwnOrg(ctx); return err }},
		{"Block", "GetBlockByNumber(fabvote,7)", "", func(c *Conn) error { _, err := c.Block(ctx, 7); return err }},
		{"BlockInOwnOrg", "GetBlockByNumber(fabvote,7)", "Party1MSP", func(c *Conn) error { _, err := c.BlockInOwnOrg(ctx, 7); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := &qsccOrgFake{qsccFake: qsccFake{reply: info}}
			c := testConn(nil, 1)
			c.qscc, c.channel, c.peerMSP = q, "fabvote", "Party1MSP"
			if err := tc.read(c); err != nil {
				t.Fatal(err)
			}
			if len(q.calls) != 1 || q.calls[0] != tc.wantCall || q.orgs[0] != tc.wantOrg {
				t.Fatalf("qscc calls %q in orgs %q, want %s in %q", q.calls, q.orgs, tc.wantCall, tc.wantOrg)
			}
		})
	}
}
