/*
SPDX-License-Identifier: Apache-2.0
*/

package txmgr

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"
)

// fabvoteGateCounters gathers the default Prometheus registry (the one the
// operations system serves at /metrics) and returns the commit gate counters
// of channel by metric name; a missing channel gives an empty map.
func fabvoteGateCounters(t *testing.T, channel string) map[string]float64 {
	t.Helper()
	families, err := prometheus.DefaultGatherer.Gather()
	require.NoError(t, err)
	got := map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "channel" && l.GetValue() == channel {
					got[f.GetName()] = m.GetCounter().GetValue()
				}
			}
		}
	}
	return got
}

// Patch 0007: a ledger's gate is on /metrics while the transaction manager
// is open, its counters move with simulations and commits, and it leaves
// /metrics when the manager shuts down.
func TestFabvoteGateMetrics(t *testing.T) {
	const channel = "fabvote-gate-metrics"
	env := testEnvsMap[levelDBtestEnvName]
	env.init(t, channel, nil)
	closed := false
	defer func() {
		if !closed {
			env.cleanup()
		}
	}()
	txMgr := env.getTxMgr()

	before := fabvoteGateCounters(t, channel)
	for _, name := range []string{"sessions", "escalations", "retries", "commits"} {
		require.Contains(t, before, "fabvote_commit_gate_"+name+"_total", "gate counter %s not on /metrics", name)
	}

	sim, err := txMgr.NewTxSimulator("metrics-sim")
	require.NoError(t, err)
	_, err = sim.GetState("ns", "k1")
	require.NoError(t, err)
	sim.Done()
	txMgr.commitGate.LockCommit()
	txMgr.commitGate.UnlockCommit()

	after := fabvoteGateCounters(t, channel)
	require.Equal(t, before["fabvote_commit_gate_sessions_total"]+1, after["fabvote_commit_gate_sessions_total"])
	require.Equal(t, before["fabvote_commit_gate_commits_total"]+1, after["fabvote_commit_gate_commits_total"])
	s := txMgr.commitGate.Stats()
	require.Equal(t, float64(s.Sessions), after["fabvote_commit_gate_sessions_total"])
	require.Equal(t, float64(s.Escalations), after["fabvote_commit_gate_escalations_total"])

	env.cleanup()
	closed = true
	require.Empty(t, fabvoteGateCounters(t, channel), "a closed ledger's gate must leave /metrics")
}
