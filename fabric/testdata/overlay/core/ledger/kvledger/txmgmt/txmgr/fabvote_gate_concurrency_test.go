/*
SPDX-License-Identifier: Apache-2.0
*/

package txmgr

// fabvote O-III: many simulations on the real transaction manager and
// LevelDB while blocks commit, in both gate modes, under -race (make
// fabric-test runs this package with -race). Each simulation is what a
// chaincode invocation does: the peer's two lookups of the chaincode
// definition, then one or more reads, writes with key-level metadata,
// private data, and the first metadata of a fresh namespace. The test
// asserts that nothing races or panics, that every simulation that
// completes read one snapshot (the versions of its chaincode reads are
// the state after one commit), and that every committed transaction's reads,
// peer-only reads included, are one snapshot as well.

import (
	"fmt"
	"math/rand"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang/protobuf/proto"
	"github.com/hyperledger/fabric-protos-go/common"
	"github.com/hyperledger/fabric-protos-go/ledger/rwset"
	"github.com/hyperledger/fabric-protos-go/peer"
	"github.com/hyperledger/fabric/common/flogging"
	"github.com/hyperledger/fabric/core/ledger"
	"github.com/hyperledger/fabric/core/ledger/kvledger/txmgmt/rwsetutil"
	"github.com/hyperledger/fabric/core/ledger/mock"
	"github.com/hyperledger/fabric/core/ledger/util"
	"github.com/hyperledger/fabric/fabvote/lockless"
	"github.com/hyperledger/fabric/internal/pkg/txflags"
	"github.com/stretchr/testify/require"
)

const (
	fabvoteCcNs    = "ballot"
	fabvoteColl    = "secret"
	fabvoteKeys    = 8
	fabvoteWorkers = 4
)

// fabvoteSnapshot maps "ns/key" (and "ns/coll#key" for private hashes) to
// the version committed after one block, as "block:tx".
type fabvoteSnapshot map[string]string

type fabvoteSimResult struct {
	txid     string
	res      *ledger.TxSimulationResults
	reads    fabvoteSnapshot // every read, peer-only included
	ccReads  fabvoteSnapshot // the chaincode's reads only
	peerKeys []string
}

func TestFabvoteGateConcurrentSimulationsAndCommits(t *testing.T) {
	d := 2 * time.Second
	if v := os.Getenv("FABVOTE_GATE_STRESS"); v != "" {
		var err error
		d, err = time.ParseDuration(v)
		require.NoError(t, err)
	}
	for _, m := range []lockless.Mode{lockless.Locked, lockless.Lockless} {
		t.Run(m.String(), func(t *testing.T) { fabvoteStress(t, m, d) })
	}
}

