// Package relay is the key ceremony's untrusted mailbox: an append-only log
// of messages per ceremony, over HTTP(S), that every trustee writes to and
// polls. The relay checks only a message's size and that its header parses
// and names the ceremony of the URL; it verifies no signature and can read
// no private body (internal/ceremony/envelope). It can drop a message,
// which the receivers' Client reports as the sender's silence, or alter
// one, which fails the signature. Its log, in order, is the ceremony's
// transcript.
//
// The API:
//
//	POST /v1/ceremonies/{id}/messages           one envelope (application/octet-stream)
//	                                            -> 201 {"index":i}, or 200 {"index":i,"duplicate":true}
//	                                               for a message already in the log, byte for byte
//	GET  /v1/ceremonies/{id}/messages?since=N   -> {"since":N,"messages":["<base64>",…]}: the
//	                                               messages with index N+1, N+2, … (as many as
//	                                               Limits.MaxResponse bytes allow, at least one)
//
// id is the ceremony id in lowercase hex. Every refusal is
// {"error","code"} with one of the Code* constants. Memory is bounded
// (Limits): a cap on ceremonies, on messages and bytes per ceremony, on the
// bytes of an answer and on the requests served at once.
package relay

import (
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"fmt"
	"log"
	"net/http"
	"sync"
	"time"

	"github.com/fabvote/fabvote/internal/ceremony/envelope"
)

// Limits bound what the relay keeps and sends.
type Limits struct {
	MaxCeremonies int   // mailboxes at once
	MaxMessages   int   // messages per ceremony
	MaxBytes      int64 // bytes of messages per ceremony
	MaxResponse   int64 // bytes of messages in one answer (one larger message is still sent whole)
	// MaxInFlight bounds the requests served at once, each of which may
	// hold a largest message or answer in memory; the next is refused.
	MaxInFlight int
}

// DefaultLimits suit a few ceremonies at once on a small machine.
func DefaultLimits() Limits {
	return Limits{MaxCeremonies: 4, MaxMessages: 1 << 18, MaxBytes: 1 << 30, MaxResponse: 16 << 20, MaxInFlight: 8}
}

// Check refuses limits that disable a bound.
func (l Limits) Check() error {
	switch {
	case l.MaxCeremonies < 1 || l.MaxMessages < 1 || l.MaxBytes < 1 || l.MaxInFlight < 1:
		return fmt.Errorf("relay limits: %d ceremonies, %d messages, %d bytes, %d requests in flight: want at least 1 of each", l.MaxCeremonies, l.MaxMessages, l.MaxBytes, l.MaxInFlight)
	case l.MaxResponse < 1 || l.MaxResponse > envelope.MaxLen:
		return fmt.Errorf("relay limits: %d bytes per answer: want 1 to %d", l.MaxResponse, envelope.MaxLen)
	}
	return nil
}

// Server is the relay's HTTP handler.
type Server struct {
	limits Limits
	log    *log.Logger
	mux    *http.ServeMux
	slots  chan struct{} // one per request in flight

	mu    sync.Mutex
	boxes map[[16]byte]*mailbox
}

// mailbox is one ceremony's log.
type mailbox struct {
	msgs  [][]byte
	index map[[32]byte]int // SHA-256 of a message -> its index
	bytes int64
}

// New returns a relay with limits l; lg (nil: none) logs refusals.
func New(l Limits, lg *log.Logger) (*Server, error) {
	if err := l.Check(); err != nil {
		return nil, err
	}
	s := &Server{limits: l, log: lg, mux: http.NewServeMux(), slots: make(chan struct{}, l.MaxInFlight), boxes: map[[16]byte]*mailbox{}}
	s.mux.HandleFunc("POST /v1/ceremonies/{id}/messages", s.post)
	s.mux.HandleFunc("GET /v1/ceremonies/{id}/messages", s.get)
	return s, nil
}

// ServeHTTP serves a request if a slot is free, and refuses it at once
// otherwise: a flood meets a refusal, not a queue.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	select {
	case s.slots <- struct{}{}:
		defer func() { <-s.slots }()
		s.mux.ServeHTTP(w, r)
	default:
		w.Header().Set("Retry-After", "1")
		s.refuse(w, r, &refusal{http.StatusServiceUnavailable, CodeBusy, fmt.Sprintf("the relay serves %d requests at once, its most; send it again", cap(s.slots))})
	}
}

// HTTPServer is the relay's server on tlsConf (nil: plain HTTP, as in
// network-namespace tests; the messages' signatures, not the channel,
// make them authentic): timeouts on every phase of a request, long enough
// for the largest message over a slow link, and a cap on headers.
func (s *Server) HTTPServer(tlsConf *tls.Config) *http.Server {
	return &http.Server{
		Handler:           s,
		TLSConfig:         tlsConf,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       3 * time.Minute,
		WriteTimeout:      3 * time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          s.log,
	}
}

// maxHeaderBytes bounds a request's headers: a client sends a handful.
const maxHeaderBytes = 16 << 10

// Transcript is a copy of the ceremony's log, in order; nil for a ceremony
// the relay does not hold.
func (s *Server) Transcript(id [16]byte) [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b := s.boxes[id]; b != nil {
		return append([][]byte(nil), b.msgs...)
	}
	return nil
}

// add appends raw to ceremony id's log, unless it is there already. It
// returns the message's index (from 1) and whether it was a duplicate.
func (s *Server) add(id [16]byte, raw []byte) (int, bool, *refusal) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.boxes[id]
	if b == nil {
		if len(s.boxes) >= s.limits.MaxCeremonies {
			return 0, false, &refusal{http.StatusServiceUnavailable, CodeFull, fmt.Sprintf("the relay holds %d ceremonies, its most", len(s.boxes))}
		}
		b = &mailbox{index: map[[32]byte]int{}}
		s.boxes[id] = b
	}
	sum := sha256.Sum256(raw)
	if i, dup := b.index[sum]; dup {
		return i, true, nil
	}
	if len(b.msgs) >= s.limits.MaxMessages || b.bytes+int64(len(raw)) > s.limits.MaxBytes {
		return 0, false, &refusal{http.StatusInsufficientStorage, CodeFull,
			fmt.Sprintf("ceremony %x: the log holds %d messages, %d bytes: no room for %d more bytes", id, len(b.msgs), b.bytes, len(raw))}
	}
	b.msgs = append(b.msgs, raw)
	b.bytes += int64(len(raw))
	b.index[sum] = len(b.msgs)
	return len(b.msgs), false, nil
}

// since returns the messages after index n, at most MaxResponse bytes of
// them but at least one.
func (s *Server) since(id [16]byte, n int) [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.boxes[id]
	if b == nil || n >= len(b.msgs) {
		return nil
	}
	var out [][]byte
	var size int64
	for _, m := range b.msgs[n:] {
		if len(out) > 0 && size+int64(len(m)) > s.limits.MaxResponse {
			break
		}
		out = append(out, m)
		size += int64(len(m))
	}
	return out
}

// parseID reads a ceremony id in lowercase hex.
func parseID(s string) ([16]byte, bool) {
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 16 || hex.EncodeToString(b) != s {
		return [16]byte{}, false
	}
	return [16]byte(b), true
}
