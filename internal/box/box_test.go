package box

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/ballotclient"
	"github.com/fabvote/fabvote/internal/gateway"
	"github.com/fabvote/fabvote/internal/opsserve"
	"github.com/hyperledger/fabric-protos-go-apiv2/peer"
)

const (
	testElection = "e1"
	boothOrigin  = "https://booth.example.org"
)

// fakeLedger records what reaches the gateway and answers as scripted.
// With gate set, every call waits for it to be closed, after telling
// entered.
type fakeLedger struct {
	mu          sync.Mutex
	casts       [][]byte
	spoils      [][]byte
	castErr     error
	spoilErr    error
	manifestErr error
	gate        chan struct{}
	entered     chan struct{}
}

func (f *fakeLedger) wait() {
	if f.gate != nil {
		f.entered <- struct{}{}
		<-f.gate
	}
}

func (f *fakeLedger) CastBallot(_ context.Context, ballot []byte) (*ballotclient.CastReceipt, error) {
	f.wait()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.casts = append(f.casts, ballot)
	if f.castErr != nil {
		return nil, f.castErr
	}
	return &ballotclient.CastReceipt{Receipt: election.Receipt{TxID: "tx-cast"}, Block: 42}, nil
}

func (f *fakeLedger) SpoilBallot(_ context.Context, spoiled []byte) (*ballotclient.SpoilReceipt, error) {
	f.wait()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.spoils = append(f.spoils, spoiled)
	if f.spoilErr != nil {
		return nil, f.spoilErr
	}
	return &ballotclient.SpoilReceipt{ElectionID: testElection, Tracker: strings.Repeat("ab", 32), TxID: "tx-spoil", Block: 43, Attempts: 1}, nil
}

func (f *fakeLedger) GetManifest(_ context.Context, id string) ([]byte, error) {
	if f.manifestErr != nil {
		return nil, f.manifestErr
	}
	return []byte(`{"electionID":"` + id + `"}`), nil
}

func (f *fakeLedger) submitted() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.casts) + len(f.spoils)
}

