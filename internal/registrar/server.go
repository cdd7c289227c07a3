package registrar

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/fabvote/fabvote/election"
)

// Path is the registration endpoint.
const Path = "/v1/register"

// maxRequest bounds a registration request body.
const maxRequest = 8 * 1024

// Request is what a voter POSTs.
type Request struct {
	ElectionID string `json:"electionID"`
	VoterID    string `json:"voterID"`
	Code       string `json:"code"`
	VoterPub   []byte `json:"voterPub"` // 65-byte uncompressed P-256 point, base64 in JSON
}

// Token is the service's answer and the voter's token file.
type Token struct {
	ElectionID string `json:"electionID"`
	VoterID    string `json:"voterID,omitempty"`
	VoterPub   []byte `json:"voterPub"`
	Token      []byte `json:"token"`
}

// errorBody is every error response: a message for a person and a code
// for a program (the booth's page picks what to tell the voter by it).
type errorBody struct {
	Error string `json:"error"`
	Code  string `json:"code"`
}

// The codes of a refusal (errorBody.Code).
const (
	CodeRequest  = "REQUEST"  // malformed request, wrong path or method, too large
	CodeElection = "ELECTION" // the request names another election
	CodeWrong    = "WRONG"    // the voter id or the code is wrong (one code for both, so the roll cannot be probed)
	CodeUsed     = "USED"     // the code was used with another key
	CodeFull     = "FULL"     // the election holds as many tokens as it may
	CodeRate     = "RATE"     // too many requests or attempts: retry after Retry-After
	CodeInternal = "INTERNAL" // the service failed
)

// Server checks roll entries and issues tokens for one election.
type Server struct {
	ElectionID string
	// Mint issues the token of voterID for voterPub (election.Minter.MintCancelable):
	// the token format and the pseudonym stay outside the registrar.
	Mint  MintFunc
	Roll  *Roll
	Store *Store
	Guard *Guard      // rate limits and lockouts; required
	Log   *log.Logger // nil: no request log
}

// refusal is a registration answered with an error status.
type refusal struct {
	status     int
	code       string        // errorBody.Code
	retryAfter time.Duration // for 429
	err        error
}

func (r *refusal) Error() string { return r.err.Error() }

func refuse(status int, code string, err error) *refusal {
	return &refusal{status: status, code: code, err: err}
}

func (s *Server) logf(format string, args ...any) {
	if s.Log != nil {
		s.Log.Printf(format, args...)
	}
}

// logFailure logs a refused request unless failures are arriving faster than
// the log rate; suppressed lines are counted in the next one.
func (s *Server) logFailure(format string, args ...any) {
	ok, suppressed := s.Guard.LogOK()
	if !ok {
		return
	}
	if suppressed > 0 {
		format += fmt.Sprintf(" (%d more refusals not logged)", suppressed)
	}
	s.logf(format, args...)
}

// ServeHTTP implements POST /v1/register.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.Guard == nil || s.Store == nil || s.Mint == nil || s.Roll == nil {
		writeErr(w, http.StatusInternalServerError, CodeInternal, "registration service is misconfigured")
		return
	}
	ip := ClientIP(r)
	if wait, err := s.Guard.AllowIP(ip); err != nil {
		s.answer(w, ip, "", nil, &refusal{status: http.StatusTooManyRequests, code: CodeRate, retryAfter: wait, err: err})
		return
	}
	if rf := checkRoute(w, r); rf != nil {
		s.Guard.Fail(ip, "")
		s.answer(w, ip, "", nil, rf)
		return
	}
	req, rf := readRequest(r)
	if rf != nil {
		s.Guard.Fail(ip, "")
		s.answer(w, ip, "", nil, rf)
		return
	}
	tok, rf := s.register(ip, req)
	s.answer(w, ip, req.VoterID, tok, rf)
}

func checkRoute(w http.ResponseWriter, r *http.Request) *refusal {
	if r.URL.Path != Path {
		return refuse(http.StatusNotFound, CodeRequest, fmt.Errorf("no such endpoint %q; POST %s", r.URL.Path, Path))
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		return refuse(http.StatusMethodNotAllowed, CodeRequest, fmt.Errorf("method %s not allowed; use POST", r.Method))
	}
	return nil
}

func readRequest(r *http.Request) (*Request, *refusal) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRequest+1))
	if err != nil {
		return nil, refuse(http.StatusBadRequest, CodeRequest, fmt.Errorf("reading request: %w", err))
	}
	if len(body) > maxRequest {
		return nil, refuse(http.StatusRequestEntityTooLarge, CodeRequest, fmt.Errorf("request body is larger than %d bytes", maxRequest))
	}
	var req Request
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return nil, refuse(http.StatusBadRequest, CodeRequest, fmt.Errorf("request is not valid JSON of {electionID, voterID, code, voterPub}: %w", err))
	}
	return &req, nil
}

