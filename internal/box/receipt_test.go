package box

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/gateway"
	"github.com/fabvote/fabvote/internal/opsserve"
	"github.com/hyperledger/fabric-protos-go-apiv2/peer"
)

// TestBallotReceipt: a committed ballot's receipt carries the box's
// election, the ballot's tracker, hash and pseudonym and the ledger's
// transaction and block, in the API's key order; the ballot reaches the
// gateway byte for byte.
func TestBallotReceipt(t *testing.T) {
	f := &fakeLedger{}
	ballot := testBallot(t, testElection, 1)
	w := do(newTestBox(t, f, nil), request{path: BallotsPath, body: ballotBody(ballot), origin: boothOrigin})
	if w.Code != http.StatusOK || w.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("status %d, Content-Type %q: %s", w.Code, w.Header().Get("Content-Type"), w.Body)
	}
	if len(f.casts) != 1 || !bytes.Equal(f.casts[0], ballot) {
		t.Fatal("the ballot submitted is not the ballot sent")
	}
	keys := regexp.MustCompile(`^\{"electionID":"[^"]*","tracker":"[0-9a-f]{64}","ballotHash":"[0-9a-f]{64}","pseudonym":"[0-9a-f]+","txID":"[^"]*","block":[0-9]+\}\n$`)
	if !keys.Match(w.Body.Bytes()) {
		t.Fatalf("receipt %s: keys or formats not as the API has them", w.Body)
	}
	var rc Receipt
	json.Unmarshal(w.Body.Bytes(), &rc)
	b, _ := election.ParseBallot(ballot)
	h := sha256.Sum256(ballot)
	want := Receipt{ElectionID: testElection, Tracker: rc.Tracker, BallotHash: hex.EncodeToString(h[:]), Pseudonym: b.PseudonymHex(), TxID: "tx-cast", Block: 42}
	if rc != want {
		t.Fatalf("receipt %+v, want %+v", rc, want)
	}
	if rc.Tracker == rc.BallotHash {
		t.Fatal("the tracker is the ballot hash")
	}
}