func fabvoteStress(t *testing.T, m lockless.Mode, d time.Duration) {
	// Thousands of blocks: keep the per-transaction debug and MVCC lines
	// out of the test log.
	spec := flogging.Global.Spec()
	flogging.ActivateSpec("error")
	t.Cleanup(func() { flogging.ActivateSpec(spec) })
	txMgr, h := fabvoteGateEnv(t, m)
	ccInfo := &mock.DeployedChaincodeInfoProvider{}
	ccInfo.AllCollectionsConfigPkgReturns(&peer.CollectionConfigPackage{Config: []*peer.CollectionConfig{{
		Payload: &peer.CollectionConfig_StaticCollectionConfig{StaticCollectionConfig: &peer.StaticCollectionConfig{Name: fabvoteColl}},
	}}}, nil)
	txMgr.ccInfoProvider = ccInfo
	seed := map[string]string{"_lifecycle/" + fabvoteLCKey: "1"}
	for i := 0; i < fabvoteKeys; i++ {
		seed[fmt.Sprintf("%s/k%d", fabvoteCcNs, i)] = "seed"
	}
	fabvoteWrite(t, txMgr, h, "stress-seed", seed)

	history := []fabvoteSnapshot{fabvoteState(t, txMgr)}
	// One slot: a simulation is committed soon after it ends, as on a peer,
	// instead of waiting behind a backlog that makes it invalid.
	results := make(chan fabvoteSimResult, 1)
	stop := make(chan struct{})
	var stopOnce sync.Once
	var wg sync.WaitGroup
	halt := func() { stopOnce.Do(func() { close(stop) }); wg.Wait() }
	t.Cleanup(halt) // also when a check below fails
	var fresh atomic.Int64
	errs := make(chan error, fabvoteWorkers)
	for w := 0; w < fabvoteWorkers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(w)))
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				r, err := fabvoteSimulate(txMgr, fmt.Sprintf("w%d-%d", w, n), rng, &fresh)
				if err != nil {
					errs <- err
					return
				}
				// While the committer is busy, keep simulating: a result
				// it cannot take now is dropped (its reads were already
				// made against commits in progress, which is the point),
				// with a pause that leaves the committer some CPU.
				select {
				case results <- r:
				case <-stop:
					return
				default:
					time.Sleep(time.Millisecond)
				}
			}
		}(w)
	}

	var sims, committed, invalid int
	deadline := time.After(d)
	for running := true; running; {
		select {
		case <-deadline:
			running = false
		case err := <-errs:
			halt()
			t.Fatal(err)
		case r := <-results:
			sims++
			require.True(t, fabvoteInSomeSnapshot(history, r.ccReads), "simulation %s read %v, which no committed state holds", r.txid, r.ccReads)
			if fabvoteCommit(t, txMgr, h, r) {
				committed++
				// MVCC accepted it: all its reads, peer-only ones included,
				// were the state right before this commit.
				require.True(t, fabvoteMatches(history[len(history)-1], r.reads), "committed %s read %v, state was %v", r.txid, r.reads, history[len(history)-1])
			} else {
				invalid++
			}
			history = append(history, fabvoteState(t, txMgr))
			if sims%2 == 0 { // a namespace gets its first metadata while simulations run
				fabvoteFirstMetadata(t, txMgr, h, fmt.Sprintf("hint%d", sims))
				history = append(history, fabvoteState(t, txMgr))
			}
			if sims%25 == 0 { // the chaincode definition changes now and then
				fabvoteWrite(t, txMgr, h, fmt.Sprintf("def-%d", sims), map[string]string{"_lifecycle/" + fabvoteLCKey: fmt.Sprint(sims)})
				history = append(history, fabvoteState(t, txMgr))
			}
		}
	}
	halt()
	st := txMgr.commitGate.Stats()
	t.Logf("mode %s: %d simulations, %d committed, %d invalid, gate %s", m, sims, committed, invalid, st)
	require.NotZero(t, committed, "no transaction committed")
	if m == lockless.Lockless {
		require.NotZero(t, st.Escalations, "no session escalated: the workload does not exercise the gate")
	}
}

// fabvoteSimulate runs one invocation like the endorser: on a stale snapshot
// it simulates once more under the same txid (the ledger locks that retry).
func fabvoteSimulate(txMgr *LockBasedTxMgr, txid string, rng *rand.Rand, fresh *atomic.Int64) (fabvoteSimResult, error) {
	kind := rng.Intn(5)
	a, b := rng.Intn(fabvoteKeys), rng.Intn(fabvoteKeys)
	for attempt := 0; ; attempt++ {
		r, err := fabvoteSimulateOnce(txMgr, txid, kind, a, b, fresh)
		if err == nil {
			return r, nil
		}
		if !lockless.IsRetryable(err) || attempt > 0 {
			return r, fmt.Errorf("simulation %s (kind %d, attempt %d): %w", txid, kind, attempt, err)
		}
	}
}

