/*
SPDX-License-Identifier: Apache-2.0
*/

package privacyenabledstate

// fabvote O-III: with FABVOTE_COMMIT_GATE=lockless a simulation looks up a
// written key's endorsement policy (SetState -> GetStateMetadata ->
// metadataHint) without the commit lock, while a commit that gives a
// namespace its first metadata adds it to the hint. In stock Fabric the hint
// is a plain map guarded only by the commit lock, so this test dies with
// "concurrent map read and map write" (and -race reports the data race).

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hyperledger/fabric/core/ledger/internal/version"
	"github.com/hyperledger/fabric/core/ledger/util"
	"github.com/stretchr/testify/require"
)

func TestFabvoteMetadataHintReadDuringCommit(t *testing.T) {
	env := &LevelDBTestEnv{}
	env.Init(t)
	defer env.Cleanup()
	db := env.GetDBHandle(generateLedgerID(t))

	const commits = 300
	var committed atomic.Int64 // namespaces ns-0 .. ns-(committed-1) have metadata
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for r := 0; r < 4; r++ {
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			for i := 0; committed.Load() < commits; i++ {
				n := committed.Load()
				ns := fmt.Sprintf("ns-%d", i%commits)
				md, err := db.GetStateMetadata(ns, "k")
				if err == nil {
					_, err = db.GetPrivateDataMetadataByHash(ns, "coll", util.ComputeStringHash("pk"))
				}
				if err != nil {
					errs <- err
					return
				}
				// A namespace committed before this read began must show
				// its metadata: the hint may never hide a committed value.
				if int64(i%commits) < n && string(md) == "" {
					errs <- fmt.Errorf("reader %d: metadata of %s missing after its commit", r, ns)
					return
				}
			}
		}(r)
	}
	for i := 0; i < commits; i++ {
		ns := fmt.Sprintf("ns-%d", i)
		h := version.NewHeight(uint64(i+1), 1)
		updates := NewUpdateBatch()
		updates.PubUpdates.PutValAndMetadata(ns, "k", []byte("v"), []byte("policy"), h)
		updates.HashUpdates.PutValHashAndMetadata(ns, "coll", util.ComputeStringHash("pk"), util.ComputeStringHash("pv"), []byte("pvt-policy"), h)
		require.NoError(t, db.ApplyPrivacyAwareUpdates(updates, h))
		committed.Store(int64(i + 1))
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	md, err := db.GetStateMetadata(fmt.Sprintf("ns-%d", commits-1), "k")
	require.NoError(t, err)
	require.Equal(t, []byte("policy"), md)
}
