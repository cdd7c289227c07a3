/*
SPDX-License-Identifier: Apache-2.0
*/

package endorser_test

// fabvote O-III (patches 0006, 0009): the endorser simulates a proposal once
// more when the ledger reports that a commit overlapped its lock-free
// simulation and the first attempt fully ended, and only then.
// fabvote_retry_ledger_test.go does the same with a real ledger.

import (
	"errors"
	"testing"

	cb "github.com/hyperledger/fabric-protos-go/common"
	"github.com/hyperledger/fabric-protos-go/ledger/rwset"
	mspproto "github.com/hyperledger/fabric-protos-go/msp"
	pb "github.com/hyperledger/fabric-protos-go/peer"
	"github.com/hyperledger/fabric/common/metrics/metricsfakes"
	"github.com/hyperledger/fabric/core/chaincode/lifecycle"
	"github.com/hyperledger/fabric/core/endorser"
	"github.com/hyperledger/fabric/core/endorser/fake"
	"github.com/hyperledger/fabric/core/ledger"
	"github.com/hyperledger/fabric/protoutil"
)

// staleSimulator is a simulator whose lock-free snapshot went stale.
type staleSimulator struct {
	*fake.TxSimulator
	stale bool
}

func (s *staleSimulator) StaleSnapshot() bool { return s.stale }
func (s *staleSimulator) MarkUnfinished()     {}
func (s *staleSimulator) Unfinished() bool    { return false }
func (s *staleSimulator) LockSnapshot() error { return nil }

func fabvoteEndorser(sims ...ledger.TxSimulator) (*endorser.Endorser, *fake.Support) {
	counter := func() *metricsfakes.Counter {
		c := &metricsfakes.Counter{}
		c.WithReturns(c)
		return c
	}
	hist := &metricsfakes.Histogram{}
	hist.WithReturns(hist)
	support := &fake.Support{}
	support.ExecuteReturns(&pb.Response{Status: 200, Payload: []byte("ok")}, nil, nil)
	support.ChaincodeEndorsementInfoReturns(&lifecycle.ChaincodeEndorsementInfo{Version: "1", EndorsementPlugin: "escc"}, nil)
	support.EndorseWithPluginReturns(&pb.Endorsement{Endorser: []byte("peer"), Signature: []byte("sig")}, []byte("payload"), nil)
	support.GetHistoryQueryExecutorReturns(&fake.HistoryQueryExecutor{}, nil)
	for i, s := range sims {
		support.GetTxSimulatorReturnsOnCall(i, s, nil)
	}
	return &endorser.Endorser{
		LocalMSP:               &fake.IdentityDeserializer{},
		PrivateDataDistributor: &fake.PrivateDataDistributor{},
		Support:                support,
		ChannelFetcher:         &fake.ChannelFetcher{},
		Metrics: &endorser.Metrics{
			ProposalDuration: hist, ProposalsReceived: counter(), SuccessfulProposals: counter(),
			ProposalValidationFailed: counter(), ProposalACLCheckFailed: counter(), InitFailed: counter(),
			EndorsementsFailed: counter(), DuplicateTxsFailure: counter(), SimulationFailure: counter(),
		},
	}, support
}

func fabvoteProposal(t *testing.T) *endorser.UnpackedProposal {
	t.Helper()
	sp := &pb.SignedProposal{
		ProposalBytes: protoutil.MarshalOrPanic(&pb.Proposal{
			Header: protoutil.MarshalOrPanic(&cb.Header{
				ChannelHeader: protoutil.MarshalOrPanic(&cb.ChannelHeader{
					Type:      int32(cb.HeaderType_ENDORSER_TRANSACTION),
					ChannelId: "channel-id",
					Extension: protoutil.MarshalOrPanic(&pb.ChaincodeHeaderExtension{
						ChaincodeId: &pb.ChaincodeID{Name: "ballot"},
					}),
					TxId: "6f142589e4ef6a1e62c9c816e2074f70baa9f7cf67c2f0c287d4ef907d6d2015",
				}),
				SignatureHeader: protoutil.MarshalOrPanic(&cb.SignatureHeader{
					Creator: protoutil.MarshalOrPanic(&mspproto.SerializedIdentity{Mspid: "msp-id"}),
					Nonce:   []byte("nonce"),
				}),
			}),
			Payload: protoutil.MarshalOrPanic(&pb.ChaincodeProposalPayload{
				Input: protoutil.MarshalOrPanic(&pb.ChaincodeInvocationSpec{
					ChaincodeSpec: &pb.ChaincodeSpec{Input: &pb.ChaincodeInput{Args: [][]byte{[]byte("cast")}}},
				}),
			}),
		}),
		Signature: []byte("signature"),
	}
	up, err := endorser.UnpackProposal(sp)
	if err != nil {
		t.Fatal(err)
	}
	return up
}

func simulator(resultsErr error, stale bool) *staleSimulator {
	f := &fake.TxSimulator{}
	if resultsErr != nil {
		f.GetTxSimulationResultsReturns(nil, resultsErr)
	} else {
		f.GetTxSimulationResultsReturns(&ledger.TxSimulationResults{PubSimulationResults: &rwset.TxReadWriteSet{}}, nil)
	}
	return &staleSimulator{TxSimulator: f, stale: stale}
}

func TestFabvoteEndorserRetry(t *testing.T) {
	staleErr := errors.New("lockless: the simulation overlapped a ledger commit and must be retried")
	tests := []struct {
		name         string
		sims         []ledger.TxSimulator
		wantSims     int
		wantEndorsed bool
	}{
		{"stale then fine: simulated twice, endorsed", []ledger.TxSimulator{simulator(staleErr, true), simulator(nil, false)}, 2, true},
		{"fine: simulated once", []ledger.TxSimulator{simulator(nil, false)}, 1, true},
		{"failure that is not stale: no retry", []ledger.TxSimulator{simulator(errors.New("disk on fire"), false), simulator(nil, false)}, 1, false},
		{"stale twice: one retry only", []ledger.TxSimulator{simulator(staleErr, true), simulator(staleErr, true), simulator(nil, false)}, 2, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, support := fabvoteEndorser(tt.sims...)
			resp, err := e.ProcessProposalSuccessfullyOrError(fabvoteProposal(t))
			if got := support.GetTxSimulatorCallCount(); got != tt.wantSims {
				t.Fatalf("simulators created: %d, want %d", got, tt.wantSims)
			}
			if got := support.ExecuteCallCount(); got != tt.wantSims {
				t.Fatalf("chaincode executions: %d, want %d", got, tt.wantSims)
			}
			endorsed := err == nil && resp != nil && resp.Endorsement != nil
			if endorsed != tt.wantEndorsed {
				t.Fatalf("endorsed = %v (response %v, error %v), want %v", endorsed, resp, err, tt.wantEndorsed)
			}
			for i := 0; i < tt.wantSims; i++ {
				if tt.sims[i].(*staleSimulator).DoneCallCount() == 0 {
					t.Fatalf("simulator %d was not released", i)
				}
			}
		})
	}
}