func fabvoteSimulateOnce(txMgr *LockBasedTxMgr, txid string, kind, a, b int, fresh *atomic.Int64) (fabvoteSimResult, error) {
	r := fabvoteSimResult{txid: txid, peerKeys: []string{"_lifecycle/" + fabvoteLCKey}}
	sim, err := txMgr.NewTxSimulator(txid)
	if err != nil {
		return r, err
	}
	defer sim.Done()
	peerOnly := sim.(ledger.PeerOnlyReader)
	for i := 0; i < 2; i++ { // the endorser's lookup, then CheckInvocation's
		if _, err := peerOnly.GetStatePeerOnly("_lifecycle", fabvoteLCKey); err != nil {
			return r, err
		}
	}
	ka, kb := fmt.Sprintf("k%d", a), fmt.Sprintf("k%d", b)
	if _, err := sim.GetState(fabvoteCcNs, ka); err != nil {
		return r, err
	}
	val := []byte(txid)
	switch kind {
	case 0: // single key: delaywork's shape
		err = sim.SetState(fabvoteCcNs, ka, val)
	case 1: // multi-key: a ballot cast's shape (ballot and tracker keys)
		if _, err = sim.GetState(fabvoteCcNs, kb); err == nil {
			err = fabvoteSetAll(sim.SetState, ka, kb, val)
		}
	case 2: // key-level metadata write
		err = sim.SetStateMetadata(fabvoteCcNs, ka, map[string][]byte{peer.MetaDataKeys_VALIDATION_PARAMETER.String(): val})
		if err == nil {
			err = sim.SetState(fabvoteCcNs, ka, val)
		}
	case 3: // private data: read a hash and a value, write a value
		if _, err = sim.GetPrivateDataHash(fabvoteCcNs, fabvoteColl, kb); err == nil {
			if _, err = sim.GetPrivateData(fabvoteCcNs, fabvoteColl, ka); err == nil {
				err = sim.SetPrivateData(fabvoteCcNs, fabvoteColl, ka, val)
			}
		}
	case 4: // the first metadata of a fresh namespace, then a write that looks it up
		ns := fmt.Sprintf("fresh%d", fresh.Add(1))
		if err = sim.SetStateMetadata(ns, "k", map[string][]byte{peer.MetaDataKeys_VALIDATION_PARAMETER.String(): val}); err == nil {
			err = sim.SetState(fabvoteCcNs, ka, val)
		}
	}
	if err != nil {
		return r, err
	}
	sim.Done()
	if r.res, err = sim.GetTxSimulationResults(); err != nil {
		return r, err
	}
	r.reads, r.ccReads, err = fabvoteReadVersions(r.res.PubSimulationResults, r.peerKeys)
	return r, err
}

// fabvoteFirstMetadata commits a transaction that gives namespace ns its
// first key-level metadata, which adds ns to the ledger's metadata hint.
func fabvoteFirstMetadata(t *testing.T, txMgr *LockBasedTxMgr, h *txMgrTestHelper, ns string) {
	sim, err := txMgr.NewTxSimulator("metadata-" + ns)
	require.NoError(t, err)
	require.NoError(t, sim.SetStateMetadata(ns, "k", map[string][]byte{peer.MetaDataKeys_VALIDATION_PARAMETER.String(): []byte("policy")}))
	sim.Done()
	res, err := sim.GetTxSimulationResults()
	require.NoError(t, err)
	h.validateAndCommitRWSet(res.PubSimulationResults)
}

func fabvoteSetAll(set func(ns, key string, v []byte) error, ka, kb string, v []byte) error {
	if err := set(fabvoteCcNs, ka, v); err != nil {
		return err
	}
	return set(fabvoteCcNs, kb, v)
}

func fabvoteVersion(block, tx uint64) string { return fmt.Sprintf("%d:%d", block, tx) }