// answer writes the token or the refusal, and logs it.
func (s *Server) answer(w http.ResponseWriter, ip, voterID string, tok *Token, rf *refusal) {
	if rf != nil {
		s.logFailure("register %q from %s: refused (%d): %v", voterID, ip, rf.status, rf.err)
		if rf.retryAfter > 0 {
			w.Header().Set("Retry-After", fmt.Sprint(int(rf.retryAfter.Seconds()+0.999)))
		}
		writeErr(w, rf.status, rf.code, "%v", rf.err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(tok)
}

// ClientIP is the connection's remote address (no forwarding headers are
// trusted: a client could set them to dodge its limit), as limitSubject
// keys it.
func ClientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return limitSubject(host)
}

// limitSubject is the address the limits count against: an IPv4 address
// itself, an IPv6 address's /64, since one host commonly holds a whole /64
// and could otherwise rotate through it to dodge its limit.
func limitSubject(host string) string {
	ip := net.ParseIP(host)
	if ip == nil || ip.To4() != nil {
		return host
	}
	return (&net.IPNet{IP: ip.Mask(net.CIDRMask(64, 128)), Mask: net.CIDRMask(64, 128)}).String()
}

func (s *Server) register(ip string, req *Request) (*Token, *refusal) {
	if req.ElectionID != s.ElectionID {
		s.Guard.Fail(ip, "")
		return nil, refuse(http.StatusNotFound, CodeElection, fmt.Errorf("electionID %q: this service registers voters for %q", req.ElectionID, s.ElectionID))
	}
	if err := CheckVoterID(req.VoterID); err != nil {
		s.Guard.Fail(ip, "")
		return nil, refuse(http.StatusBadRequest, CodeRequest, fmt.Errorf("voterID: %w", err))
	}
	if _, err := election.ParseVoterPub(req.VoterPub); err != nil {
		s.Guard.Fail(ip, "")
		return nil, refuse(http.StatusBadRequest, CodeRequest, err)
	}
	if wait, err := s.Guard.AllowVoter(ip, req.VoterID); err != nil {
		return nil, &refusal{status: http.StatusTooManyRequests, code: CodeRate, retryAfter: wait, err: err}
	}
	// One message for unknown ids and wrong codes, so the roll cannot be probed.
	if !s.Roll.Check(req.VoterID, req.Code) {
		s.Guard.Fail(ip, req.VoterID)
		return nil, refuse(http.StatusForbidden, CodeWrong, errors.New("voterID or code is wrong"))
	}
	reg, err := s.Store.Register(req.VoterID, req.VoterPub, s.Mint)
	switch {
	case errors.Is(err, ErrUsed):
		s.Guard.Fail(ip, req.VoterID)
		return nil, refuse(http.StatusConflict, CodeUsed, fmt.Errorf("voterID %q: %w with another key", req.VoterID, err))
	case errors.Is(err, ErrFull), errors.Is(err, election.ErrRollFull):
		return nil, refuse(http.StatusForbidden, CodeFull, err)
	case err != nil:
		return nil, refuse(http.StatusInternalServerError, CodeInternal, err)
	}
	if reg.Replayed {
		s.logf("register %q from %s: token sent again (retry with the same key)", req.VoterID, ip)
	} else {
		s.logf("register %q from %s: token issued", req.VoterID, ip)
	}
	return &Token{ElectionID: s.ElectionID, VoterID: reg.VoterID, VoterPub: reg.VoterPub, Token: reg.Token}, nil
}

func writeErr(w http.ResponseWriter, status int, code, format string, args ...any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(errorBody{Error: fmt.Sprintf(format, args...), Code: code})
}

// Client registers voters with a running service.
type Client struct {
	URL  string // base URL, e.g. https://127.0.0.1:7450
	HTTP *http.Client
}

// NewClient trusts the CA certificates in caFile ("" = system roots).
func NewClient(url, caFile string) (*Client, error) {
	if !strings.HasPrefix(url, "https://") {
		return nil, fmt.Errorf("--url %q: registration is only offered over https://", url)
	}
	tlsConf := TLSConfig()
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return nil, fmt.Errorf("--ca-cert: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--ca-cert %s: no PEM certificate found", caFile)
		}
		tlsConf.RootCAs = pool
	}
	return &Client{URL: strings.TrimRight(url, "/"), HTTP: &http.Client{
		Timeout:   30 * time.Second,
		Transport: &http.Transport{TLSClientConfig: tlsConf},
	}}, nil
}

// Register sends req and returns the token, or the service's error message.
func (c *Client) Register(ctx context.Context, req *Request) (*Token, error) {
	body, _ := json.Marshal(req)
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL+Path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	hr.Header.Set("Content-Type", "application/json")
	resp, err := c.HTTP.Do(hr)
	if err != nil {
		return nil, fmt.Errorf("registration service %s: %w", c.URL, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64*1024))
	if err != nil {
		return nil, fmt.Errorf("registration service %s: %w", c.URL, err)
	}
	if resp.StatusCode != http.StatusOK {
		var eb errorBody
		if json.Unmarshal(data, &eb) == nil && eb.Error != "" {
			return nil, fmt.Errorf("registration refused (HTTP %d): %s", resp.StatusCode, eb.Error)
		}
		return nil, fmt.Errorf("registration refused (HTTP %d)", resp.StatusCode)
	}
	var tok Token
	if err := json.Unmarshal(data, &tok); err != nil {
		return nil, fmt.Errorf("registration service answer: %w", err)
	}
	if tok.ElectionID != req.ElectionID || !bytes.Equal(tok.VoterPub, req.VoterPub) {
		return nil, errors.New("registration service answered for another election or key")
	}
	return &tok, nil
}
