package relay

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/fabvote/fabvote/internal/ceremony/envelope"
)

// Refusal codes.
const (
	CodeBadID       = "BAD_CEREMONY_ID" // the URL's id is not 32 lowercase hex digits (400)
	CodeTooLarge    = "TOO_LARGE"       // the body is larger than an envelope may be (413)
	CodeBadEnvelope = "BAD_ENVELOPE"    // the body is not an envelope (400)
	CodeWrong       = "WRONG_CEREMONY"  // the envelope is another ceremony's (400)
	CodeFull        = "FULL"            // no room for the message or the ceremony (507, 503)
	CodeBadSince    = "BAD_SINCE"       // since is not a non-negative integer (400)
	CodeBusy        = "BUSY"            // as many requests in flight as the relay serves (503)
)

// Refusal is the body of every refusal.
type Refusal struct {
	Error string `json:"error"`
	Code  string `json:"code"`
}

// Posted answers a POST.
type Posted struct {
	Index     int  `json:"index"`
	Duplicate bool `json:"duplicate,omitempty"`
}

// Messages answers a GET.
type Messages struct {
	Since    int      `json:"since"`
	Messages [][]byte `json:"messages"` // base64 in JSON
}

type refusal struct {
	status    int
	code, msg string
}

func (s *Server) post(w http.ResponseWriter, r *http.Request) {
	id, ok := parseID(r.PathValue("id"))
	if !ok {
		s.refuse(w, r, &refusal{http.StatusBadRequest, CodeBadID, fmt.Sprintf("ceremony id %q: want 32 lowercase hex digits", r.PathValue("id"))})
		return
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, envelope.MaxLen))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			s.refuse(w, r, &refusal{http.StatusRequestEntityTooLarge, CodeTooLarge, fmt.Sprintf("a message is at most %d bytes", envelope.MaxLen)})
			return
		}
		s.refuse(w, r, &refusal{http.StatusBadRequest, CodeBadEnvelope, "reading the message: " + err.Error()})
		return
	}
	e, err := envelope.Parse(raw)
	if err != nil {
		s.refuse(w, r, &refusal{http.StatusBadRequest, CodeBadEnvelope, err.Error()})
		return
	}
	if e.Ceremony != id {
		s.refuse(w, r, &refusal{http.StatusBadRequest, CodeWrong, fmt.Sprintf("the message is ceremony %x's, posted to %x's log", e.Ceremony, id)})
		return
	}
	i, dup, rf := s.add(id, raw)
	if rf != nil {
		s.refuse(w, r, rf)
		return
	}
	status := http.StatusCreated
	if dup {
		status = http.StatusOK
	}
	writeJSON(w, status, Posted{Index: i, Duplicate: dup})
}

func (s *Server) get(w http.ResponseWriter, r *http.Request) {
	id, ok := parseID(r.PathValue("id"))
	if !ok {
		s.refuse(w, r, &refusal{http.StatusBadRequest, CodeBadID, fmt.Sprintf("ceremony id %q: want 32 lowercase hex digits", r.PathValue("id"))})
		return
	}
	n := 0
	if v := r.URL.Query().Get("since"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 0 {
			s.refuse(w, r, &refusal{http.StatusBadRequest, CodeBadSince, fmt.Sprintf("since %q: want a message index, 0 or more", v)})
			return
		}
	}
	msgs := s.since(id, n)
	if msgs == nil {
		msgs = [][]byte{}
	}
	writeJSON(w, http.StatusOK, Messages{Since: n, Messages: msgs})
}

func (s *Server) refuse(w http.ResponseWriter, r *http.Request, rf *refusal) {
	if s.log != nil {
		s.log.Printf("%s %s: %s", r.Method, r.URL.Path, rf.code)
	}
	writeJSON(w, rf.status, Refusal{Error: rf.msg, Code: rf.code})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