// newTestBox is a box of testElection on f answering boothOrigin, with
// the default limits changed by tune.
func newTestBox(t *testing.T, f *fakeLedger, tune func(*Limits)) *Server {
	t.Helper()
	l := DefaultLimits()
	if tune != nil {
		tune(&l)
	}
	s, err := New(Config{ElectionID: testElection, Ledger: f, AllowOrigins: []string{boothOrigin}, Limits: l, Ops: opsserve.New()})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// testBallot is a ballot that parses (election.ParseBallot): a real voter
// key, a token and a signature of canonical form; nothing in it verifies.
func testBallot(t *testing.T, electionID string, ciphertext byte) []byte {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := k.PublicKey.Bytes()
	sig := make([]byte, election.SignatureLen)
	sig[31], sig[63] = 1, 1
	token := append(bytes.Repeat([]byte{7}, election.PseudonymLen), 0)
	token = append(token, sig...)
	b := &election.Ballot{ElectionID: electionID, VoterPub: pub, Token: token, Contests: []byte{0},
		Ciphertext: bytes.Repeat([]byte{ciphertext}, 512), Proof: []byte{2, 3}, Signature: sig}
	raw := b.Marshal()
	if _, err := election.ParseBallot(raw); err != nil {
		t.Fatalf("test ballot does not parse: %v", err)
	}
	return raw
}

func ballotBody(ballot []byte) string {
	return `{"ballot":"` + base64.StdEncoding.EncodeToString(ballot) + `"}`
}

func spoiledBody(electionID string) string {
	return `{"format":"fabvote/spoiled-ballot","version":1,"electionID":"` + electionID + `","contests":[0],"ciphertexts":["01"],"opening":{"ciphertexts":[{"plaintext":"1","nonce":"2"}]}}`
}

// request is one request to the box.
type request struct {
	method, path, body string
	contentType        string // "" = application/json
	origin             string
	remote             string // "" = httptest's
	header             map[string]string
}

func do(s *Server, q request) *httptest.ResponseRecorder {
	if q.method == "" {
		q.method = http.MethodPost
	}
	r := httptest.NewRequest(q.method, q.path, strings.NewReader(q.body))
	if q.contentType == "" {
		q.contentType = "application/json"
	}
	r.Header.Set("Content-Type", q.contentType)
	if q.origin != "" {
		r.Header.Set("Origin", q.origin)
	}
	if q.remote != "" {
		r.RemoteAddr = q.remote
	}
	for k, v := range q.header {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	return w
}

// refusalOf decodes a refusal's body; it fails the test when the answer is
// no JSON refusal with a message and the code.
func refusalOf(t *testing.T, w *httptest.ResponseRecorder, status int, code string) Refusal {
	t.Helper()
	if w.Code != status {
		t.Fatalf("status %d, want %d (body %s)", w.Code, status, w.Body)
	}
	if ct := w.Header().Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type %q, want application/json", ct)
	}
	var rf Refusal
	if err := json.Unmarshal(w.Body.Bytes(), &rf); err != nil || rf.Error == "" || rf.Code != code {
		t.Fatalf("refusal %s (%v), want code %s with a message", w.Body, err, code)
	}
	return rf
}

// TestBadRequestsSubmitNothing: each kind of bad request gets its own status
// and code, and nothing reaches the gateway.
func TestBadRequestsSubmitNothing(t *testing.T) {
	good := testBallot(t, testElection, 1)
	tests := []struct {
		name   string
		q      request
		status int
		code   string
		says   string
	}{
		{"malformed JSON", request{path: BallotsPath, body: `{"ballot":`}, http.StatusBadRequest, election.CodeDecode, "not JSON of"},
		{"unknown key", request{path: BallotsPath, body: `{"ballot":"AAAA","voter":"x"}`}, http.StatusBadRequest, election.CodeDecode, "unknown field \"voter\""},
		{"two JSON objects", request{path: BallotsPath, body: ballotBody(good) + `{}`}, http.StatusBadRequest, election.CodeDecode, "more after its JSON object"},
		{"no ballot", request{path: BallotsPath, body: `{}`}, http.StatusBadRequest, election.CodeDecode, "missing"},
		{"not base64", request{path: BallotsPath, body: `{"ballot":"not base64!"}`}, http.StatusBadRequest, election.CodeDecode, "not standard base64"},
		{"base64 without padding", request{path: BallotsPath, body: `{"ballot":"AAAAAA"}`}, http.StatusBadRequest, election.CodeDecode, "not standard base64"},
		{"not a ballot", request{path: BallotsPath, body: ballotBody([]byte("hello"))}, http.StatusBadRequest, election.CodeDecode, "does not decode"},
		{"ballot of another election", request{path: BallotsPath, body: ballotBody(testBallot(t, "e2", 1))}, http.StatusUnprocessableEntity, election.CodeNoElection, "not \"e2\""},
		{"ballot body too large", request{path: BallotsPath, body: `{"ballot":"` + strings.Repeat("A", int(maxBallotBody)) + `"}`}, http.StatusRequestEntityTooLarge, election.CodeSize, "larger than"},
		{"not JSON content", request{path: BallotsPath, body: ballotBody(good), contentType: "text/plain"}, http.StatusUnsupportedMediaType, election.CodeDecode, "Content-Type: application/json"},
		{"spoiled not JSON", request{path: SpoiledPath, body: `{"format":`}, http.StatusBadRequest, election.CodeDecode, "not one JSON object"},
		{"spoiled not an object", request{path: SpoiledPath, body: `[1,2]`}, http.StatusBadRequest, election.CodeDecode, "not one JSON object"},
		{"spoiled of another election", request{path: SpoiledPath, body: spoiledBody("e2")}, http.StatusUnprocessableEntity, election.CodeNoElection, "not \"e2\""},
		{"spoiled body too large", request{path: SpoiledPath, body: `{"x":"` + strings.Repeat("a", int(maxSpoiledBody)) + `"}`}, http.StatusRequestEntityTooLarge, election.CodeSize, "larger than"},
		{"wrong method", request{method: http.MethodGet, path: BallotsPath}, http.StatusMethodNotAllowed, CodeMethod, "use POST"},
		{"wrong method for spoiled", request{method: http.MethodPut, path: SpoiledPath, body: spoiledBody(testElection)}, http.StatusMethodNotAllowed, CodeMethod, "use POST"},
		{"unknown route", request{path: "/v1/ballot", body: ballotBody(good)}, http.StatusNotFound, CodeNotFound, "no such endpoint"},
		{"manifest of another election", request{method: http.MethodGet, path: ManifestPrefix + "e2" + ManifestSuffix}, http.StatusNotFound, CodeNotFound, "serves election \"e1\" only"},
		{"disallowed origin", request{path: BallotsPath, body: ballotBody(good), origin: "https://evil.example"}, http.StatusForbidden, CodeOrigin, "does not answer pages from"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeLedger{}
			w := do(newTestBox(t, f, nil), tc.q)
			rf := refusalOf(t, w, tc.status, tc.code)
			if !strings.Contains(rf.Error, tc.says) {
				t.Errorf("message %q does not say %q", rf.Error, tc.says)
			}
			if n := f.submitted(); n != 0 {
				t.Fatalf("%d submissions reached the gateway", n)
			}
			if tc.status == http.StatusMethodNotAllowed && w.Header().Get("Allow") != http.MethodPost {
				t.Errorf("Allow %q, want POST", w.Header().Get("Allow"))
			}
			if acao := w.Header().Get("Access-Control-Allow-Origin"); tc.q.origin != "" && acao != "" {
				t.Errorf("a refused origin got Access-Control-Allow-Origin %q", acao)
			}
		})
	}
}

