package box

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/fabvote/fabvote/internal/opsserve"
)

// metrics are the box's, on its operations server:
//
//	fabvote_box_requests_total{route,code}         answers by route and outcome (OK or the refusal's code)
//	fabvote_box_submission_duration_seconds{route} time the gateway took, refusals included
//	fabvote_box_in_flight                          calls waiting on the gateway now
type metrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
}

func newMetrics(ops *opsserve.Server, inFlight func() float64) *metrics {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fabvote_box_requests_total", Help: "Requests answered by the ballot box, by route and outcome code (OK, or the refusal's code).",
		}, []string{"route", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "fabvote_box_submission_duration_seconds", Help: "Time from a call to the gateway to its answer (a submission's includes its commit), by route.",
			Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
		}, []string{"route"}),
	}
	gauge := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "fabvote_box_in_flight", Help: "Calls of the ballot box waiting on the gateway now.",
	}, inFlight)
	ops.Registry.MustRegister(m.requests, m.latency, gauge)
	return m
}

func (m *metrics) count(route, code string) { m.requests.WithLabelValues(route, code).Inc() }
