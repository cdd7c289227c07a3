/*
SPDX-License-Identifier: Apache-2.0
*/

package endorser_test

// fabvote O-III (patches 0006, 0009) with the real ledger: simulators come
// from a LevelDB channel ledger whose commit gate runs in the mode make
// fabric-test sets (FABVOTE_COMMIT_GATE), and a block commits on that
// ledger while the "chaincode" (Support.Execute) runs.

import (
	"errors"
	"testing"
	"time"

	"github.com/golang/protobuf/proto"
	pb "github.com/hyperledger/fabric-protos-go/peer"
	"github.com/hyperledger/fabric/common/ledger/testutil"
	"github.com/hyperledger/fabric/core/common/ccprovider"
	"github.com/hyperledger/fabric/core/ledger"
	"github.com/hyperledger/fabric/core/ledger/kvledger/txmgmt/txmgr"
	"github.com/hyperledger/fabric/core/ledger/ledgermgmt"
	"github.com/hyperledger/fabric/core/ledger/ledgermgmt/ledgermgmttest"
	"github.com/hyperledger/fabric/fabvote/lockless"
	"github.com/stretchr/testify/require"
)

type fabvoteLedger struct {
	t   *testing.T
	lgr ledger.PeerLedger
	bg  *testutil.BlockGenerator
}

func newFabvoteLedger(t *testing.T) *fabvoteLedger {
	mgr := ledgermgmt.NewLedgerMgr(ledgermgmttest.NewInitializer(t.TempDir()))
	t.Cleanup(mgr.Close)
	bg, gb := testutil.NewBlockGenerator(t, "channel-id", false)
	lgr, err := mgr.CreateLedger("channel-id", gb)
	require.NoError(t, err)
	l := &fabvoteLedger{t: t, lgr: lgr, bg: bg}
	l.write("seed", "k1", "k2")
	return l
}

// write commits a block with one transaction writing keys of "ballot".
func (l *fabvoteLedger) write(txid string, keys ...string) {
	sim, err := l.lgr.NewTxSimulator(txid)
	require.NoError(l.t, err)
	for _, k := range keys {
		require.NoError(l.t, sim.SetState("ballot", k, []byte(txid)))
	}
	sim.Done()
	res, err := sim.GetTxSimulationResults()
	require.NoError(l.t, err)
	pub, err := proto.Marshal(res.PubSimulationResults)
	require.NoError(l.t, err)
	require.NoError(l.t, l.lgr.CommitLegacy(&ledger.BlockAndPvtData{Block: l.bg.NextBlock([][]byte{pub})}, &ledger.CommitOptions{}))
}

// chaincode reads k1, lets a block that writes k2 commit, reads k2 and
// writes k1: a read of two keys overlapping a commit. A failed read becomes
// an error response, as a chaincode turns it into shim.Error. The first
// execution's commit runs concurrently; in mode locked it waits for the
// simulation (and this returns without waiting for it).
func (l *fabvoteLedger) chaincode(commits chan<- struct{}, execs *int) func(*ccprovider.TransactionParams, string, *pb.ChaincodeInput) (*pb.Response, *pb.ChaincodeEvent, error) {
	return func(txParams *ccprovider.TransactionParams, _ string, _ *pb.ChaincodeInput) (*pb.Response, *pb.ChaincodeEvent, error) {
		*execs++
		sim := txParams.TXSimulator
		if _, err := sim.GetState("ballot", "k1"); err != nil {
			return &pb.Response{Status: 500, Message: err.Error()}, nil, nil
		}
		if *execs == 1 {
			done := make(chan struct{})
			go func() {
				l.write("concurrent", "k2")
				close(done)
				commits <- struct{}{}
			}()
			if txmgr.CommitGateMode() == lockless.Lockless {
				select {
				case <-done:
				case <-time.After(30 * time.Second):
					l.t.Error("a commit waited for a lock-free simulation")
				}
			}
		}
		if _, err := sim.GetState("ballot", "k2"); err != nil {
			return &pb.Response{Status: 500, Message: err.Error()}, nil, nil
		}
		if err := sim.SetState("ballot", "k1", []byte("voted")); err != nil {
			return nil, nil, err
		}
		return &pb.Response{Status: 200, Payload: []byte("ok")}, nil, nil
	}
}

func TestFabvoteEndorserRetryRealLedger(t *testing.T) {
	l := newFabvoteLedger(t)
	e, support := fabvoteEndorser()
	support.GetTxSimulatorStub = func(_, txid string) (ledger.TxSimulator, error) { return l.lgr.NewTxSimulator(txid) }
	commits := make(chan struct{}, 1)
	var execs int
	support.ExecuteStub = l.chaincode(commits, &execs)

	resp, err := e.ProcessProposalSuccessfullyOrError(fabvoteProposal(t))
	require.NoError(t, err)
	require.NotNil(t, resp.Endorsement, "response %v", resp)
	require.EqualValues(t, 200, resp.Response.Status)
	<-commits
	want := 1 // locked: the simulation held the lock; the commit waited for it
	if txmgr.CommitGateMode() == lockless.Lockless {
		want = 2 // lockless: stale, then a locked retry
	}
	require.Equal(t, want, execs, "chaincode executions")
	require.Equal(t, want, support.GetTxSimulatorCallCount())
}

// An attempt whose chaincode execution timed out is not run again, stale
// or not: its chaincode may still be running under the same txid.
func TestFabvoteEndorserNoRetryAfterTimeoutRealLedger(t *testing.T) {
	if txmgr.CommitGateMode() != lockless.Lockless {
		t.Skip("a simulation goes stale only with FABVOTE_COMMIT_GATE=lockless")
	}
	l := newFabvoteLedger(t)
	e, support := fabvoteEndorser()
	support.GetTxSimulatorStub = func(_, txid string) (ledger.TxSimulator, error) { return l.lgr.NewTxSimulator(txid) }
	commits := make(chan struct{}, 1)
	var execs int
	cc := l.chaincode(commits, &execs)
	support.ExecuteStub = func(txParams *ccprovider.TransactionParams, name string, in *pb.ChaincodeInput) (*pb.Response, *pb.ChaincodeEvent, error) {
		_, _, _ = cc(txParams, name, in) // goes stale
		// What Handler.Execute does when the chaincode's reply does not come.
		ledger.MarkUnfinished(txParams.TXSimulator)
		return nil, nil, errors.New("timeout expired while executing transaction")
	}
	resp, err := e.ProcessProposalSuccessfullyOrError(fabvoteProposal(t))
	<-commits
	require.Equal(t, 1, execs, "an unfinished attempt must not be retried")
	require.Equal(t, 1, support.GetTxSimulatorCallCount())
	require.True(t, err != nil || resp.Endorsement == nil, "no endorsement from a timed-out attempt")
}