// TestTrackerCommitsToTheVoteOnly: the tracker changes with the election,
// the contests or the ciphertexts, and not with anything of the voter (key,
// token, signature), nor with the proof.
func TestTrackerCommitsToTheVoteOnly(t *testing.T) {
	parse := func(raw []byte) *election.Ballot {
		b, err := election.ParseBallot(raw)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	base := parse(testBallot(t, testElection, 1))
	other := parse(testBallot(t, testElection, 1)) // another voter key
	other.Token = bytes.Repeat([]byte{9}, len(other.Token))
	other.Signature = bytes.Repeat([]byte{8}, len(other.Signature))
	other.Proof = []byte{5}
	if base.Tracker() != other.Tracker() {
		t.Fatal("the tracker depends on the voter's key, token, signature or proof")
	}
	changed := []func(b *election.Ballot){
		func(b *election.Ballot) { b.ElectionID = "e2" },
		func(b *election.Ballot) { b.Contests = []byte{1} },
		func(b *election.Ballot) { b.Ciphertext = bytes.Repeat([]byte{2}, len(b.Ciphertext)) },
		// The fields are length-prefixed: moving a byte between them changes it.
		func(b *election.Ballot) {
			b.Contests, b.Ciphertext = append(b.Contests, b.Ciphertext[0]), b.Ciphertext[1:]
		},
	}
	for i, change := range changed {
		b := *base
		change(&b)
		if b.Tracker() == base.Tracker() {
			t.Errorf("change %d leaves the tracker as it was", i)
		}
	}
}

// TestSpoiledReceipt: the spoiled ballot reaches the gateway as sent, and
// the answer has the API's keys.
func TestSpoiledReceipt(t *testing.T) {
	f := &fakeLedger{}
	body := spoiledBody(testElection)
	w := do(newTestBox(t, f, nil), request{path: SpoiledPath, body: body})
	if w.Code != http.StatusOK {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	if len(f.spoils) != 1 || string(f.spoils[0]) != body {
		t.Fatal("the spoiled ballot submitted is not the one sent")
	}
	want := `{"electionID":"e1","tracker":"` + strings.Repeat("ab", 32) + `","txID":"tx-spoil","block":43}` + "\n"
	if w.Body.String() != want {
		t.Fatalf("answer %s, want %s", w.Body, want)
	}
}

// TestInFlightBound: with MaxInFlight calls waiting on the gateway, the next
// request is refused at once with 503 and Retry-After, and submits
// nothing; once they return, the box takes requests again.
func TestInFlightBound(t *testing.T) {
	const n = 3
	f := &fakeLedger{gate: make(chan struct{}), entered: make(chan struct{}, n)}
	s := newTestBox(t, f, func(l *Limits) { l.MaxInFlight = n })
	var wg sync.WaitGroup
	codes := make([]int, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = do(s, request{path: BallotsPath, body: ballotBody(testBallot(t, testElection, 1))}).Code
		}()
	}
	for i := 0; i < n; i++ {
		<-f.entered
	}
	w := do(s, request{path: SpoiledPath, body: spoiledBody(testElection)})
	refusalOf(t, w, http.StatusServiceUnavailable, CodeUnavailable)
	if w.Header().Get("Retry-After") == "" {
		t.Error("a full box's refusal has no Retry-After")
	}
	if got := metricValue(t, s, "fabvote_box_in_flight"); got != "3" {
		t.Errorf("in-flight gauge %s, want 3", got)
	}
	close(f.gate)
	wg.Wait()
	for i, c := range codes {
		if c != http.StatusOK {
			t.Errorf("request %d in flight: status %d", i, c)
		}
	}
	if f.submitted() != n {
		t.Fatalf("%d submissions, want the %d in flight", f.submitted(), n)
	}
	f.gate = nil
	if w := do(s, request{path: SpoiledPath, body: spoiledBody(testElection)}); w.Code != http.StatusOK {
		t.Fatalf("after the calls returned: %d", w.Code)
	}
}

// metricValue scrapes the box's /metrics on its operations endpoint for
// the line starting with name.
func metricValue(t *testing.T, s *Server, name string) string {
	t.Helper()
	w := httptest.NewRecorder()
	s.ops.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "http://ops/metrics", nil))
	for _, line := range strings.Split(w.Body.String(), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			return v
		}
	}
	t.Fatalf("no %s in /metrics", name)
	return ""
}

// TestManifestHealthAndMetrics: the manifest comes from the ledger; /healthz
// fails when the gateway does not answer; /metrics, on the operations
// endpoint only, counts answers by route and code.
func TestManifestHealthAndMetrics(t *testing.T) {
	f := &fakeLedger{castErr: &gateway.RejectError{Fn: "CastBallot", Code: "DUPLICATE", Msg: "fabvote DUPLICATE: x"}}
	s := newTestBox(t, f, nil)
	w := do(s, request{method: http.MethodGet, path: ManifestPrefix + testElection + ManifestSuffix})
	if w.Code != http.StatusOK || w.Body.String() != `{"electionID":"e1"}` {
		t.Fatalf("manifest: %d %s", w.Code, w.Body)
	}
	if w := do(s, request{method: http.MethodGet, path: "/metrics"}); w.Code != http.StatusNotFound {
		t.Errorf("/metrics on the voters' listener: %d, want 404 (the metrics are the operations endpoint's)", w.Code)
	}
	if w := do(s, request{method: http.MethodGet, path: "/healthz"}); w.Code != http.StatusOK {
		t.Fatalf("healthz with the gateway answering: %d %s", w.Code, w.Body)
	}
	do(s, request{path: BallotsPath, body: ballotBody(testBallot(t, testElection, 1))})
	if got := metricValue(t, s, `fabvote_box_requests_total{code="DUPLICATE",route="ballots"}`); got != "1" {
		t.Errorf("DUPLICATE count %s, want 1", got)
	}
	if got := metricValue(t, s, `fabvote_box_submission_duration_seconds_count{route="ballots"}`); got != "1" {
		t.Errorf("ballot submissions timed %s, want 1", got)
	}
	f.manifestErr = errors.New("connection refused")
	w = do(s, request{method: http.MethodGet, path: "/healthz"})
	if w.Code != http.StatusServiceUnavailable || !strings.Contains(w.Body.String(), "connection refused") {
		t.Fatalf("healthz with the gateway down: %d %s", w.Code, w.Body)
	}
	if got := metricValue(t, s, `fabvote_box_requests_total{code="UNAVAILABLE",route="ops"}`); got != "1" {
		t.Errorf("failed health checks counted %s, want 1", got)
	}
	refusalOf(t, do(s, request{method: http.MethodGet, path: ManifestPrefix + testElection + ManifestSuffix}), http.StatusBadGateway, election.CodeInternal)
}

