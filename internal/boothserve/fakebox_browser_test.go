//go:build browser

package boothserve_test

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
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
	refuse       []string // the next casts' refusals, in order: "down", "RATE" or an election code
	spoiled      []spoiledSeen
	cast         []*election.Ballot
}

// spoiledSeen is a spoiled ballot the box accepted: its tracker and the
// choice its opening reveals.
type spoiledSeen struct {
	tracker string
	sels    []votecode.Selection
}

func (f *fakeBox) refuseNext(what ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.refuse = append(f.refuse, what...)
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
	answer(w, http.StatusOK, map[string]any{"electionID": s.ElectionID, "tracker": s.TrackerHex(), "txID": fmt.Sprintf("spoil-%d", n), "block": 7})
}

func (f *fakeBox) castBallot(w http.ResponseWriter, body []byte) {
	f.mu.Lock()
	var refusal string
	if len(f.refuse) > 0 {
		refusal, f.refuse = f.refuse[0], f.refuse[1:]
	}
	f.mu.Unlock()
	switch refusal {
	case "":
	case "down":
		answer(w, http.StatusServiceUnavailable, map[string]string{"error": "the gateway does not answer", "code": "UNAVAILABLE"})
		return
	case "RATE":
		w.Header().Set("Retry-After", "30")
		answer(w, http.StatusTooManyRequests, map[string]string{"error": "too many requests", "code": "RATE"})
		return
	default:
		answer(w, http.StatusUnprocessableEntity, map[string]string{"error": "refused by the contract", "code": refusal})
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
	f.cast = append(f.cast, b)
	n := len(f.cast)
	f.mu.Unlock()
	hash := b.Hash()
	answer(w, http.StatusOK, map[string]any{"electionID": b.ElectionID, "tracker": b.TrackerHex(), "ballotHash": hex.EncodeToString(hash[:]),
		"pseudonym": b.PseudonymHex(), "txID": fmt.Sprintf("cast-%d", n), "block": 8})
}

func answer(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
