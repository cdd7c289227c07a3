package main

import (
	"context"
	"fmt"
	"log"
	"net"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/fabvote/fabvote/internal/opsserve"
	"github.com/fabvote/fabvote/internal/registrar"
)

// registrationOps starts the operations endpoint of `ea serve` on opsLn
// (plain HTTP, a listener apart from the voters' HTTPS one) and returns
// the registration handler instrumented for it:
//
//	fabvote_registrar_requests_total{code,method}    answers by HTTP status
//	fabvote_registrar_request_duration_seconds       time to answer
//	fabvote_registrar_tokens_issued                  tokens issued (the state's count)
//	fabvote_registrar_roll_voters                    voters on the roll
//
// /healthz fails when the voters' listener stops accepting or the
// registration state cannot be read. The endpoint stops when ctx ends;
// the returned wait blocks until it has, so that the caller closes the
// state only after the last scrape.
func registrationOps(ctx context.Context, opsLn, ln net.Listener, h *registrar.Server, rollLen int, logger *log.Logger) (http.Handler, func()) {
	ops := opsserve.New()
	requests := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "fabvote_registrar_requests_total", Help: "Registration requests answered, by HTTP status and method.",
	}, []string{"code", "method"})
	duration := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "fabvote_registrar_request_duration_seconds", Help: "Time to answer a registration request.",
		Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
	}, []string{"code"})
	issued := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "fabvote_registrar_tokens_issued", Help: "Tokens issued for this election (read from the registration state).",
	}, func() float64 { return float64(h.Store.Count()) })
	roll := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "fabvote_registrar_roll_voters", Help: "Voters on the roll.",
	})
	roll.Set(float64(rollLen))
	ops.Registry.MustRegister(requests, duration, issued, roll)
	ops.AddCheck("registration listener", opsserve.DialCheck(ln.Addr().String()))
	ops.AddCheck("registration state", stateCheck(h.Store))
	errc := ops.Serve(ctx, opsLn)
	logger.Printf("operations endpoint (/metrics, /healthz) at http://%s", opsLn.Addr())
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		for err := range errc {
			logger.Printf("operations endpoint stopped: %v", err)
		}
	}()
	return promhttp.InstrumentHandlerDuration(duration, promhttp.InstrumentHandlerCounter(requests, h)), func() { <-stopped }
}

// stateCheck fails when the registration state cannot be read (a closed
// or broken database).
func stateCheck(st *registrar.Store) opsserve.Check {
	return func(context.Context) error {
		if _, err := st.Lookup(""); err != nil {
			return fmt.Errorf("registration state: %w", err)
		}
		return nil
	}
}
