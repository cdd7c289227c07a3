/*
SPDX-License-Identifier: Apache-2.0
*/

package chaincode_test

// fabvote (patch 0015): a panic while the peer serves a chaincode's ledger
// request (a range query whose iterator the execute timeout has closed)
// fails that request instead of crashing the peer.

import (
	"bytes"
	"testing"
	"time"

	pb "github.com/hyperledger/fabric-protos-go/peer"
	"github.com/hyperledger/fabric/common/metrics/metricsfakes"
	"github.com/hyperledger/fabric/core/chaincode"
	"github.com/hyperledger/fabric/core/chaincode/fake"
	"github.com/hyperledger/fabric/core/chaincode/mock"
)

// closedIterator stands for a state iterator released by the execute
// timeout while the handler goroutine still reads from it.
type closedIterator struct{ next *pb.ChaincodeMessage }

func (it *closedIterator) Next() *pb.ChaincodeMessage { return it.next }

func TestFabvoteHandleTransactionRecoversPanic(t *testing.T) {
	counter := func() *metricsfakes.Counter {
		c := &metricsfakes.Counter{}
		c.WithReturns(c)
		return c
	}
	completed := counter()
	duration := &metricsfakes.Histogram{}
	duration.WithReturns(duration)
	contexts := &fake.ContextRegistry{}
	contexts.GetReturns(&chaincode.TransactionContext{TXSimulator: &mock.TxSimulator{}})
	active := chaincode.NewActiveTransactions()
	stream := &mock.ChaincodeStream{}
	handler := &chaincode.Handler{
		ActiveTransactions: active,
		TXContexts:         contexts,
		Metrics: &chaincode.HandlerMetrics{
			ShimRequestsReceived: counter(), ShimRequestsCompleted: completed,
			ShimRequestDuration: duration, ExecuteTimeouts: counter(),
		},
	}
	chaincode.SetHandlerChatStream(handler, stream)
	chaincode.SetHandlerChaincodeID(handler, "ballot:1.0")

	msg := &pb.ChaincodeMessage{Type: pb.ChaincodeMessage_QUERY_STATE_NEXT, Txid: "tx-1", ChannelId: "election"}
	handler.HandleTransaction(msg, func(*pb.ChaincodeMessage, *chaincode.TransactionContext) (*pb.ChaincodeMessage, error) {
		var it *closedIterator
		return it.Next(), nil // nil pointer dereference, as with a closed LevelDB iterator
	})

	deadline := time.Now().Add(5 * time.Second)
	for stream.SendCallCount() == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if stream.SendCallCount() != 1 {
		t.Fatalf("%d messages sent to the chaincode, want 1", stream.SendCallCount())
	}
	resp := stream.SendArgsForCall(0)
	if resp.Type != pb.ChaincodeMessage_ERROR || resp.Txid != "tx-1" || resp.ChannelId != "election" {
		t.Fatalf("response %v, want an ERROR for tx-1 on election", resp)
	}
	want := "QUERY_STATE_NEXT failed: transaction ID: tx-1: QUERY_STATE_NEXT panicked"
	if string(resp.Payload) != want {
		t.Fatalf("payload %q, want %q", resp.Payload, want)
	}
	if bytes.Contains(resp.Payload, []byte("nil pointer")) {
		t.Fatal("the panic value leaked into the response the chaincode sees")
	}
	if !active.Add("election", "tx-1") {
		t.Fatal("the transaction is still registered as active")
	}
	if completed.AddCallCount() != 1 {
		t.Fatalf("ShimRequestsCompleted counted %d times", completed.AddCallCount())
	}
	if labels := completed.WithArgsForCall(0); labels[len(labels)-1] != "false" {
		t.Fatalf("completion labels %v, want success=false", labels)
	}
}
