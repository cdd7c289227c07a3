package cluster_test

import (
	"testing"

	"github.com/hyperledger/fabric-protos-go/common"
	"github.com/hyperledger/fabric/orderer/common/cluster"
	"github.com/hyperledger/fabric/protoutil"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protowire"
)

// TestFabvoteVerifyBlockHashRejectsCrosslinkedBlock: an orderer replicating
// a chain refuses a block whose transactions were re-cut at other boundaries
// even though its data hash and hash chain still match (CVE-2023-46132).
func TestFabvoteVerifyBlockHashRejectsCrosslinkedBlock(t *testing.T) {
	chain := createBlockChain(10, 12)
	mid := chain[1]
	tx := mid.Data.Data[0]
	mid.Data.Data = [][]byte{tx, tx}
	mid.Header.DataHash = protoutil.BlockDataHash(mid.Data)
	assignHashes(chain)
	require.NoError(t, cluster.VerifyBlockHash(1, chain), "the original chain")

	// Cut after the second transaction's payload field: both pieces still
	// parse as envelopes, so only the framing check can tell.
	env, err := protoutil.UnmarshalEnvelope(tx)
	require.NoError(t, err)
	cut := 2*len(tx) - protowire.SizeTag(2) - protowire.SizeBytes(len(env.Signature))
	joined := append(append([]byte{}, tx...), tx...)
	mid.Data = &common.BlockData{Data: [][]byte{joined[:cut], joined[cut:]}}
	for _, piece := range mid.Data.Data {
		_, err := protoutil.UnmarshalEnvelope(piece)
		require.NoError(t, err, "each piece of the forged block parses")
	}
	require.Equal(t, mid.Header.DataHash, protoutil.BlockDataHash(mid.Data), "the re-cut block keeps its hash")
	require.ErrorContains(t, cluster.VerifyBlockHash(1, chain), "block (11) has a malformed transaction")
}
