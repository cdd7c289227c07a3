package relay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"filippo.io/age"

	"github.com/fabvote/fabvote/internal/ceremony/ceremonytest"
	"github.com/fabvote/fabvote/internal/ceremony/envelope"
	"github.com/fabvote/fabvote/internal/ceremony/relay"
)

// lab is a ceremony of three trustees whose relay is srv, reached through
// an optional tampering proxy.
type lab struct {
	*ceremonytest.Ceremony
	relay *relay.Server
	own   []*envelope.Chain // each trustee's chain of its own messages
}

// newLab starts a relay with limits l; tamper (nil: none) rewrites each
// message of a GET answer: nil drops it.
func newLab(t *testing.T, l relay.Limits, tamper func(raw []byte) []byte) *lab {
	t.Helper()
	srv, err := relay.New(l, nil)
	if err != nil {
		t.Fatal(err)
	}
	var h http.Handler = srv
	if tamper != nil {
		h = tampering(srv, tamper)
	}
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	c := ceremonytest.New(3, 2, hs.URL)
	lb := &lab{Ceremony: c, relay: srv}
	for _, tr := range c.Config.Trustees {
		lb.own = append(lb.own, envelope.NewChain(uint8(tr.Index), tr.Name))
	}
	return lb
}

// tampering passes requests to next and rewrites GET answers.
func tampering(next http.Handler, tamper func([]byte) []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		if r.Method != http.MethodGet || rec.Code != http.StatusOK {
			w.WriteHeader(rec.Code)
			w.Write(rec.Body.Bytes())
			return
		}
		var m relay.Messages
		if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
			panic(err)
		}
		var kept [][]byte
		for _, raw := range m.Messages {
			if out := tamper(raw); out != nil {
				kept = append(kept, out)
			}
		}
		m.Messages = kept
		json.NewEncoder(w).Encode(m)
	})
}

func (lb *lab) client(t *testing.T, me int) *relay.Client {
	t.Helper()
	c, err := relay.NewClient(lb.Config, me)
	if err != nil {
		t.Fatal(err)
	}
	c.Poll = 5 * time.Millisecond
	return c
}

// send seals trustee from's next message of round to to and posts it.
func (lb *lab) send(t *testing.T, from, to uint8, round uint16, body string) []byte {
	t.Helper()
	own := lb.own[from-1]
	h := envelope.Header{Ceremony: lb.Config.ID(), ConfigDigest: lb.Config.Digest(), Round: round, From: from, To: to, Seq: own.Next(), PrevHash: own.Last()}
	var rcp age.Recipient
	if to != envelope.Broadcast {
		rcp = lb.Ids[to-1].Recipient()
	}
	raw, err := envelope.Seal(h, []byte(body), lb.Signers[from-1], rcp)
	if err != nil {
		t.Fatal(err)
	}
	e, _ := envelope.Parse(raw)
	if err := own.Accept(e); err != nil {
		t.Fatal(err)
	}
	if _, err := lb.client(t, int(from)).Post(context.Background(), raw); err != nil {
		t.Fatal(err)
	}
	return raw
}

// Three trustees exchange a broadcast and private messages per round; each
// gets every message meant for it, decrypted, and nothing else.
func TestThreeParties(t *testing.T) {
	l := relay.DefaultLimits()
	l.MaxResponse = 1 // one message per answer: the client pages
	lb := newLab(t, l, nil)
	clients := []*relay.Client{lb.client(t, 1), lb.client(t, 2), lb.client(t, 3)}
	for round := uint16(1); round <= 2; round++ {
		for from := uint8(1); from <= 3; from++ {
			lb.send(t, from, envelope.Broadcast, round, fmt.Sprintf("r%d from %d to all", round, from))
			for to := uint8(1); to <= 3; to++ {
				if to != from {
					lb.send(t, from, to, round, fmt.Sprintf("r%d from %d to %d", round, from, to))
				}
			}
		}
		for me, c := range clients {
			want := relay.WantFromAll(lb.Config, me+1, round, 0, true, true)
			got, err := c.Round(context.Background(), want, 5*time.Second)
			if err != nil {
				t.Fatalf("trustee %d, round %d: %v", me+1, round, err)
			}
			if len(got) != 4 {
				t.Fatalf("trustee %d, round %d: %d messages, want 4", me+1, round, len(got))
			}
			for w, e := range got {
				body, err := e.BodyFor(me+1, lb.Ids[me])
				wantBody := fmt.Sprintf("r%d from %d to %d", round, w.From, w.To)
				if w.To == envelope.Broadcast {
					wantBody = fmt.Sprintf("r%d from %d to all", round, w.From)
				}
				if err != nil || string(body) != wantBody {
					t.Fatalf("trustee %d: %+v: %q, %v; want %q", me+1, w, body, err, wantBody)
				}
			}
		}
	}
	if n := len(lb.relay.Transcript(lb.Config.ID())); n != 18 {
		t.Fatalf("transcript of %d messages, want 18", n)
	}
}

