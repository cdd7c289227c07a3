package registrar

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
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

// errorBody is every error response.
type errorBody struct {
	Error string `json:"error"`
}

// Server checks roll entries and issues tokens for one election.
type Server struct {
	ElectionID string
	// Mint issues the token of voterID for voterPub (election.Minter.Mint):
	// the token format and the pseudonym stay outside the registrar.
	Mint  func(voterID string, voterPub []byte) (token []byte, err error)
	Roll  *Roll
	State *State
	Log   *log.Logger // nil: no request log
}

func (s *Server) logf(format string, args ...any) {
	if s.Log != nil {
		s.Log.Printf(format, args...)
	}
}

// ServeHTTP implements POST /v1/register.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != Path {
		writeErr(w, http.StatusNotFound, "no such endpoint %q; POST %s", r.URL.Path, Path)
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeErr(w, http.StatusMethodNotAllowed, "method %s not allowed; use POST", r.Method)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRequest+1))
	if err != nil {
		writeErr(w, http.StatusBadRequest, "reading request: %v", err)
		return
	}
	if len(body) > maxRequest {
		writeErr(w, http.StatusRequestEntityTooLarge, "request body is larger than %d bytes", maxRequest)
		return
	}
	var req Request
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		writeErr(w, http.StatusBadRequest, "request is not valid JSON of {electionID, voterID, code, voterPub}: %v", err)
		return
	}
	status, tok, err := s.register(&req)
	if err != nil {
		s.logf("register %q: refused (%d): %v", req.VoterID, status, err)
		writeErr(w, status, "%v", err)
		return
	}
	s.logf("register %q: token issued", req.VoterID)
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(tok)
}

func (s *Server) register(req *Request) (int, *Token, error) {
	if req.ElectionID != s.ElectionID {
		return http.StatusNotFound, nil, fmt.Errorf("electionID %q: this service registers voters for %q", req.ElectionID, s.ElectionID)
	}
	if err := CheckVoterID(req.VoterID); err != nil {
		return http.StatusBadRequest, nil, fmt.Errorf("voterID: %w", err)
	}
	if _, err := election.ParseVoterPub(req.VoterPub); err != nil {
		return http.StatusBadRequest, nil, err
	}
	// One message for unknown ids and wrong codes, so the roll cannot be probed.
	if !s.Roll.Check(req.VoterID, req.Code) {
		return http.StatusForbidden, nil, errors.New("voterID or code is wrong")
	}
	reg, err := s.State.Claim(req.VoterID, func() (*Registration, error) {
		tok, err := s.Mint(req.VoterID, req.VoterPub)
		if err != nil {
			return nil, err
		}
		return &Registration{VoterID: req.VoterID, VoterPub: req.VoterPub, Token: tok, Time: time.Now().UTC()}, nil
	})
	switch {
	case errors.Is(err, ErrUsed):
		return http.StatusConflict, nil, fmt.Errorf("voterID %q: %w", req.VoterID, err)
	case errors.Is(err, election.ErrRollFull):
		return http.StatusForbidden, nil, err
	case err != nil:
		return http.StatusInternalServerError, nil, err
	}
	return http.StatusOK, &Token{ElectionID: s.ElectionID, VoterID: reg.VoterID, VoterPub: reg.VoterPub, Token: reg.Token}, nil
}

func writeErr(w http.ResponseWriter, status int, format string, args ...any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(errorBody{Error: fmt.Sprintf(format, args...)})
}

// Client registers voters with a running service.
type Client struct {
	URL  string // base URL, e.g. https://127.0.0.1:7443
	HTTP *http.Client
}

// NewClient trusts the CA certificates in caFile ("" = system roots).
func NewClient(url, caFile string) (*Client, error) {
	if !strings.HasPrefix(url, "https://") {
		return nil, fmt.Errorf("--url %q: registration is only offered over https://", url)
	}
	tlsConf := &tls.Config{MinVersion: tls.VersionTLS12}
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