// TestNewRefusesBadConfig: an origin with a path, or a limit of zero, is
// refused at start.
func TestNewRefusesBadConfig(t *testing.T) {
	tests := []struct {
		name    string
		origins []string
		tune    func(*Limits)
	}{
		{"origin with a path", []string{"https://booth.example.org/booth/"}, nil},
		{"origin without a scheme", []string{"booth.example.org"}, nil},
		{"zero ballot rate", nil, func(l *Limits) { l.BallotRate = 0 }},
		{"zero spoiled burst", nil, func(l *Limits) { l.SpoilBurst = 0 }},
		{"no in-flight slot", nil, func(l *Limits) { l.MaxInFlight = 0 }},
		{"no submission time", nil, func(l *Limits) { l.SubmitTimeout = 0 }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := DefaultLimits()
			if tc.tune != nil {
				tc.tune(&l)
			}
			if _, err := New(Config{ElectionID: testElection, Ledger: &fakeLedger{}, AllowOrigins: tc.origins, Limits: l, Ops: opsserve.New()}); err == nil {
				t.Fatal("accepted")
			}
		})
	}
}

// TestBucketsForgetIdleAddresses: an address idle for as long as its
// bucket takes to fill is forgotten, so the map does not grow without bound.
func TestBucketsForgetIdleAddresses(t *testing.T) {
	b := newBuckets(1, 5)
	t0 := time.Now()
	b.take("a", t0)
	b.take("b", t0.Add(2*time.Minute))
	if _, ok := b.m["a"]; ok {
		t.Fatal("an idle address is still kept")
	}
	if len(b.m) != 1 {
		t.Fatalf("%d addresses kept, want 1", len(b.m))
	}
}

// TestLogLinksNoAddressToBallot: no log line names both a client address
// and a ballot's pseudonym, tracker or transaction, whether the ballot is
// committed, refused by the contract or lost by the ledger.
func TestLogLinksNoAddressToBallot(t *testing.T) {
	const remote, addr = "198.51.100.7:4000", "198.51.100.7"
	ballot := testBallot(t, testElection, 1)
	b, _ := election.ParseBallot(ballot)
	tr := b.Tracker()
	secrets := []string{b.PseudonymHex(), hex.EncodeToString(tr[:]), "tx-cast", "tx-lost"}
	for _, err := range []error{
		nil,
		&gateway.RejectError{Fn: "CastBallot", Code: "DUPLICATE", Msg: "fabvote DUPLICATE: voter " + b.PseudonymHex() + " already has a ballot"},
		&gateway.CommitError{Fn: "CastBallot", TxID: "tx-lost", Code: peer.TxValidationCode_MVCC_READ_CONFLICT},
		&gateway.TransientError{Fn: "CastBallot", Err: errors.New("transaction tx-lost: connection refused")},
	} {
		var buf bytes.Buffer
		s, _ := New(Config{ElectionID: testElection, Ledger: &fakeLedger{castErr: err}, Limits: DefaultLimits(), Ops: opsserve.New(), Log: log.New(&buf, "", 0)})
		do(s, request{path: BallotsPath, body: ballotBody(ballot), remote: remote})
		if buf.Len() == 0 {
			t.Fatalf("ledger error %v: nothing logged", err)
		}
		for _, line := range strings.Split(buf.String(), "\n") {
			for _, secret := range secrets {
				if strings.Contains(line, addr) && strings.Contains(line, secret) {
					t.Errorf("ledger error %v: log line %q joins the address to %s", err, line, secret)
				}
			}
		}
	}
}
