package main

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/fabvote/fabvote/chaincode/ballot"
)

// statsCollector exports the contract's counters (ballot.Stats) at scrape
// time, so that the transaction path carries no metrics code at all.
type statsCollector struct {
	stats func() ballot.Stats

	proofs, accepted, rejected, batches, batched, manifests *prometheus.Desc
}

func newStatsCollector(stats func() ballot.Stats) *statsCollector {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc("fabvote_chaincode_"+name, help, labels, nil)
	}
	return &statsCollector{
		stats:     stats,
		proofs:    d("proofs_checked_total", "Validity proofs this process handed to its verifier."),
		accepted:  d("ballots_accepted_total", "CastBallot executions that returned a receipt (an endorsement, not yet a commit)."),
		rejected:  d("ballots_rejected_total", "CastBallot executions refused, by error code.", "code"),
		batches:   d("proof_batches_total", "Batched proof verifications run."),
		batched:   d("batched_proofs_total", "Proofs verified inside batches."),
		manifests: d("cached_manifests", "Election manifests held in the process's cache."),
	}
}

func (c *statsCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.proofs, c.accepted, c.rejected, c.batches, c.batched, c.manifests} {
		ch <- d
	}
}

func (c *statsCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.stats()
	counter := func(d *prometheus.Desc, v uint64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
	}
	counter(c.proofs, s.ProofsChecked)
	counter(c.accepted, s.Accepted)
	for code, n := range s.Rejected {
		counter(c.rejected, n, code)
	}
	counter(c.batches, s.Batches)
	counter(c.batched, s.BatchedProofs)
	ch <- prometheus.MustNewConstMetric(c.manifests, prometheus.GaugeValue, float64(s.CachedManifests))
}