// The same bytes posted twice are kept once, under their first index.
func TestDedup(t *testing.T) {
	lb := newLab(t, relay.DefaultLimits(), nil)
	raw := lb.send(t, 1, envelope.Broadcast, 1, "hello")
	lb.send(t, 2, envelope.Broadcast, 1, "hello")
	resp := post(t, lb.Config.Relay, lb.Config.Ceremony, raw)
	var p relay.Posted
	json.NewDecoder(resp.Body).Decode(&p)
	if resp.StatusCode != http.StatusOK || p.Index != 1 || !p.Duplicate {
		t.Fatalf("second post: %s %+v; want 200, index 1, duplicate", resp.Status, p)
	}
	if n := len(lb.relay.Transcript(lb.Config.ID())); n != 2 {
		t.Fatalf("transcript of %d messages, want 2", n)
	}
}

func post(t *testing.T, base, id string, body []byte) *http.Response {
	t.Helper()
	resp, err := http.Post(base+"/v1/ceremonies/"+id+"/messages", "application/octet-stream", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// One test per kind of refused request: the status and code say which.
func TestRefusals(t *testing.T) {
	small := relay.Limits{MaxCeremonies: 1, MaxMessages: 2, MaxBytes: 1 << 20, MaxResponse: 1 << 20, MaxInFlight: 4}
	tests := []struct {
		name   string
		limits relay.Limits
		first  int // messages trustee 1 posts before
		id     string
		body   func(lb *lab) []byte
		get    string // a GET query instead of a POST
		status int
		code   string
	}{
		{"bad ceremony id", small, 0, "XYZ", nil, "", http.StatusBadRequest, relay.CodeBadID},
		{"bad ceremony id on GET", small, 0, "00", nil, "since=0", http.StatusBadRequest, relay.CodeBadID},
		{"not an envelope", small, 0, "", func(*lab) []byte { return []byte("hello") }, "", http.StatusBadRequest, relay.CodeBadEnvelope},
		{"too large", small, 0, "", func(*lab) []byte { return make([]byte, envelope.MaxLen+1) }, "", http.StatusRequestEntityTooLarge, relay.CodeTooLarge},
		{"another ceremony", small, 0, "ffeeddccbbaa99887766554433221100", nil, "", http.StatusBadRequest, relay.CodeWrong},
		{"too many messages", small, 2, "", nil, "", http.StatusInsufficientStorage, relay.CodeFull},
		{"too many bytes", relay.Limits{MaxCeremonies: 1, MaxMessages: 9, MaxBytes: 400, MaxResponse: 1, MaxInFlight: 4}, 2, "", nil, "", http.StatusInsufficientStorage, relay.CodeFull},
		{"too many ceremonies", small, 1, "ffeeddccbbaa99887766554433221100", func(lb *lab) []byte { return otherCeremony(t) }, "", http.StatusServiceUnavailable, relay.CodeFull},
		{"bad since", small, 0, "", nil, "since=-1", http.StatusBadRequest, relay.CodeBadSince},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lb := newLab(t, tc.limits, nil)
			for i := 0; i < tc.first; i++ {
				lb.send(t, 1, envelope.Broadcast, uint16(i+1), "")
			}
			id := lb.Config.Ceremony
			if tc.id != "" {
				id = tc.id
			}
			var resp *http.Response
			if tc.get != "" {
				r, err := http.Get(lb.Config.Relay + "/v1/ceremonies/" + id + "/messages?" + tc.get)
				if err != nil {
					t.Fatal(err)
				}
				defer r.Body.Close()
				resp = r
			} else {
				body := okMessage(t, lb)
				if tc.body != nil {
					body = tc.body(lb)
				}
				resp = post(t, lb.Config.Relay, id, body)
			}
			var rf relay.Refusal
			b, _ := io.ReadAll(resp.Body)
			json.Unmarshal(b, &rf)
			if resp.StatusCode != tc.status || rf.Code != tc.code || rf.Error == "" {
				t.Fatalf("%s %s; want %d %s", resp.Status, b, tc.status, tc.code)
			}
		})
	}
}

