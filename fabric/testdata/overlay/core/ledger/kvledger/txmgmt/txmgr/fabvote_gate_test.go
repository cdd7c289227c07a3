/*
SPDX-License-Identifier: Apache-2.0
*/

package txmgr

// fabvote O-III: the commit gate as the transaction manager uses it
// (patches 0004 and 0005), on the LevelDB environment.

import (
	"os"
	"strings"
	"testing"

	"github.com/hyperledger/fabric-protos-go/ledger/rwset/kvrwset"
	"github.com/hyperledger/fabric/core/ledger"
	"github.com/hyperledger/fabric/core/ledger/kvledger/txmgmt/rwsetutil"
	"github.com/hyperledger/fabric/fabvote/lockless"
	"github.com/stretchr/testify/require"
)

const fabvoteLCKey = "namespaces/fields/ns/Sequence"

// fabvoteGateEnv returns a transaction manager whose gate is in mode m,
// with ns/k1, ns/k2 and _lifecycle's sequence key committed.
func fabvoteGateEnv(t *testing.T, m lockless.Mode) (*LockBasedTxMgr, *txMgrTestHelper) {
	env := testEnvsMap[levelDBtestEnvName]
	env.init(t, "fabvote-gate-"+strings.ToLower(t.Name()), nil)
	t.Cleanup(env.cleanup)
	txMgr := env.getTxMgr()
	txMgr.commitGate = lockless.New(m)
	h := newTxMgrTestHelper(t, txMgr)
	fabvoteWrite(t, txMgr, h, "seed", map[string]string{"ns/k1": "v1", "ns/k2": "v1", "_lifecycle/" + fabvoteLCKey: "1"})
	return txMgr, h
}

// fabvoteWrite commits one transaction writing kvs ("ns/key" -> value).
func fabvoteWrite(t *testing.T, txMgr *LockBasedTxMgr, h *txMgrTestHelper, txid string, kvs map[string]string) {
	t.Helper()
	sim, err := txMgr.NewTxSimulator(txid)
	require.NoError(t, err)
	for nk, v := range kvs {
		ns, key, _ := strings.Cut(nk, "/")
		require.NoError(t, sim.SetState(ns, key, []byte(v)))
	}
	sim.Done()
	res, err := sim.GetTxSimulationResults()
	require.NoError(t, err)
	h.validateAndCommitRWSet(res.PubSimulationResults)
}

func fabvoteReads(t *testing.T, sim ledger.TxSimulator) map[string]*kvrwset.Version {
	t.Helper()
	res, err := sim.GetTxSimulationResults()
	require.NoError(t, err)
	rws, err := rwsetutil.TxRwSetFromProtoMsg(res.PubSimulationResults)
	require.NoError(t, err)
	reads := map[string]*kvrwset.Version{}
	for _, ns := range rws.NsRwSets {
		for _, r := range ns.KvRwSet.Reads {
			reads[ns.NameSpace+"/"+r.Key] = r.Version
		}
	}
	return reads
}

func TestFabvoteGateModeFollowsEnvironment(t *testing.T) {
	env := testEnvsMap[levelDBtestEnvName]
	env.init(t, "fabvote-gate-mode", nil)
	defer env.cleanup()
	want := lockless.Locked
	if strings.TrimSpace(os.Getenv(lockless.EnvVar)) == "lockless" {
		want = lockless.Lockless
	}
	require.Equal(t, want, env.getTxMgr().commitGate.Mode())
}

// A simulation that reads one key (plus the peer's own lookups) proceeds
// while a commit holds the gate.
func TestFabvoteGateSingleKeyDuringCommit(t *testing.T) {
	txMgr, _ := fabvoteGateEnv(t, lockless.Lockless)
	txMgr.commitGate.LockCommit()
	sim, err := txMgr.NewTxSimulator("during-commit")
	require.NoError(t, err)
	seq, err := sim.(ledger.PeerOnlyReader).GetStatePeerOnly("_lifecycle", fabvoteLCKey)
	require.NoError(t, err)
	require.Equal(t, []byte("1"), seq)
	v, err := sim.GetState("ns", "k1")
	require.NoError(t, err)
	require.Equal(t, []byte("v1"), v)
	require.NoError(t, sim.SetState("ns", "k1", []byte("v2")))
	sim.Done()
	reads := fabvoteReads(t, sim)
	require.Contains(t, reads, "ns/k1")
	require.Contains(t, reads, "_lifecycle/"+fabvoteLCKey, "the peer-only read must stay in the read set for MVCC")
	txMgr.commitGate.UnlockCommit()
}