// fabvoteReadVersions returns the versions in a read set, all of them and
// the chaincode's (without the peer-only keys).
func fabvoteReadVersions(pub *rwset.TxReadWriteSet, peerKeys []string) (all, cc fabvoteSnapshot, err error) {
	rws, err := rwsetutil.TxRwSetFromProtoMsg(pub)
	if err != nil {
		return nil, nil, err
	}
	all, cc = fabvoteSnapshot{}, fabvoteSnapshot{}
	add := func(k, v string) {
		all[k] = v
		for _, p := range peerKeys {
			if p == k {
				return
			}
		}
		cc[k] = v
	}
	for _, ns := range rws.NsRwSets {
		for _, r := range ns.KvRwSet.Reads {
			v := ""
			if r.Version != nil {
				v = fabvoteVersion(r.Version.BlockNum, r.Version.TxNum)
			}
			add(ns.NameSpace+"/"+r.Key, v)
		}
		for _, c := range ns.CollHashedRwSets {
			for _, r := range c.HashedRwSet.HashedReads {
				v := ""
				if r.Version != nil {
					v = fabvoteVersion(r.Version.BlockNum, r.Version.TxNum)
				}
				add(fmt.Sprintf("%s/%s#%x", ns.NameSpace, c.CollectionName, r.KeyHash), v)
			}
		}
	}
	return all, cc, nil
}

// fabvoteState reads the committed version of every key the workload reads.
func fabvoteState(t *testing.T, txMgr *LockBasedTxMgr) fabvoteSnapshot {
	s := fabvoteSnapshot{}
	lc, err := txMgr.db.GetState("_lifecycle", fabvoteLCKey)
	require.NoError(t, err)
	s["_lifecycle/"+fabvoteLCKey] = fabvoteVersion(lc.Version.BlockNum, lc.Version.TxNum)
	for i := 0; i < fabvoteKeys; i++ {
		key := fmt.Sprintf("k%d", i)
		vv, err := txMgr.db.GetState(fabvoteCcNs, key)
		require.NoError(t, err)
		s[fabvoteCcNs+"/"+key] = fabvoteVersion(vv.Version.BlockNum, vv.Version.TxNum)
		hv, err := txMgr.db.GetKeyHashVersion(fabvoteCcNs, fabvoteColl, fabvoteHash(key))
		require.NoError(t, err)
		if hv != nil {
			s[fmt.Sprintf("%s/%s#%x", fabvoteCcNs, fabvoteColl, fabvoteHash(key))] = fabvoteVersion(hv.BlockNum, hv.TxNum)
		}
	}
	return s
}

// fabvoteMatches reports whether every read version is the one in state
// (a key absent from state was never written: version "").
func fabvoteMatches(state, reads fabvoteSnapshot) bool {
	for k, v := range reads {
		if state[k] != v {
			return false
		}
	}
	return true
}

func fabvoteInSomeSnapshot(history []fabvoteSnapshot, reads fabvoteSnapshot) bool {
	for i := len(history) - 1; i >= 0; i-- {
		if fabvoteMatches(history[i], reads) {
			return true
		}
	}
	return false
}

// fabvoteCommit validates and commits one block holding r's transaction
// (with its private data) and reports whether it was valid.
func fabvoteCommit(t *testing.T, txMgr *LockBasedTxMgr, h *txMgrTestHelper, r fabvoteSimResult) bool {
	rwSetBytes, err := proto.Marshal(r.res.PubSimulationResults)
	require.NoError(t, err)
	block := h.bg.NextBlock([][]byte{rwSetBytes})
	pvt := ledger.TxPvtDataMap{}
	if r.res.PvtSimulationResults != nil {
		pvt[0] = &ledger.TxPvtData{SeqInBlock: 0, WriteSet: r.res.PvtSimulationResults}
	}
	_, _, _, err = txMgr.ValidateAndPrepare(&ledger.BlockAndPvtData{Block: block, PvtData: pvt}, true)
	require.NoError(t, err)
	flags := txflags.ValidationFlags(block.Metadata.Metadata[common.BlockMetadataIndex_TRANSACTIONS_FILTER])
	require.NoError(t, txMgr.Commit())
	return !flags.IsInvalid(0)
}

func fabvoteHash(key string) []byte { return util.ComputeStringHash(key) }
