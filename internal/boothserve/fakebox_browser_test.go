//go:build browser

package boothserve_test

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/fabvote/fabvote/crypto/votecode"
	"github.com/fabvote/fabvote/election"
)

// fakeBox is a ballot box (the HTTP API of fabvote box serve) that checks
// what it receives with the election package, as the contract would, and
// keeps it for the test: no ledger behind it.
type fakeBox struct {
	t        testing.TB
	prep     *election.Prepared
	manifest []byte
	origin   string // the booth's origin, which CORS lets in

	mu           sync.Mutex
	manifestDown int      // the next manifest requests to answer 503
	refuse       []string // the next casts' refusals, in order: see fault
	refuseSpoil  []string // the next spoiled ballots' refusals, in order: see fault
	spoiled      []spoiledSeen
	cast         []*election.Ballot
	spoilBodies  []string // every spoiled ballot the booth sent, answered or not
	castBodies   []string // every cast the booth sent, answered or not
}

// A fault is how the box answers a request instead of the truth:
//   - "down": 503 UNAVAILABLE, a box that cannot reach its gateway;
//   - "timeout": 504 COMMIT_UNKNOWN, submitted but not confirmed;
//   - "RATE": 429 with Retry-After 30;
//   - "lie": the ballot is recorded, but the answer names another tracker;
//   - any other string: 422 with that election code.
const (
	faultDown    = "down"
	faultTimeout = "timeout"
	faultRate    = "RATE"
	faultLie     = "lie"
)

// otherTracker is the tracker a lying box answers with.
var otherTracker = strings.Repeat("0f", 32)

// spoiledSeen is a spoiled ballot the box accepted: its tracker and the
// choice its opening reveals.
type spoiledSeen struct {
	tracker string
	sels    []votecode.Selection
}

// refuseNext makes the next casts meet the faults what, in order.
func (f *fakeBox) refuseNext(what ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.refuse = append(f.refuse, what...)
}

// refuseSpoilNext makes the next spoiled ballots meet the faults what.
func (f *fakeBox) refuseSpoilNext(what ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.refuseSpoil = append(f.refuseSpoil, what...)
}

// bodies is what the booth sent to /v1/spoiled and to /v1/ballots.
func (f *fakeBox) bodies() (spoil, cast []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.spoilBodies), slices.Clone(f.castBodies)
}

// next pops the next fault of queue, "" when there is none.
func (f *fakeBox) next(queue *[]string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(*queue) == 0 {
		return ""
	}
	fault := (*queue)[0]
	*queue = (*queue)[1:]
	return fault
}

// fail answers a fault that refuses the request, and says whether it did;
// "" and "lie" refuse nothing.
func fail(w http.ResponseWriter, fault string) bool {
	switch fault {
	case "", faultLie:
		return false
	case faultDown:
		answer(w, http.StatusServiceUnavailable, map[string]string{"error": "the gateway does not answer", "code": "UNAVAILABLE"})
	case faultTimeout:
		answer(w, http.StatusGatewayTimeout, map[string]string{"error": "submitted, but the commit was not confirmed in time", "code": "COMMIT_UNKNOWN"})
	case faultRate:
		w.Header().Set("Retry-After", "30")
		answer(w, http.StatusTooManyRequests, map[string]string{"error": "too many requests", "code": "RATE"})
	default:
		answer(w, http.StatusUnprocessableEntity, map[string]string{"error": "refused by the contract", "code": fault})
	}
	return true
}

// manifestDownNext makes the next manifest request fail as a box that
// cannot reach its gateway.
func (f *fakeBox) manifestDownNext() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.manifestDown = 1
}

func (f *fakeBox) seen() ([]spoiledSeen, []*election.Ballot) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]spoiledSeen(nil), f.spoiled...), append([]*election.Ballot(nil), f.cast...)
}

