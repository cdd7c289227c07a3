package gateway

import (
	"testing"
	"time"

	"github.com/golang/protobuf/ptypes/timestamp"
	pb "github.com/hyperledger/fabric-protos-go/gateway"
	"github.com/hyperledger/fabric-protos-go/peer"
	"github.com/hyperledger/fabric/protoutil"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// fabvoteProposalAt is the test proposal with its channel header timestamp
// set to ts (nil: no timestamp), re-encoded and signed.
func fabvoteProposalAt(t *testing.T, ts *timestamp.Timestamp) *peer.SignedProposal {
	proposal := createProposal(t, testChannel, testChaincode, nil)
	header, err := protoutil.UnmarshalHeader(proposal.Header)
	require.NoError(t, err)
	chdr, err := protoutil.UnmarshalChannelHeader(header.ChannelHeader)
	require.NoError(t, err)
	chdr.Timestamp = ts
	header.ChannelHeader = protoutil.MarshalOrPanic(chdr)
	proposal.Header = protoutil.MarshalOrPanic(header)
	return &peer.SignedProposal{ProposalBytes: protoutil.MarshalOrPanic(proposal), Signature: []byte("my_signature")}
}

func fabvoteAt(d time.Duration) *timestamp.Timestamp {
	t := time.Now().Add(d)
	return &timestamp.Timestamp{Seconds: t.Unix(), Nanos: int32(t.Nanosecond())}
}

// TestFabvoteGatewayProposalTimeWindow: Evaluate and Endorse refuse a
// proposal dated outside the window before any endorser sees it
// (CVE-2024-45244); a current one passes.
func TestFabvoteGatewayProposalTimeWindow(t *testing.T) {
	stale := map[string]*timestamp.Timestamp{
		"an hour old":          fabvoteAt(-time.Hour),
		"an hour ahead":        fabvoteAt(time.Hour),
		"no timestamp":         nil,
		"the epoch (zero ts)":  {},
		"just past the window": fabvoteAt(-16 * time.Minute),
	}
	for name, ts := range stale {
		t.Run(name, func(t *testing.T) {
			test := prepareTest(t, &testDef{members: []networkMember{{"id1", "localhost:7051", "msp1", 5}}, localLedgerHeight: 5})
			test.server.SetProposalTimeWindow(15 * time.Minute)
			sp := fabvoteProposalAt(t, ts)

			_, err := test.server.Evaluate(test.ctx, &pb.EvaluateRequest{ProposedTransaction: sp})
			require.Equal(t, codes.InvalidArgument, status.Code(err), "evaluate: %v", err)
			require.Contains(t, err.Error(), "proposal")
			_, err = test.server.Endorse(test.ctx, &pb.EndorseRequest{ProposedTransaction: sp})
			require.Equal(t, codes.InvalidArgument, status.Code(err), "endorse: %v", err)
			require.Zero(t, test.localEndorser.ProcessProposalCallCount(), "the endorser saw a refused proposal")
		})
	}

	test := prepareTest(t, &testDef{members: []networkMember{{"id1", "localhost:7051", "msp1", 5}}, localLedgerHeight: 5})
	test.server.SetProposalTimeWindow(15 * time.Minute)
	_, err := test.server.Evaluate(test.ctx, &pb.EvaluateRequest{ProposedTransaction: fabvoteProposalAt(t, fabvoteAt(-time.Minute))})
	require.NoError(t, err)
	require.Equal(t, 1, test.localEndorser.ProcessProposalCallCount())
}

// The check reads the proposal itself: bytes that do not unpack are refused
// with InvalidArgument before the window is even considered.
func TestFabvoteGatewayTimeWindowBadProposal(t *testing.T) {
	test := prepareTest(t, &testDef{members: []networkMember{{"id1", "localhost:7051", "msp1", 5}}, localLedgerHeight: 5})
	test.server.SetProposalTimeWindow(15 * time.Minute)
	_, err := test.server.Evaluate(test.ctx, &pb.EvaluateRequest{ProposedTransaction: &peer.SignedProposal{ProposalBytes: []byte("jibberish")}})
	require.Equal(t, codes.InvalidArgument, status.Code(err))
}