// TestCORS: the booth's origin gets its preflight and its origin echoed;
// another origin gets neither.
func TestCORS(t *testing.T) {
	preflight := func(origin, method, path string) request {
		return request{method: http.MethodOptions, path: path, origin: origin, header: map[string]string{"Access-Control-Request-Method": method}}
	}
	tests := []struct {
		name        string
		q           request
		status      int
		wantACAO    string
		wantMethods string
	}{
		{"preflight of the booth", preflight(boothOrigin, http.MethodPost, BallotsPath), http.StatusNoContent, boothOrigin, http.MethodPost},
		{"preflight of spoiled", preflight(boothOrigin, http.MethodPost, SpoiledPath), http.StatusNoContent, boothOrigin, http.MethodPost},
		{"preflight of the manifest", preflight(boothOrigin, http.MethodGet, ManifestPrefix+testElection+ManifestSuffix), http.StatusNoContent, boothOrigin, http.MethodGet},
		{"preflight of another origin", preflight("https://evil.example", http.MethodPost, BallotsPath), http.StatusForbidden, "", ""},
		{"preflight of the booth's host over http", preflight("http://booth.example.org", http.MethodPost, BallotsPath), http.StatusForbidden, "", ""},
		{"preflight for a method the route does not take", preflight(boothOrigin, http.MethodDelete, BallotsPath), http.StatusMethodNotAllowed, boothOrigin, ""},
		{"preflight of an unknown route", preflight(boothOrigin, http.MethodPost, "/v1/nothing"), http.StatusNotFound, boothOrigin, ""},
		{"request of the booth", request{path: BallotsPath, body: ballotBody(testBallot(t, testElection, 1)), origin: boothOrigin}, http.StatusOK, boothOrigin, ""},
		{"request without Origin", request{path: BallotsPath, body: ballotBody(testBallot(t, testElection, 1))}, http.StatusOK, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeLedger{}
			w := do(newTestBox(t, f, nil), tc.q)
			if w.Code != tc.status {
				t.Fatalf("status %d, want %d (%s)", w.Code, tc.status, w.Body)
			}
			if got := w.Header().Get("Access-Control-Allow-Origin"); got != tc.wantACAO {
				t.Errorf("Access-Control-Allow-Origin %q, want %q", got, tc.wantACAO)
			}
			if got := w.Header().Get("Access-Control-Allow-Methods"); got != tc.wantMethods {
				t.Errorf("Access-Control-Allow-Methods %q, want %q", got, tc.wantMethods)
			}
			if !strings.Contains(w.Header().Get("Vary"), "Origin") {
				t.Error("no Vary: Origin")
			}
			if expose := w.Header().Get("Access-Control-Expose-Headers"); (tc.wantACAO != "") != (expose == "Retry-After") {
				t.Errorf("Access-Control-Expose-Headers %q with Access-Control-Allow-Origin %q: want Retry-After exactly when the origin is allowed", expose, tc.wantACAO)
			}
			if tc.q.method == http.MethodOptions && f.submitted() != 0 {
				t.Error("a preflight reached the gateway")
			}
		})
	}
}

// TestRateLimits: a client address over its rate gets 429 with
// Retry-After and submits nothing; another address is not held back;
// spoiled ballots have their own, stricter bucket.
func TestRateLimits(t *testing.T) {
	f := &fakeLedger{}
	s := newTestBox(t, f, func(l *Limits) {
		l.BallotRate, l.BallotBurst = 0.01, 2
		l.SpoilRate, l.SpoilBurst = 0.001, 1
	})
	ballot := func(remote string) *httptest.ResponseRecorder {
		return do(s, request{path: BallotsPath, body: ballotBody(testBallot(t, testElection, 1)), remote: remote})
	}
	spoil := func(remote string) *httptest.ResponseRecorder {
		return do(s, request{path: SpoiledPath, body: spoiledBody(testElection), remote: remote})
	}
	const a, b = "192.0.2.1:1000", "192.0.2.2:1000"
	for i := 0; i < 2; i++ {
		if w := ballot(a); w.Code != http.StatusOK {
			t.Fatalf("ballot %d within the burst: %d %s", i, w.Code, w.Body)
		}
	}
	w := ballot(a)
	refusalOf(t, w, http.StatusTooManyRequests, CodeRate)
	if ra, err := strconv.Atoi(w.Header().Get("Retry-After")); err != nil || ra < 1 {
		t.Fatalf("Retry-After %q, want whole seconds", w.Header().Get("Retry-After"))
	}
	if len(f.casts) != 2 {
		t.Fatalf("%d ballots submitted, want the 2 within the burst", len(f.casts))
	}
	if w := ballot(b); w.Code != http.StatusOK {
		t.Fatalf("another address held back: %d", w.Code)
	}
	if w := spoil(a); w.Code != http.StatusOK {
		t.Fatalf("spoiled ballot held back by the ballots' bucket: %d %s", w.Code, w.Body)
	}
	refusalOf(t, spoil(a), http.StatusTooManyRequests, CodeRate)
	if len(f.spoils) != 1 {
		t.Fatalf("%d spoiled ballots submitted, want 1", len(f.spoils))
	}
	// One IPv6 host holds a /64: its addresses share a bucket.
	s = newTestBox(t, f, func(l *Limits) { l.SpoilRate, l.SpoilBurst = 0.001, 1 })
	if w := spoil("[2001:db8::1]:1000"); w.Code != http.StatusOK {
		t.Fatalf("first spoiled ballot from the /64: %d", w.Code)
	}
	refusalOf(t, spoil("[2001:db8::2]:1000"), http.StatusTooManyRequests, CodeRate)
}