// A simulation that reads a second key after a commit overlapped its first
// read fails with a retryable error; the retry of the same txid is locked.
func TestFabvoteGateMultiKeyOverlappingCommit(t *testing.T) {
	txMgr, h := fabvoteGateEnv(t, lockless.Lockless)
	sim, err := txMgr.NewTxSimulator("overlapped")
	require.NoError(t, err)
	v, err := sim.GetState("ns", "k1")
	require.NoError(t, err)
	require.Equal(t, []byte("v1"), v)

	fabvoteWrite(t, txMgr, h, "writer", map[string]string{"ns/k1": "v2", "ns/k2": "v2"})

	_, err = sim.GetState("ns", "k2")
	require.Error(t, err)
	require.True(t, lockless.IsRetryable(err), "error %v is not retryable", err)
	require.True(t, sim.(interface{ StaleSnapshot() bool }).StaleSnapshot())
	_, err = sim.GetTxSimulationResults()
	require.True(t, lockless.IsRetryable(err), "GetTxSimulationResults: %v", err)
	sim.Done()

	escalations := txMgr.commitGate.Stats().Escalations
	retry, err := txMgr.NewTxSimulator("overlapped")
	require.NoError(t, err)
	for _, k := range []string{"k1", "k2"} {
		v, err := retry.GetState("ns", k)
		require.NoError(t, err)
		require.Equal(t, []byte("v2"), v)
	}
	retry.Done()
	require.Equal(t, escalations, txMgr.commitGate.Stats().Escalations, "the retry must run locked from the start")

	// A new transaction reading two keys escalates normally.
	fresh, err := txMgr.NewTxSimulator("fresh")
	require.NoError(t, err)
	_, err = fresh.GetState("ns", "k1")
	require.NoError(t, err)
	_, err = fresh.GetState("ns", "k2")
	require.NoError(t, err)
	fresh.Done()
	require.Equal(t, escalations+1, txMgr.commitGate.Stats().Escalations)
}

// The peer's reads before the chaincode's first read do not count: a commit
// after them does not make the chaincode's single read escalate, and a
// stale one is still caught by MVCC validation.
func TestFabvotePeerOnlyReadsDoNotCount(t *testing.T) {
	txMgr, h := fabvoteGateEnv(t, lockless.Lockless)
	before := txMgr.commitGate.Stats().Escalations

	sim, err := txMgr.NewTxSimulator("ballot")
	require.NoError(t, err)
	for i := 0; i < 2; i++ { // the endorser's lookup, then CheckInvocation's
		_, err = sim.(ledger.PeerOnlyReader).GetStatePeerOnly("_lifecycle", fabvoteLCKey)
		require.NoError(t, err)
	}
	fabvoteWrite(t, txMgr, h, "other", map[string]string{"ns/k2": "v2"})
	v, err := sim.GetState("ns", "k1")
	require.NoError(t, err, "the chaincode's single read must not escalate")
	require.Equal(t, []byte("v1"), v)
	require.NoError(t, sim.SetState("ns", "k1", []byte("voted")))
	sim.Done()
	require.Equal(t, before, txMgr.commitGate.Stats().Escalations)
	res, err := sim.GetTxSimulationResults()
	require.NoError(t, err)
	h.validateAndCommitRWSet(res.PubSimulationResults)

	stale, err := txMgr.NewTxSimulator("stale-definition")
	require.NoError(t, err)
	_, err = stale.(ledger.PeerOnlyReader).GetStatePeerOnly("_lifecycle", fabvoteLCKey)
	require.NoError(t, err)
	_, err = stale.GetState("ns", "k2")
	require.NoError(t, err)
	stale.Done()
	staleRes, err := stale.GetTxSimulationResults()
	require.NoError(t, err)
	fabvoteWrite(t, txMgr, h, "lifecycle-2", map[string]string{"_lifecycle/" + fabvoteLCKey: "3"})
	h.checkRWsetInvalid(staleRes.PubSimulationResults)
}

