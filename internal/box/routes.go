package box

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// The box's paths.
const (
	BallotsPath = "/v1/ballots"
	SpoiledPath = "/v1/spoiled"
	// A manifest is at ManifestPrefix + id + ManifestSuffix.
	ManifestPrefix = "/v1/elections/"
	ManifestSuffix = "/manifest"
)

// Route names: the label of a request in the box's metrics.
const (
	routeBallots  = "ballots"
	routeSpoiled  = "spoiled"
	routeManifest = "manifest"
	routeOps      = "ops"
	routeUnknown  = "unknown"
)

// route is one of the box's routes: its method and its handler, with the
// argument its path carries (a manifest's election id).
type route struct {
	name   string
	method string // "" for no route
	arg    string
	serve  func(s *Server, w http.ResponseWriter, r *http.Request, arg string)
}

// routeOf is the route of path; an unknown path's route refuses every
// method with 404.
func routeOf(path string) route {
	switch {
	case path == BallotsPath:
		return route{name: routeBallots, method: http.MethodPost, serve: (*Server).castBallot}
	case path == SpoiledPath:
		return route{name: routeSpoiled, method: http.MethodPost, serve: (*Server).spoilBallot}
	// The voter-facing listener answers health checks only: the metrics,
	// live counts of ballots and audits by route, are the operations
	// endpoint's (--ops-addr), which is not the voters' network.
	case path == "/healthz":
		return route{name: routeOps, method: http.MethodGet, serve: (*Server).serveOps}
	case strings.HasPrefix(path, ManifestPrefix) && strings.HasSuffix(path, ManifestSuffix):
		id := strings.TrimSuffix(strings.TrimPrefix(path, ManifestPrefix), ManifestSuffix)
		if id != "" && !strings.Contains(id, "/") {
			return route{name: routeManifest, method: http.MethodGet, arg: id, serve: (*Server).getManifest}
		}
	}
	return route{name: routeUnknown}
}

// serveOps answers /healthz from the operations server and
// counts the answer: OK, or UNAVAILABLE for a failed health check.
func (s *Server) serveOps(w http.ResponseWriter, r *http.Request, _ string) {
	sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
	s.ops.ServeHTTP(sw, r)
	code := codeOK
	if sw.status >= 400 {
		code = CodeUnavailable
	}
	s.metrics.count(routeOps, code)
}

// statusWriter remembers the status written through it.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(status int) {
	w.status = status
	w.ResponseWriter.WriteHeader(status)
}

// wrongMethod is the refusal of a request the route does not take.
func (rt route) wrongMethod(method string) *refusal {
	if rt.method == "" {
		return &refusal{status: http.StatusNotFound, code: CodeNotFound,
			msg: fmt.Sprintf("no such endpoint; POST %s or %s, or GET %s{id}%s", BallotsPath, SpoiledPath, ManifestPrefix, ManifestSuffix)}
	}
	return &refusal{status: http.StatusMethodNotAllowed, code: CodeMethod,
		msg: fmt.Sprintf("method %s not allowed here; use %s", method, rt.method)}
}

// cors answers the Origin of a request: an allowed origin gets
// Access-Control-Allow-Origin (echoed), Retry-After exposed to its page, and
// its preflight, which cors answers
// itself; any other origin is refused, with no such header. A request
// without Origin is no browser's cross-origin request and passes. cors
// reports whether the request goes on to its route.
func (s *Server) cors(w http.ResponseWriter, r *http.Request, rt route) bool {
	w.Header().Add("Vary", "Origin")
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	if !s.origins[origin] {
		s.refuse(w, r, rt.name, &refusal{status: http.StatusForbidden, code: CodeOrigin,
			msg: fmt.Sprintf("this ballot box does not answer pages from %q; open your election's booth from its own address", origin)})
		return false
	}
	w.Header().Set("Access-Control-Allow-Origin", origin)
	// A page may read a 429's or 503's Retry-After only when told so.
	w.Header().Set("Access-Control-Expose-Headers", "Retry-After")
	want := r.Header.Get("Access-Control-Request-Method")
	if r.Method != http.MethodOptions || want == "" {
		return true
	}
	if want != rt.method {
		s.refuse(w, r, rt.name, rt.wrongMethod(want))
		return false
	}
	w.Header().Set("Access-Control-Allow-Methods", rt.method)
	w.Header().Set("Access-Control-Allow-Headers", "Content-Type")
	w.Header().Set("Access-Control-Max-Age", "600")
	w.WriteHeader(http.StatusNoContent)
	s.metrics.count(rt.name, codeOK)
	return false
}

// CheckOrigin accepts an origin as browsers send it: scheme://host[:port],
// http or https, nothing after.
func CheckOrigin(o string) error {
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return fmt.Errorf("--allow-origin %q: want an origin like https://booth.example.org[:port], without a path", o)
	}
	return nil
}
