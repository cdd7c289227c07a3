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
