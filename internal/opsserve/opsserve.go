// Package opsserve is the operations endpoint of fabvote's own services (the
// ballot chaincode service and the registration service): GET /metrics in the
// Prometheus text format and GET /healthz, on a listener of their own, apart
// from the service's traffic.
//
// /healthz answers like a Fabric node's operations endpoint, so one probe
// configuration fits every process of the network: 200 with
// {"status":"OK","time":...} when every check passes, 503 with
// {"status":"Service Unavailable","time":...,"failed_checks":[{"component":...,"reason":...}]}
// when one fails. Checks run on each request, with a deadline, so a probe sees
// the current state.
//
// The endpoint serves no secret and changes nothing: it reads counters and
// runs checks. It speaks plain HTTP; bind it to the monitoring network, not to
// the voters' or the peers' network.
package opsserve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// CheckTimeout bounds one health check.
const CheckTimeout = 5 * time.Second

// Check reports a component's health: nil when it is healthy.
type Check func(ctx context.Context) error

// Server holds one service's metrics registry and health checks.
type Server struct {
	// Registry holds the service's collectors, plus the Go runtime and
	// process collectors that New registers.
	Registry *prometheus.Registry

	mu     sync.Mutex
	checks map[string]Check
	now    func() time.Time
}

// New returns a Server whose registry already holds the Go runtime and
// process collectors (go_*, process_*: CPU seconds, memory, GC).
func New() *Server {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return &Server{Registry: reg, checks: map[string]Check{}, now: time.Now}
}

// AddCheck adds the health check of component; a second check of the same
// component replaces the first.
func (s *Server) AddCheck(component string, c Check) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.checks[component] = c
}

// Handler serves /metrics and /healthz; any other path is 404 and any
// method but GET and HEAD is 405.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", getOnly(promhttp.HandlerFor(s.Registry, promhttp.HandlerOpts{})))
	mux.Handle("/healthz", getOnly(http.HandlerFunc(s.healthz)))
	return mux
}

func getOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed; use GET", http.StatusMethodNotAllowed)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// FailedCheck is one failed component in a /healthz answer.
type FailedCheck struct {
	Component string `json:"component"`
	Reason    string `json:"reason"`
}

// Health is the body of a /healthz answer.
type Health struct {
	Status       string        `json:"status"`
	Time         time.Time     `json:"time"`
	FailedChecks []FailedCheck `json:"failed_checks,omitempty"`
}

// Status values of Health.
const (
	StatusOK          = "OK"
	StatusUnavailable = "Service Unavailable"
)

func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	h := s.RunChecks(r.Context())
	code := http.StatusOK
	if h.Status != StatusOK {
		code = http.StatusServiceUnavailable
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(h)
}

// RunChecks runs every check, each with CheckTimeout, and returns the
// answer /healthz gives. Failed components are sorted by name.
func (s *Server) RunChecks(ctx context.Context) Health {
	s.mu.Lock()
	checks := make(map[string]Check, len(s.checks))
	for k, v := range s.checks {
		checks[k] = v
	}
	s.mu.Unlock()
	h := Health{Status: StatusOK, Time: s.now().UTC()}
	for name, check := range checks {
		if err := runCheck(ctx, check); err != nil {
			h.FailedChecks = append(h.FailedChecks, FailedCheck{Component: name, Reason: err.Error()})
		}
	}
	if len(h.FailedChecks) > 0 {
		h.Status = StatusUnavailable
		sort.Slice(h.FailedChecks, func(i, j int) bool { return h.FailedChecks[i].Component < h.FailedChecks[j].Component })
	}
	return h
}

// runCheck runs check with a deadline. A check that ignores its context
// and outlives the deadline counts as failed (its goroutine ends when the
// check returns); a check that panics counts as failed and takes nothing
// else down.
func runCheck(ctx context.Context, check Check) error {
	ctx, cancel := context.WithTimeout(ctx, CheckTimeout)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Errorf("check panicked: %v", r)
			}
		}()
		done <- check(ctx)
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return fmt.Errorf("no answer: %w", ctx.Err())
	}
}

// Listen binds addr for Serve. Services bind before they change anything,
// so that a busy port leaves nothing behind.
func Listen(addr string) (net.Listener, error) {
	if addr == "" {
		return nil, errors.New("opsserve: no listen address")
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("opsserve: %w", err)
	}
	return ln, nil
}

// Serve serves Handler on ln until ctx ends, in the background. An error of
// the running server goes to the channel, which is closed when it stops.
func (s *Server) Serve(ctx context.Context, ln net.Listener) <-chan error {
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second, WriteTimeout: 30 * time.Second}
	errc := make(chan error, 1)
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			errc <- err
		}
		close(errc)
	}()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	return errc
}

// DialCheck is a Check that a TCP listener at addr accepts connections: a
// service whose own listener stopped accepting is not healthy.
func DialCheck(addr string) Check {
	return func(ctx context.Context) error {
		var d net.Dialer
		c, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			return fmt.Errorf("listener %s: %w", addr, err)
		}
		return c.Close()
	}
}
