/*
SPDX-License-Identifier: Apache-2.0
*/

package kvledger

// fabvote O-III (patch 0008): FABVOTE_COMMIT_GATE=lockless is refused with
// CouchDB at peer start, before anything is created; goleveldb and mode
// locked start as before. make fabric-test runs this package in both modes.

import (
	"os"
	"testing"

	"github.com/hyperledger/fabric/common/metrics/disabled"
	"github.com/hyperledger/fabric/core/ledger"
	"github.com/hyperledger/fabric/core/ledger/kvledger/txmgmt/txmgr"
	"github.com/hyperledger/fabric/core/ledger/mock"
	"github.com/hyperledger/fabric/fabvote/lockless"
	"github.com/stretchr/testify/require"
)

func TestFabvoteCommitGateStateDB(t *testing.T) {
	mode := txmgr.CommitGateMode()
	for _, db := range []string{"goleveldb", "", ledger.CouchDB} {
		conf, cleanup := testConfig(t)
		conf.StateDBConfig.StateDatabase = db
		err := txmgr.CheckCommitGateStateDB(conf)
		if mode == lockless.Lockless && db == ledger.CouchDB {
			require.Error(t, err)
			require.Contains(t, err.Error(), lockless.EnvVar+"=lockless")
			require.Contains(t, err.Error(), `"CouchDB"`)
		} else {
			require.NoError(t, err, "mode %s, state database %q", mode, db)
		}
		cleanup()
	}
}

func TestFabvoteLocklessRefusedOnCouchAtStart(t *testing.T) {
	if txmgr.CommitGateMode() != lockless.Lockless {
		t.Skip("runs in the FABVOTE_COMMIT_GATE=lockless pass of make fabric-test")
	}
	conf, cleanup := testConfig(t)
	defer cleanup()
	conf.StateDBConfig.StateDatabase = ledger.CouchDB
	conf.StateDBConfig.CouchDB = &ledger.CouchDBConfig{Address: "127.0.0.1:1", MaxRetriesOnStartup: 1}
	p, err := NewProvider(&ledger.Initializer{
		DeployedChaincodeInfoProvider: &mock.DeployedChaincodeInfoProvider{},
		MetricsProvider:               &disabled.Provider{},
		Config:                        conf,
		HealthCheckRegistry:           &mock.HealthCheckRegistry{},
	})
	require.Nil(t, p)
	require.ErrorContains(t, err, "cannot be used with the state database \"CouchDB\"")
	entries, err := os.ReadDir(conf.RootFSPath)
	require.NoError(t, err)
	require.Empty(t, entries, "a refused start must not create ledger files")
}
