package protoutil_test

import (
	"bytes"
	"testing"

	cb "github.com/hyperledger/fabric-protos-go/common"
	"github.com/hyperledger/fabric/protoutil"
	"github.com/stretchr/testify/require"
)

func fabvoteTx(t *testing.T, typ cb.HeaderType, data string, sig []byte) []byte {
	t.Helper()
	payload := protoutil.MarshalOrPanic(&cb.Payload{
		Header: &cb.Header{ChannelHeader: protoutil.MarshalOrPanic(&cb.ChannelHeader{Type: int32(typ), ChannelId: "ch"})},
		Data:   []byte(data),
	})
	return protoutil.MarshalOrPanic(&cb.Envelope{Payload: payload, Signature: sig})
}

// TestFabvoteCheckTxFramingCrosslink: a block re-cut at other boundaries has
// the same data hash as the original (the CVE-2023-46132 attack), and
// CheckTxFraming accepts only the original.
func TestFabvoteCheckTxFramingCrosslink(t *testing.T) {
	a := fabvoteTx(t, cb.HeaderType_ENDORSER_TRANSACTION, "ballot-a", []byte("sig-a"))
	b := fabvoteTx(t, cb.HeaderType_ENDORSER_TRANSACTION, "ballot-b", []byte("sig-b"))
	block := protoutil.NewBlock(5, []byte("prev"))
	block.Data.Data = [][]byte{a, b}
	require.NoError(t, protoutil.CheckTxFraming(block))

	joined := append(append([]byte{}, a...), b...)
	for cut := 1; cut < len(joined); cut++ {
		if cut == len(a) {
			continue
		}
		recut := &cb.BlockData{Data: [][]byte{joined[:cut], joined[cut:]}}
		require.True(t, bytes.Equal(protoutil.BlockDataHash(block.Data), protoutil.BlockDataHash(recut)),
			"the re-cut block has the original data hash")
		forged := protoutil.NewBlock(5, []byte("prev"))
		forged.Data = recut
		require.Error(t, protoutil.CheckTxFraming(forged), "re-cut at %d accepted", cut)
	}
	merged := protoutil.NewBlock(5, []byte("prev"))
	merged.Data.Data = [][]byte{joined}
	require.ErrorContains(t, protoutil.CheckTxFraming(merged), "transaction 0")
}

func TestFabvoteCheckTxFramingConfigBlocks(t *testing.T) {
	// The genesis block's configuration envelope carries no signature.
	genesis := protoutil.NewBlock(0, nil)
	genesis.Data.Data = [][]byte{fabvoteTx(t, cb.HeaderType_CONFIG, "config", nil)}
	require.NoError(t, protoutil.CheckTxFraming(genesis))

	// The exemption holds only for a block whose sole transaction is a
	// configuration: one more transaction and the unsigned envelope is refused.
	two := protoutil.NewBlock(3, nil)
	two.Data.Data = [][]byte{
		fabvoteTx(t, cb.HeaderType_CONFIG, "config", nil),
		fabvoteTx(t, cb.HeaderType_ENDORSER_TRANSACTION, "tx", []byte("s")),
	}
	require.ErrorContains(t, protoutil.CheckTxFraming(two), "transaction 0: signature: missing")

	unsigned := protoutil.NewBlock(4, nil)
	unsigned.Data.Data = [][]byte{fabvoteTx(t, cb.HeaderType_ENDORSER_TRANSACTION, "tx", nil)}
	require.ErrorContains(t, protoutil.CheckTxFraming(unsigned), "signature: missing")

	require.Error(t, protoutil.CheckTxFraming(nil))
	require.Error(t, protoutil.CheckTxFraming(&cb.Block{}))
	empty := protoutil.NewBlock(6, nil)
	require.ErrorContains(t, protoutil.CheckTxFraming(empty), "no transactions")
}
