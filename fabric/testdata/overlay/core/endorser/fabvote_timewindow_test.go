/*
SPDX-License-Identifier: Apache-2.0
*/

package endorser_test

// fabvote (patch 0012): the endorser refuses a proposal dated outside the
// peer's time window (CVE-2024-45244), whichever way it arrived.

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/golang/protobuf/ptypes/timestamp"
	cb "github.com/hyperledger/fabric-protos-go/common"
	"github.com/hyperledger/fabric-protos-go/ledger/rwset"
	mspproto "github.com/hyperledger/fabric-protos-go/msp"
	pb "github.com/hyperledger/fabric-protos-go/peer"
	"github.com/hyperledger/fabric/common/metrics/metricsfakes"
	"github.com/hyperledger/fabric/core/chaincode/lifecycle"
	"github.com/hyperledger/fabric/core/endorser"
	"github.com/hyperledger/fabric/core/endorser/fake"
	"github.com/hyperledger/fabric/core/ledger"
	"github.com/hyperledger/fabric/fabvote/timewindow"
	"github.com/hyperledger/fabric/protoutil"
)

func timeWindowEndorser(window time.Duration) (*endorser.Endorser, *fake.Support, *metricsfakes.Counter) {
	counter := func() *metricsfakes.Counter {
		c := &metricsfakes.Counter{}
		c.WithReturns(c)
		return c
	}
	hist := &metricsfakes.Histogram{}
	hist.WithReturns(hist)
	ids := &fake.IdentityDeserializer{}
	ids.DeserializeIdentityReturns(&fake.Identity{}, nil)
	channels := &fake.ChannelFetcher{}
	channels.ChannelReturns(&endorser.Channel{IdentityDeserializer: ids})
	support := &fake.Support{}
	support.GetTransactionByIDReturns(nil, errNotFound{})
	support.ExecuteReturns(&pb.Response{Status: 200, Payload: []byte("ok")}, nil, nil)
	support.ChaincodeEndorsementInfoReturns(&lifecycle.ChaincodeEndorsementInfo{Version: "1", EndorsementPlugin: "escc"}, nil)
	support.EndorseWithPluginReturns(&pb.Endorsement{Endorser: []byte("peer"), Signature: []byte("sig")}, []byte("payload"), nil)
	sim := &fake.TxSimulator{}
	sim.GetTxSimulationResultsReturns(&ledger.TxSimulationResults{PubSimulationResults: &rwset.TxReadWriteSet{}}, nil)
	support.GetTxSimulatorReturns(sim, nil)
	support.GetHistoryQueryExecutorReturns(&fake.HistoryQueryExecutor{}, nil)
	invalid := counter()
	return &endorser.Endorser{
		LocalMSP:               ids,
		PrivateDataDistributor: &fake.PrivateDataDistributor{},
		Support:                support,
		ChannelFetcher:         channels,
		ProposalTimeWindow:     window,
		Metrics: &endorser.Metrics{
			ProposalDuration: hist, ProposalsReceived: counter(), SuccessfulProposals: counter(),
			ProposalValidationFailed: invalid, ProposalACLCheckFailed: counter(), InitFailed: counter(),
			EndorsementsFailed: counter(), DuplicateTxsFailure: counter(), SimulationFailure: counter(),
		},
	}, support, invalid
}

type errNotFound struct{}

func (errNotFound) Error() string { return "not found" }

// timedProposal is a well-formed signed proposal (valid TxID) whose channel
// header timestamp is ts (nil: none).
func timedProposal(t *testing.T, ts *timestamp.Timestamp) *pb.SignedProposal {
	t.Helper()
	creator := protoutil.MarshalOrPanic(&mspproto.SerializedIdentity{Mspid: "msp-id", IdBytes: []byte("voter")})
	spec := &pb.ChaincodeInvocationSpec{ChaincodeSpec: &pb.ChaincodeSpec{
		ChaincodeId: &pb.ChaincodeID{Name: "ballot"},
		Input:       &pb.ChaincodeInput{Args: [][]byte{[]byte("Cast")}},
	}}
	prop, _, err := protoutil.CreateChaincodeProposalWithTransient(cb.HeaderType_ENDORSER_TRANSACTION, "channel-id", spec, creator, nil)
	if err != nil {
		t.Fatal(err)
	}
	hdr, err := protoutil.UnmarshalHeader(prop.Header)
	if err != nil {
		t.Fatal(err)
	}
	chdr, err := protoutil.UnmarshalChannelHeader(hdr.ChannelHeader)
	if err != nil {
		t.Fatal(err)
	}
	chdr.Timestamp = ts
	hdr.ChannelHeader = protoutil.MarshalOrPanic(chdr)
	prop.Header = protoutil.MarshalOrPanic(hdr)
	return &pb.SignedProposal{ProposalBytes: protoutil.MarshalOrPanic(prop), Signature: []byte("signature")}
}

func tsAt(d time.Duration) *timestamp.Timestamp {
	t := time.Now().Add(d)
	return &timestamp.Timestamp{Seconds: t.Unix(), Nanos: int32(t.Nanosecond())}
}

func TestFabvoteEndorserProposalTimeWindow(t *testing.T) {
	cases := []struct {
		name string
		ts   *timestamp.Timestamp
		ok   bool
	}{
		{"current", tsAt(0), true},
		{"ten minutes old", tsAt(-10 * time.Minute), true},
		{"ten minutes ahead", tsAt(10 * time.Minute), true},
		{"an hour old", tsAt(-time.Hour), false},
		{"an hour ahead", tsAt(time.Hour), false},
		{"sixteen minutes old", tsAt(-16 * time.Minute), false},
		{"no timestamp", nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, support, invalid := timeWindowEndorser(15 * time.Minute)
			resp, err := e.ProcessProposal(context.Background(), timedProposal(t, c.ts))
			if c.ok {
				if err != nil || resp.Response.Status != 200 {
					t.Fatalf("refused: %v %+v", err, resp.Response)
				}
				return
			}
			if !errors.Is(err, timewindow.ErrOutside) && !errors.Is(err, timewindow.ErrNoTimestamp) {
				t.Fatalf("proposal dated %v: got %v, want a time window error", c.ts, err)
			}
			if resp.Response.Status != 500 {
				t.Fatalf("status %d for a refused proposal", resp.Response.Status)
			}
			if support.ExecuteCallCount() != 0 || support.GetTxSimulatorCallCount() != 0 {
				t.Fatal("a refused proposal reached the chaincode")
			}
			if invalid.AddCallCount() != 1 {
				t.Fatalf("ProposalValidationFailed counted %d times", invalid.AddCallCount())
			}
		})
	}
}