// TestLedgerRefusals: each kind of the ledger's refusal maps to its status
// and code, with a message that says what to do.
func TestLedgerRefusals(t *testing.T) {
	reject := func(code string) error {
		return &gateway.RejectError{Fn: "CastBallot", Code: code, Msg: "fabvote " + code + ": the contract's reason", Attempts: 1}
	}
	tests := []struct {
		name    string
		path    string
		err     error
		status  int
		code    string
		says    string
		retries bool // a Retry-After header
	}{
		{"duplicate", BallotsPath, reject(election.CodeDuplicate), 422, "DUPLICATE", "this voter has already cast a ballot; nothing was changed", false},
		{"spoiled ballot cast", BallotsPath, reject("SPOILED"), 422, "SPOILED", "make a new ballot", false},
		{"window", BallotsPath, reject(election.CodeWindow), 422, "WINDOW", "not open for voting", false},
		{"token", BallotsPath, reject(election.CodeToken), 422, "TOKEN", "register again", false},
		{"proof", BallotsPath, reject(election.CodeProof), 422, "PROOF", "reload the booth", false},
		{"opening", SpoiledPath, reject("OPENING"), 422, "OPENING", "tell the election authority", false},
		{"cast ballot opened", SpoiledPath, reject("CAST_OPENED"), 422, "CAST_OPENED", "never opened", false},
		{"spoiled twice", SpoiledPath, reject(election.CodeExists), 422, "EXISTS", "already published", false},
		{"read conflict", BallotsPath, &gateway.CommitError{Fn: "CastBallot", TxID: "t", Code: peer.TxValidationCode_MVCC_READ_CONFLICT}, 409, "MVCC_READ_CONFLICT", "send it again", false},
		{"policy failure", BallotsPath, &gateway.CommitError{Fn: "CastBallot", TxID: "t", Code: peer.TxValidationCode_ENDORSEMENT_POLICY_FAILURE}, 409, "ENDORSEMENT_POLICY_FAILURE", "another organisation's ballot box", false},
		{"validation plugin's code", SpoiledPath, &gateway.CommitError{Fn: "SpoilBallot", TxID: "t", Code: peer.TxValidationCode_INVALID_WRITESET}, 409, "INVALID_WRITESET", "nothing was recorded", false},
		{"gateway unreachable", BallotsPath, fmt.Errorf("CastBallot: gave up after 8 attempts: %w", &gateway.TransientError{Fn: "CastBallot", Err: errors.New("connection refused")}), 503, CodeUnavailable, "cannot be reached", true},
		{"commit unknown", BallotsPath, fmt.Errorf("CastBallot: %w after 8 attempt(s)", gateway.ErrCommitStatusUnknown), 504, CodeCommitUnknown, "bulletin board", false},
		{"unknown error", SpoiledPath, errors.New("SpoilBallot: something odd"), 502, election.CodeInternal, "bulletin board", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeLedger{castErr: tc.err, spoilErr: tc.err}
			body := ballotBody(testBallot(t, testElection, 1))
			if tc.path == SpoiledPath {
				body = spoiledBody(testElection)
			}
			w := do(newTestBox(t, f, nil), request{path: tc.path, body: body})
			rf := refusalOf(t, w, tc.status, tc.code)
			if !strings.Contains(rf.Error, tc.says) {
				t.Errorf("message %q does not say %q", rf.Error, tc.says)
			}
			if (w.Header().Get("Retry-After") != "") != tc.retries {
				t.Errorf("Retry-After %q", w.Header().Get("Retry-After"))
			}
		})
	}
}