func (f *fakeBox) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Access-Control-Allow-Origin", f.origin)
	w.Header().Set("Access-Control-Expose-Headers", "Retry-After") // so that the page can say how long to wait
	if r.Method == http.MethodOptions {
		w.Header().Set("Access-Control-Allow-Methods", "GET, POST")
		w.Header().Set("Access-Control-Allow-Headers", "Content-Type")
		w.WriteHeader(http.StatusNoContent)
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/v1/elections/"+f.prep.Manifest.ElectionID+"/manifest":
		f.mu.Lock()
		down := f.manifestDown > 0
		f.manifestDown--
		f.mu.Unlock()
		if down {
			answer(w, http.StatusServiceUnavailable, map[string]string{"error": "the gateway does not answer", "code": "UNAVAILABLE"})
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(f.manifest)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/spoiled":
		f.spoil(w, body)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/ballots":
		f.castBallot(w, body)
	default:
		f.t.Errorf("box: unexpected %s %s", r.Method, r.URL.Path)
		answer(w, http.StatusNotFound, map[string]string{"error": "no such endpoint", "code": "DECODE"})
	}
}

func (f *fakeBox) spoil(w http.ResponseWriter, body []byte) {
	f.mu.Lock()
	f.spoilBodies = append(f.spoilBodies, string(body))
	f.mu.Unlock()
	fault := f.next(&f.refuseSpoil)
	if fail(w, fault) {
		return
	}
	s, err := election.ParseSpoiledBallot(body)
	if err != nil {
		f.t.Errorf("box: the booth sent a spoiled ballot that does not parse: %v", err)
		answer(w, http.StatusBadRequest, map[string]string{"error": err.Error(), "code": election.CodeOf(err)})
		return
	}
	sels, err := f.prep.CheckSpoiled(s)
	if err != nil {
		f.t.Errorf("box: the booth sent a spoiled ballot that CheckSpoiled refuses: %v", err)
		answer(w, http.StatusUnprocessableEntity, map[string]string{"error": err.Error(), "code": election.CodeOf(err)})
		return
	}
	f.mu.Lock()
	f.spoiled = append(f.spoiled, spoiledSeen{tracker: s.TrackerHex(), sels: sels})
	n := len(f.spoiled)
	f.mu.Unlock()
	tracker := s.TrackerHex()
	if fault == faultLie {
		tracker = otherTracker
	}
	answer(w, http.StatusOK, map[string]any{"electionID": s.ElectionID, "tracker": tracker, "txID": fmt.Sprintf("spoil-%d", n), "block": 7})
}

// castBallot records a ballot that CheckBallot accepts, once per
// pseudonym: a second one is DUPLICATE, as the contract answers.
func (f *fakeBox) castBallot(w http.ResponseWriter, body []byte) {
	f.mu.Lock()
	f.castBodies = append(f.castBodies, string(body))
	f.mu.Unlock()
	fault := f.next(&f.refuse)
	if fail(w, fault) {
		return
	}
	var req struct{ Ballot []byte }
	if err := json.Unmarshal(body, &req); err != nil {
		f.t.Errorf("box: the booth sent %q, not {ballot}: %v", body, err)
		answer(w, http.StatusBadRequest, map[string]string{"error": err.Error(), "code": "DECODE"})
		return
	}
	b, err := election.ParseBallot(req.Ballot)
	if err == nil {
		err = f.prep.CheckBallot(b, nil)
	}
	if err != nil {
		f.t.Errorf("box: the booth sent a ballot that CheckBallot refuses: %v", err)
		answer(w, http.StatusUnprocessableEntity, map[string]string{"error": err.Error(), "code": election.CodeOf(err)})
		return
	}
	f.mu.Lock()
	dup := slices.ContainsFunc(f.cast, func(c *election.Ballot) bool { return c.PseudonymHex() == b.PseudonymHex() })
	if !dup {
		f.cast = append(f.cast, b)
	}
	n := len(f.cast)
	f.mu.Unlock()
	if dup {
		answer(w, http.StatusUnprocessableEntity, map[string]string{"error": "this voter has cast a ballot", "code": "DUPLICATE"})
		return
	}
	hash := b.Hash()
	tracker := b.TrackerHex()
	if fault == faultLie {
		tracker = otherTracker
	}
	answer(w, http.StatusOK, map[string]any{"electionID": b.ElectionID, "tracker": tracker, "ballotHash": hex.EncodeToString(hash[:]),
		"pseudonym": b.PseudonymHex(), "txID": fmt.Sprintf("cast-%d", n), "block": 8})
}

func answer(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
