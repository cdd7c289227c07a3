package registrar

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
)

// Every refusal carries the code a page decides by, with its status: the
// booth tells a wrong code from a used one, a full roll or a rate limit
// only by it.
func TestRefusalCodes(t *testing.T) {
	f := newFixture(t, 3, openLimits())
	pub := voterPub(t)
	id0, code0 := f.codes[0][0], f.codes[0][1]
	if _, err := f.register(0, code0, pub); err != nil {
		t.Fatal(err)
	}
	body := func(r Request) []byte { b, _ := json.Marshal(r); return b }
	tests := []struct {
		name       string
		method     string
		path       string
		body       []byte
		wantStatus int
		wantCode   string
	}{
		{"wrong code", http.MethodPost, Path, body(Request{ElectionID: "e1", VoterID: f.codes[1][0], Code: "WRONGWRONGWRONG", VoterPub: pub}), http.StatusForbidden, CodeWrong},
		{"unknown voter", http.MethodPost, Path, body(Request{ElectionID: "e1", VoterID: "nobody", Code: f.codes[1][1], VoterPub: pub}), http.StatusForbidden, CodeWrong},
		{"code used with another key", http.MethodPost, Path, body(Request{ElectionID: "e1", VoterID: id0, Code: code0, VoterPub: voterPub(t)}), http.StatusConflict, CodeUsed},
		{"other election", http.MethodPost, Path, body(Request{ElectionID: "e2", VoterID: f.codes[1][0], Code: f.codes[1][1], VoterPub: pub}), http.StatusNotFound, CodeElection},
		{"not JSON", http.MethodPost, Path, []byte("{"), http.StatusBadRequest, CodeRequest},
		{"wrong method", http.MethodGet, Path, nil, http.StatusMethodNotAllowed, CodeRequest},
		{"wrong path", http.MethodPost, "/v1/other", nil, http.StatusNotFound, CodeRequest},
		{"too large", http.MethodPost, Path, bytes.Repeat([]byte(" "), maxRequest+1), http.StatusRequestEntityTooLarge, CodeRequest},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, f.srv.URL+tc.path, bytes.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := f.srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var eb errorBody
			if err := json.NewDecoder(resp.Body).Decode(&eb); err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tc.wantStatus || eb.Code != tc.wantCode || eb.Error == "" {
				t.Fatalf("HTTP %d %+v, want HTTP %d with code %s and a message", resp.StatusCode, eb, tc.wantStatus, tc.wantCode)
			}
		})
	}
}

// A rate-limited request carries RATE and Retry-After.
func TestRefusalCodeRate(t *testing.T) {
	l := openLimits()
	l.IPRate, l.IPBurst = 0.001, 1
	f := newFixture(t, 1, l)
	var resp *http.Response
	for range 2 {
		r, err := f.srv.Client().Post(f.srv.URL+Path, "application/json", bytes.NewReader([]byte("{")))
		if err != nil {
			t.Fatal(err)
		}
		defer r.Body.Close()
		resp = r
	}
	var eb errorBody
	if err := json.NewDecoder(resp.Body).Decode(&eb); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusTooManyRequests || eb.Code != CodeRate || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("HTTP %d %+v Retry-After %q, want HTTP 429 with code %s and Retry-After", resp.StatusCode, eb, resp.Header.Get("Retry-After"), CodeRate)
	}
}