// okMessage is trustee 2's first broadcast, not yet posted.
func okMessage(t *testing.T, lb *lab) []byte {
	h := envelope.Header{Ceremony: lb.Config.ID(), ConfigDigest: lb.Config.Digest(), Round: 1, From: 2, Seq: 1}
	raw, err := envelope.Seal(h, []byte("x"), lb.Signers[1], nil)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// otherCeremony is a message of ceremony ffeedd…00.
func otherCeremony(t *testing.T) []byte {
	c := ceremonytest.New(3, 2, "https://relay.example")
	c.Config.Ceremony = "ffeeddccbbaa99887766554433221100"
	h := envelope.Header{Ceremony: c.Config.ID(), ConfigDigest: c.Config.Digest(), Round: 1, From: 2, Seq: 1}
	raw, err := envelope.Seal(h, nil, c.Signers[1], nil)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func TestLimitsCheck(t *testing.T) {
	bad := []func(l *relay.Limits){
		func(l *relay.Limits) { l.MaxCeremonies = 0 },
		func(l *relay.Limits) { l.MaxMessages = 0 },
		func(l *relay.Limits) { l.MaxBytes = 0 },
		func(l *relay.Limits) { l.MaxResponse = 0 },
		func(l *relay.Limits) { l.MaxResponse = envelope.MaxLen + 1 },
		func(l *relay.Limits) { l.MaxInFlight = 0 },
	}
	for i, f := range bad {
		l := relay.DefaultLimits()
		f(&l)
		if _, err := relay.New(l, nil); err == nil {
			t.Errorf("case %d: New(%+v) accepted", i, l)
		}
	}
	if _, err := relay.New(relay.DefaultLimits(), nil); err != nil {
		t.Fatalf("the default limits: %v", err)
	}
}

// A request beyond MaxInFlight is refused at once, not queued.
func TestBusy(t *testing.T) {
	l := relay.DefaultLimits()
	l.MaxInFlight = 1
	srv, err := relay.New(l, nil)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	pr, pw := io.Pipe() // a POST whose body never ends holds the one slot
	held := make(chan struct{})
	go func() {
		defer close(held)
		resp, err := http.Post(hs.URL+"/v1/ceremonies/"+ceremonytest.ID+"/messages", "application/octet-stream", pr)
		if err == nil {
			resp.Body.Close()
		}
	}()
	url := hs.URL + "/v1/ceremonies/" + ceremonytest.ID + "/messages"
	deadline := time.Now().Add(5 * time.Second)
	for {
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		var rf relay.Refusal
		json.NewDecoder(resp.Body).Decode(&rf)
		resp.Body.Close()
		if resp.StatusCode == http.StatusServiceUnavailable && rf.Code == relay.CodeBusy {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET while a POST is in flight: %s %+v; want 503 %s", resp.Status, rf, relay.CodeBusy)
		}
		time.Sleep(5 * time.Millisecond)
	}
	pw.Close()
	<-held
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET after the POST: %s", resp.Status)
	}
}

// The relay's server has a timeout on every phase and a cap on headers.
func TestHTTPServerHardening(t *testing.T) {
	s, err := relay.New(relay.DefaultLimits(), nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := s.HTTPServer(nil)
	if srv.ReadHeaderTimeout <= 0 || srv.ReadTimeout <= 0 || srv.WriteTimeout <= 0 || srv.IdleTimeout <= 0 || srv.MaxHeaderBytes <= 0 {
		t.Fatalf("unbounded server: %+v", srv)
	}
}

// silentFrom asserts err is a SilentError naming exactly trustee i.
func silentFrom(t *testing.T, err error, i int, name string) *relay.SilentError {
	t.Helper()
	var se *relay.SilentError
	if !errors.As(err, &se) || len(se.Silent) != 1 || se.Silent[0].Index != i || !strings.Contains(err.Error(), name) {
		t.Fatalf("Round: %v; want silence of trustee %d (%s)", err, i, name)
	}
	return se
}

// A trustee that sends nothing is named when the round times out; the
// others' messages are not lost for a later call.
func TestSilentTrustee(t *testing.T) {
	lb := newLab(t, relay.DefaultLimits(), nil)
	lb.send(t, 2, envelope.Broadcast, 1, "here")
	c := lb.client(t, 1)
	want := relay.WantFromAll(lb.Config, 1, 1, 0, true, false)
	_, err := c.Round(context.Background(), want, 50*time.Millisecond)
	silentFrom(t, err, 3, "trustee 3 (trustee-c)")
	lb.send(t, 3, envelope.Broadcast, 1, "late")
	if got, err := c.Round(context.Background(), want, time.Second); err != nil || len(got) != 2 {
		t.Fatalf("after the late message: %d, %v", len(got), err)
	}
}

// A relay that drops or alters a message is detected by the receiver:
// the drop as the sender's silence (also for the sender's later messages,
// held behind the gap), the alteration as a signature failure.
func TestTamperingRelay(t *testing.T) {
	isRound := func(raw []byte, from uint8, round uint16) bool {
		e, err := envelope.Parse(raw)
		return err == nil && e.From == from && e.Round == round
	}
	tests := []struct {
		name   string
		tamper func([]byte) []byte
		round  uint16
		why    string
	}{
		{"drop", func(raw []byte) []byte {
			if isRound(raw, 2, 1) {
				return nil
			}
			return raw
		}, 1, ""},
		{"drop before", func(raw []byte) []byte {
			if isRound(raw, 2, 1) {
				return nil
			}
			return raw
		}, 2, ""},
		{"alter", func(raw []byte) []byte {
			if isRound(raw, 2, 1) {
				raw = bytes.Clone(raw)
				raw[envelope.HeaderLen] ^= 1
			}
			return raw
		}, 1, "signature does not verify"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lb := newLab(t, relay.DefaultLimits(), tc.tamper)
			for round := uint16(1); round <= 2; round++ {
				lb.send(t, 2, envelope.Broadcast, round, "body")
				lb.send(t, 3, envelope.Broadcast, round, "body")
			}
			want := relay.WantFromAll(lb.Config, 1, tc.round, 0, true, false)
			_, err := lb.client(t, 1).Round(context.Background(), want, 100*time.Millisecond)
			se := silentFrom(t, err, 2, "trustee 2 (trustee-b)")
			if tc.why != "" && (len(se.Rejected) != 1 || se.Rejected[0].Claimed != 2 || !strings.Contains(err.Error(), tc.why)) {
				t.Fatalf("Round: %v; want trustee 2's message rejected: %s", err, tc.why)
			}
		})
	}
}

// Two different signed messages with one seq: the receiver stops and
// names the sender, with both messages as evidence.
func TestEquivocationThroughRelay(t *testing.T) {
	lb := newLab(t, relay.DefaultLimits(), nil)
	first := lb.send(t, 2, envelope.Broadcast, 1, "to some")
	lb.own[1] = envelope.NewChain(2, "trustee-b") // trustee 2 forgets, and signs seq 1 again
	second := lb.send(t, 2, envelope.Broadcast, 1, "to others")
	_, err := lb.client(t, 1).Round(context.Background(), relay.WantFromAll(lb.Config, 1, 1, 0, true, false), time.Second)
	var eq *envelope.EquivocationError
	if !errors.As(err, &eq) || eq.From != 2 || !bytes.Equal(eq.First, first) || !bytes.Equal(eq.Second, second) {
		t.Fatalf("Round: %v; want trustee 2's equivocation with both messages", err)
	}
}
