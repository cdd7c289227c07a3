// Package box is the ballot box: the HTTPS service through which a voter's
// booth casts a ballot, or publishes a spoiled (audited) one, on the ledger.
// Any organisation of the network may run one (`fabvote box serve`): it
// submits through the Fabric Gateway with the organisation's own identity.
// A ballot is signed by the voter's key and bound to the authority's token,
// so a box can drop a ballot but cannot change it, and a booth may use any
// organisation's box.
//
// The API, JSON in and out:
//
//	POST /v1/ballots                   {"ballot":"<base64>"} -> the receipt, once committed
//	POST /v1/spoiled                   a spoiled ballot's JSON -> {electionID, tracker, txID, block}
//	GET  /v1/elections/{id}/manifest   the manifest on the ledger
//	GET  /healthz                      the operations endpoint's health check (internal/opsserve;
//	                                   /metrics is served on the operations endpoint only)
//
// Every refusal is {"error","code"}: the error says what the voter should
// do, the code is the contract's (DUPLICATE, WINDOW, …) or the box's own
// (Code* below). The box answers cross-origin requests from the booth's
// origins only, limits each client address's rate (spoiled ballots, which
// anyone can send, more strictly), and bounds the submissions in flight.
package box

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log"
	"net/http"
	"time"

	"golang.org/x/time/rate"

	"github.com/fabvote/fabvote/internal/ballotclient"
	"github.com/fabvote/fabvote/internal/opsserve"
	"github.com/fabvote/fabvote/internal/registrar"
)

// Ledger is what the box needs of the ballot chaincode: ballotclient.Client
// on a gateway connection, or a fake in tests.
type Ledger interface {
	CastBallot(ctx context.Context, ballot []byte) (*ballotclient.CastReceipt, error)
	SpoilBallot(ctx context.Context, spoiled []byte) (*ballotclient.SpoilReceipt, error)
	GetManifest(ctx context.Context, electionID string) ([]byte, error)
}

// Config is a box's election, ledger and policy.
type Config struct {
	ElectionID   string // the one election whose ballots the box takes
	Ledger       Ledger
	AllowOrigins []string // the booth's origins (scheme://host[:port]) answered cross-origin
	Limits       Limits
	// Ops holds the box's metrics and health checks; New registers its own.
	// Its /healthz is served beside the box's routes too; its /metrics only
	// where the caller serves it (box serve --ops-addr).
	Ops *opsserve.Server
	Log *log.Logger // nil: no log
}

// Server is the box's HTTP handler.
type Server struct {
	cfg      Config
	origins  map[string]bool
	ballots  *buckets // per client address: ballots, manifests, probes
	spoiled  *buckets // per client address: spoiled ballots
	slots    chan struct{}
	metrics  *metrics
	ops      http.Handler
	logLimit *rate.Limiter
	now      func() time.Time
}

// New checks c and returns its handler, with its metrics registered on
// c.Ops and the gateway's health check added there.
func New(c Config) (*Server, error) {
	if c.Ledger == nil || c.Ops == nil || c.ElectionID == "" {
		return nil, errors.New("box: the election, the ledger and the operations server are required")
	}
	if err := c.Limits.Check(); err != nil {
		return nil, err
	}
	s := &Server{
		cfg:      c,
		origins:  map[string]bool{},
		ballots:  newBuckets(c.Limits.BallotRate, c.Limits.BallotBurst),
		spoiled:  newBuckets(c.Limits.SpoilRate, c.Limits.SpoilBurst),
		slots:    make(chan struct{}, c.Limits.MaxInFlight),
		ops:      c.Ops.Handler(),
		logLimit: rate.NewLimiter(5, 5),
		now:      time.Now,
	}
	for _, o := range c.AllowOrigins {
		if err := CheckOrigin(o); err != nil {
			return nil, err
		}
		s.origins[o] = true
	}
	s.metrics = newMetrics(c.Ops, func() float64 { return float64(len(s.slots)) })
	c.Ops.AddCheck("gateway", s.gatewayCheck)
	return s, nil
}

// gatewayCheck reads the election's manifest through the gateway: the
// peer, the channel and the chaincode all answer.
func (s *Server) gatewayCheck(ctx context.Context) error {
	if _, err := s.cfg.Ledger.GetManifest(ctx, s.cfg.ElectionID); err != nil {
		return fmt.Errorf("reading election %q's manifest through the gateway: %w", s.cfg.ElectionID, err)
	}
	return nil
}

// HTTPServer is the box's server on tlsConf: timeouts on every phase of a
// request (the write's outlasts a submission), a cap on its headers.
func (s *Server) HTTPServer(tlsConf *tls.Config) *http.Server {
	return &http.Server{
		Handler:           s,
		TLSConfig:         tlsConf,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      s.cfg.Limits.SubmitTimeout + 15*time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          s.cfg.Log, // TLS handshake and connection errors, under the box's prefix
	}
}

// maxHeaderBytes bounds a request's headers: a booth sends a handful.
const maxHeaderBytes = 16 << 10

// ServeHTTP answers CORS, then the route's limits, then the route.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rt := routeOf(r.URL.Path)
	if !s.cors(w, r, rt) {
		return
	}
	if r.Method != rt.method && !(rt.method == http.MethodGet && r.Method == http.MethodHead) {
		if rt.method != "" {
			w.Header().Set("Allow", rt.method)
		}
		s.refuse(w, r, rt.name, rt.wrongMethod(r.Method))
		return
	}
	if rf := s.admit(r, rt); rf != nil {
		s.refuse(w, r, rt.name, rf)
		return
	}
	rt.serve(s, w, r, rt.arg)
}

// admit takes one request from the client address's bucket of the route.
func (s *Server) admit(r *http.Request, rt route) *refusal {
	b := s.ballots
	if rt.name == routeSpoiled {
		b = s.spoiled
	}
	if wait, ok := b.take(registrar.ClientIP(r), s.now()); !ok {
		return &refusal{status: http.StatusTooManyRequests, code: CodeRate, retryAfter: wait,
			msg: fmt.Sprintf("too many requests from this address; wait %s and send it again", roundUp(wait))}
	}
	return nil
}

func (s *Server) logf(format string, args ...any) {
	if s.cfg.Log != nil {
		s.cfg.Log.Printf(format, args...)
	}
}
