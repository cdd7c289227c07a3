/*
SPDX-License-Identifier: Apache-2.0
*/

package chaincode_test

// fabvote O-III (patch 0009): Handler.Execute marks the simulation
// unfinished when the chaincode's final message does not come (timeout,
// stream terminated), never when it does; a cross-channel callee's
// simulator is locked at once and an unfinished callee leaves its caller
// unfinished.

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang/protobuf/proto"
	pb "github.com/hyperledger/fabric-protos-go/peer"
	"github.com/hyperledger/fabric/common/metrics/metricsfakes"
	"github.com/hyperledger/fabric/core/chaincode"
	"github.com/hyperledger/fabric/core/chaincode/mock"
	"github.com/hyperledger/fabric/core/common/ccprovider"
	"github.com/hyperledger/fabric/core/ledger"
	"github.com/pkg/errors"
	"github.com/stretchr/testify/require"
)

// attemptSimulator records the ledger.SimulationAttempt calls.
type attemptSimulator struct {
	*mock.TxSimulator
	unfinished, locked atomic.Bool
}

func (s *attemptSimulator) StaleSnapshot() bool { return false }
func (s *attemptSimulator) MarkUnfinished()     { s.unfinished.Store(true) }
func (s *attemptSimulator) Unfinished() bool    { return s.unfinished.Load() }
func (s *attemptSimulator) LockSnapshot() error { s.locked.Store(true); return nil }

func fabvoteHandler(send func(h *chaincode.Handler, msg *pb.ChaincodeMessage)) *chaincode.Handler {
	timeouts := &metricsfakes.Counter{}
	timeouts.WithReturns(timeouts)
	h := &chaincode.Handler{
		TXContexts:   chaincode.NewTransactionContexts(),
		LedgerGetter: &mock.LedgerGetter{},
		Metrics:      &chaincode.HandlerMetrics{ExecuteTimeouts: timeouts},
	}
	stream := &mock.ChaincodeStream{}
	stream.SendStub = func(msg *pb.ChaincodeMessage) error {
		send(h, msg)
		return nil
	}
	chaincode.SetHandlerChatStream(h, stream)
	chaincode.SetHandlerChaincodeID(h, "ballot:1.0")
	return h
}

func TestFabvoteExecuteMarksUnfinished(t *testing.T) {
	tests := []struct {
		name           string
		reply          bool // the chaincode sends COMPLETED
		closeStream    bool
		wantUnfinished bool
	}{
		{"chaincode completes", true, false, false},
		{"execute timeout", false, false, true},
		{"stream terminated", false, true, true},
	}
	for _, tc := range tests {
		tc := tc // the handler's send goroutine may outlive the subtest
		t.Run(tc.name, func(t *testing.T) {
			h := fabvoteHandler(func(h *chaincode.Handler, msg *pb.ChaincodeMessage) {
				if tc.reply {
					go h.Notify(&pb.ChaincodeMessage{Type: pb.ChaincodeMessage_COMPLETED, Txid: msg.Txid, ChannelId: msg.ChannelId})
				}
			})
			done := make(chan struct{})
			chaincode.SetStreamDoneChan(h, done)
			if tc.closeStream {
				close(done)
			}
			sim := &attemptSimulator{TxSimulator: &mock.TxSimulator{}}
			txParams := &ccprovider.TransactionParams{TxID: "tx1", ChannelID: "ch", TXSimulator: sim}
			msg := &pb.ChaincodeMessage{Type: pb.ChaincodeMessage_TRANSACTION, Txid: "tx1", ChannelId: "ch"}
			timeout := 50 * time.Millisecond
			if tc.closeStream {
				timeout = time.Hour
			}
			resp, err := h.Execute(txParams, "ballot", msg, timeout)
			require.Equal(t, tc.reply, err == nil && resp != nil, "response %v, error %v", resp, err)
			require.Equal(t, tc.wantUnfinished, sim.Unfinished())
		})
	}
}

func TestFabvoteCrossChannelCalleeLockedAndUnfinishedPropagates(t *testing.T) {
	for _, calleeUnfinished := range []bool{false, true} {
		callee := &attemptSimulator{TxSimulator: &mock.TxSimulator{}}
		caller := &attemptSimulator{TxSimulator: &mock.TxSimulator{}}
		lgr := &mock.PeerLedger{}
		lgr.NewTxSimulatorReturns(callee, nil)
		lgr.NewHistoryQueryExecutorReturns(&mock.HistoryQueryExecutor{}, nil)
		invoker := &mock.Invoker{}
		invoker.InvokeStub = func(txParams *ccprovider.TransactionParams, name string, _ *pb.ChaincodeInput) (*pb.ChaincodeMessage, error) {
			require.Same(t, callee, txParams.TXSimulator)
			require.True(t, callee.locked.Load(), "the callee's simulator must hold the lock before the callee runs")
			if calleeUnfinished {
				ledger.MarkUnfinished(txParams.TXSimulator)
				return nil, errors.New("timeout expired while executing transaction")
			}
			return &pb.ChaincodeMessage{Type: pb.ChaincodeMessage_COMPLETED}, nil
		}
		acl := &mock.ACLProvider{}
		h := fabvoteHandler(func(*chaincode.Handler, *pb.ChaincodeMessage) {})
		getter := &mock.LedgerGetter{}
		getter.GetLedgerReturns(lgr)
		h.LedgerGetter, h.Invoker, h.ACLProvider = getter, invoker, acl
		h.BuiltinSCCs = map[string]struct{}{}
		spec, err := proto.Marshal(&pb.ChaincodeSpec{ChaincodeId: &pb.ChaincodeID{Name: "registry/other-channel"}, Input: &pb.ChaincodeInput{}})
		require.NoError(t, err)
		txContext := &chaincode.TransactionContext{ChannelID: "ch", TXSimulator: caller, SignedProp: &pb.SignedProposal{}}
		_, err = h.HandleInvokeChaincode(&pb.ChaincodeMessage{Type: pb.ChaincodeMessage_INVOKE_CHAINCODE, Payload: spec, Txid: "tx1", ChannelId: "ch"}, txContext)
		require.Equal(t, calleeUnfinished, err != nil, "error %v", err)
		require.Equal(t, 1, invoker.InvokeCallCount())
		require.Equal(t, calleeUnfinished, caller.Unfinished(), "callee unfinished: %v", calleeUnfinished)
		require.Equal(t, 1, callee.DoneCallCount(), "the callee's simulator is released")
	}
}