// The peer reads the definition's sequence twice per invoke. A commit
// between the two makes the session stale, as stock Fabric fails the
// invoke with "changed during invoke", so that one endorsement never mixes
// two definitions; the retry of the same txid is locked and sees one.
func TestFabvotePeerOnlyReadAfterOverlappingCommitIsStale(t *testing.T) {
	txMgr, h := fabvoteGateEnv(t, lockless.Lockless)
	sim, err := txMgr.NewTxSimulator("invoke")
	require.NoError(t, err)
	first, err := sim.(ledger.PeerOnlyReader).GetStatePeerOnly("_lifecycle", fabvoteLCKey)
	require.NoError(t, err)
	require.Equal(t, []byte("1"), first)
	fabvoteWrite(t, txMgr, h, "lifecycle", map[string]string{"_lifecycle/" + fabvoteLCKey: "2"})
	_, err = sim.(ledger.PeerOnlyReader).GetStatePeerOnly("_lifecycle", fabvoteLCKey)
	require.True(t, lockless.IsRetryable(err), "second peer-only read after a commit: %v", err)
	require.True(t, sim.(interface{ StaleSnapshot() bool }).StaleSnapshot())
	_, err = sim.GetTxSimulationResults()
	require.True(t, lockless.IsRetryable(err), "GetTxSimulationResults: %v", err)
	sim.Done()

	retry, err := txMgr.NewTxSimulator("invoke")
	require.NoError(t, err)
	for i := 0; i < 2; i++ {
		seq, err := retry.(ledger.PeerOnlyReader).GetStatePeerOnly("_lifecycle", fabvoteLCKey)
		require.NoError(t, err)
		require.Equal(t, []byte("2"), seq)
	}
	retry.Done()
}

// A simulator that the chaincode support marks unfinished (an execute
// timeout) is not retried, however stale; LockSnapshot makes a simulator
// hold the read lock, so it never goes stale (cross-channel callees).
func TestFabvoteSimulationAttempt(t *testing.T) {
	txMgr, h := fabvoteGateEnv(t, lockless.Lockless)
	sim, err := txMgr.NewTxSimulator("timed-out")
	require.NoError(t, err)
	_, err = sim.GetState("ns", "k1")
	require.NoError(t, err)
	fabvoteWrite(t, txMgr, h, "writer", map[string]string{"ns/k2": "v2"})
	_, err = sim.GetState("ns", "k2")
	require.True(t, lockless.IsRetryable(err))
	require.True(t, ledger.RetryAfterStale(sim), "a stale, ended attempt is retried")
	ledger.MarkUnfinished(sim)
	require.True(t, ledger.Unfinished(sim))
	require.False(t, ledger.RetryAfterStale(sim), "an unfinished attempt must not be retried")
	sim.Done()

	callee, err := txMgr.NewTxSimulator("callee")
	require.NoError(t, err)
	require.NoError(t, ledger.LockSnapshot(callee))
	committed := make(chan struct{})
	go func() {
		fabvoteWrite(t, txMgr, h, "blocked", map[string]string{"ns/k1": "v3"})
		close(committed)
	}()
	for _, k := range []string{"k1", "k2", "k1"} {
		_, err := callee.GetState("ns", k)
		require.NoError(t, err, "a locked callee never goes stale")
	}
	select {
	case <-committed:
		t.Fatal("a commit ran while a locked simulator was open")
	default:
	}
	callee.Done()
	<-committed
	require.False(t, ledger.RetryAfterStale(callee))
}

// Once the chaincode has read a key, the peer's reads count like any other.
func TestFabvotePeerOnlyReadAfterChaincodeReadCounts(t *testing.T) {
	txMgr, h := fabvoteGateEnv(t, lockless.Lockless)
	sim, err := txMgr.NewTxSimulator("cc2cc")
	require.NoError(t, err)
	_, err = sim.GetState("ns", "k1")
	require.NoError(t, err)
	fabvoteWrite(t, txMgr, h, "writer", map[string]string{"ns/k1": "v3"})
	_, err = sim.(ledger.PeerOnlyReader).GetStatePeerOnly("_lifecycle", fabvoteLCKey)
	require.True(t, lockless.IsRetryable(err), "a read after the chaincode's first read must escalate: %v", err)
	sim.Done()
}

// Range queries escalate at once; with no commit overlapping they succeed.
func TestFabvoteGateRangeQueryEscalates(t *testing.T) {
	txMgr, _ := fabvoteGateEnv(t, lockless.Lockless)
	before := txMgr.commitGate.Stats().Escalations
	sim, err := txMgr.NewTxSimulator("range")
	require.NoError(t, err)
	itr, err := sim.GetStateRangeScanIterator("ns", "", "")
	require.NoError(t, err)
	n := 0
	for {
		kv, err := itr.Next()
		require.NoError(t, err)
		if kv == nil {
			break
		}
		n++
	}
	itr.Close()
	sim.Done()
	require.Equal(t, 2, n)
	require.Equal(t, before+1, txMgr.commitGate.Stats().Escalations)
}
