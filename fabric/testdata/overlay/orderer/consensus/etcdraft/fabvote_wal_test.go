package etcdraft

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
	raft "go.etcd.io/etcd/raft/v3"
	"go.etcd.io/etcd/raft/v3/raftpb"
)

// TestFabvoteWALEntryOverTenMiB: an orderer whose WAL holds an entry larger
// than 10 MiB restarts. etcd before 3.5.9 refused to read such an entry back,
// and fabvote's channels allow blocks up to AbsoluteMaxBytes = 10 MB plus
// their envelope, so a full block could keep an orderer from restarting.
// Patch 0001 sets the etcd floor; this test fails on etcd 3.5.1.
func TestFabvoteWALEntryOverTenMiB(t *testing.T) {
	setup(t)
	data := bytes.Repeat([]byte{0x5a}, 12<<20)
	require.NoError(t, store.Store(
		[]raftpb.Entry{{Term: 1, Index: 1, Data: data}},
		raftpb.HardState{Term: 1, Commit: 1},
		raftpb.Snapshot{},
	))
	require.NoError(t, store.Close())

	ram = raft.NewMemoryStorage()
	store, err = CreateStorage(logger, walDir, snapDir, ram)
	require.NoError(t, err, "reopening a WAL with a 12 MiB entry")
	defer clean(t)
	last, err := ram.LastIndex()
	require.NoError(t, err)
	require.Equal(t, uint64(1), last)
	entries, err := ram.Entries(1, 2, uint64(len(data))*2)
	require.NoError(t, err)
	require.Len(t, entries, 1)
	require.True(t, bytes.Equal(data, entries[0].Data), "entry read back differs")
}
