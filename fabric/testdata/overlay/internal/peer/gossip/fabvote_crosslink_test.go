package gossip

import (
	"testing"

	"github.com/hyperledger/fabric-protos-go/common"
	"github.com/hyperledger/fabric/bccsp/sw"
	"github.com/hyperledger/fabric/common/policies"
	"github.com/hyperledger/fabric/internal/peer/gossip/mocks"
	"github.com/hyperledger/fabric/msp"
	"github.com/hyperledger/fabric/protoutil"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protowire"
)

// TestFabvoteVerifyBlockRejectsCrosslinkedBlock: a block whose transactions
// are re-cut (same data hash, same header, same orderer signature) is
// refused by the peer's block verification, which gossip and the deliver
// client both use (CVE-2023-46132).
func TestFabvoteVerifyBlockRejectsCrosslinkedBlock(t *testing.T) {
	signer := &mocks.SignerSerializer{}
	signer.SerializeReturns([]byte("Alice"), nil)
	deserializer := &mocks.IdentityDeserializer{Identity: []byte("Alice"), Msg: []byte("msg1"), Mock: mock.Mock{}}
	pmg := &mocks.ChannelPolicyManagerGetterWithManager{
		Managers: map[string]policies.Manager{
			"C": &mocks.ChannelPolicyManager{Policy: &mocks.Policy{Deserializer: deserializer}},
		},
	}
	cryptoProvider, err := sw.NewDefaultSecurityLevelWithKeystore(sw.NewDummyKeyStore())
	require.NoError(t, err)
	mcs := NewMCS(pmg, signer, &mocks.DeserializersManager{
		LocalDeserializer:    deserializer,
		ChannelDeserializers: map[string]msp.IdentityDeserializer{"C": deserializer},
	}, cryptoProvider)

	block, msg := mockBlock(t, "C", 42, signer, nil)
	tx := block.Data.Data[0]
	block.Data.Data = [][]byte{tx, tx}
	block.Header.DataHash = protoutil.BlockDataHash(block.Data)
	block, msg = resign(t, block, signer)
	deserializer.Msg = msg
	require.NoError(t, mcs.VerifyBlock([]byte("C"), 42, block), "the original block")

	// Cut after the second transaction's payload field: both pieces still
	// parse as envelopes (the first with a repeated payload field), so only
	// the framing check can tell.
	cut := len(tx) + len(tx) - fabvoteSignatureFieldLen(t, tx)
	joined := append(append([]byte{}, tx...), tx...)
	forged := &common.Block{Header: block.Header, Metadata: block.Metadata,
		Data: &common.BlockData{Data: [][]byte{joined[:cut], joined[cut:]}}}
	for _, piece := range forged.Data.Data {
		_, err := protoutil.UnmarshalEnvelope(piece)
		require.NoError(t, err, "each piece of the forged block parses")
	}
	require.Equal(t, block.Header.DataHash, protoutil.BlockDataHash(forged.Data))
	err = mcs.VerifyBlock([]byte("C"), 42, forged)
	require.ErrorContains(t, err, "malformed transaction")
}

// fabvoteSignatureFieldLen is the length of the encoded signature field
// (tag, length, bytes) that ends a canonical envelope.
func fabvoteSignatureFieldLen(t *testing.T, raw []byte) int {
	env, err := protoutil.UnmarshalEnvelope(raw)
	require.NoError(t, err)
	return protowire.SizeTag(2) + protowire.SizeBytes(len(env.Signature))
}

// resign replaces the block's signature metadata with one over its current header.
func resign(t *testing.T, block *common.Block, signer *mocks.SignerSerializer) (*common.Block, []byte) {
	shdr, err := protoutil.NewSignatureHeader(signer)
	require.NoError(t, err)
	sig := &common.MetadataSignature{SignatureHeader: protoutil.MarshalOrPanic(shdr)}
	msg := append(append([]byte{}, sig.SignatureHeader...), protoutil.BlockHeaderBytes(block.Header)...)
	signer.SignReturns(msg, nil)
	sig.Signature, err = signer.Sign(msg)
	require.NoError(t, err)
	block.Metadata.Metadata[common.BlockMetadataIndex_SIGNATURES] = protoutil.MarshalOrPanic(&common.Metadata{
		Signatures: []*common.MetadataSignature{sig},
	})
	return block, msg
}
