package registrar

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/election/electiontest"
)

func voterPub(t *testing.T) []byte {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	b, err := k.PublicKey.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type fixture struct {
	srv    *httptest.Server
	client *Client
	prep   *election.Prepared
	state  string
	codes  [][2]string
}

func newFixture(t *testing.T, n int) *fixture {
	t.Helper()
	dir := t.TempDir()
	rollPath := filepath.Join(dir, "roll.csv")
	if err := WriteNewRoll(rollPath, n, "voter-"); err != nil {
		t.Fatal(err)
	}
	roll, err := LoadRoll(rollPath)
	if err != nil {
		t.Fatal(err)
	}
	codes, err := ReadRollCodes(rollPath)
	if err != nil {
		t.Fatal(err)
	}
	if roll.Len() != n || len(codes) != n {
		t.Fatalf("roll has %d/%d voters, want %d", roll.Len(), len(codes), n)
	}
	prep := prepare(t, "e1")
	mint, err := election.NewMinter(rand.Reader, prep, electiontest.Load().EA, electiontest.PseudonymKey)
	if err != nil {
		t.Fatal(err)
	}
	statePath := filepath.Join(dir, "state.json")
	st, err := OpenState(statePath, "e1")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewTLSServer(&Server{ElectionID: "e1", Mint: mint.Mint, Roll: roll, State: st})
	t.Cleanup(srv.Close)
	return &fixture{srv: srv, client: &Client{URL: srv.URL, HTTP: srv.Client()}, state: statePath, codes: codes, prep: prep}
}

func prepare(t *testing.T, id string) *election.Prepared {
	p, err := election.Prepare(electiontest.Load().Manifest(id))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRegister(t *testing.T) {
	f := newFixture(t, 3)
	pub := voterPub(t)
	id, code := f.codes[0][0], f.codes[0][1]
	tok, err := f.client.Register(context.Background(), &Request{ElectionID: "e1", VoterID: id, Code: code, VoterPub: pub})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.prep.VerifyToken(pub, tok.Token); err != nil {
		t.Fatalf("issued token does not verify: %v", err)
	}
	if want, _ := election.Pseudonym(electiontest.PseudonymKey, "e1", id); election.PseudonymHex(tok.Token) != hex.EncodeToString(want[:]) {
		t.Fatal("the token does not carry the voter's pseudonym")
	}
	if err := prepare(t, "e2").VerifyToken(pub, tok.Token); err == nil {
		t.Fatal("token verifies for another election")
	}

	tests := []struct {
		name string
		req  Request
		want string
	}{
		{"code reused", Request{ElectionID: "e1", VoterID: id, Code: code, VoterPub: voterPub(t)}, "HTTP 409"},
		{"wrong code", Request{ElectionID: "e1", VoterID: f.codes[1][0], Code: "WRONGWRONGWRONG", VoterPub: pub}, "HTTP 403"},
		{"unknown voter", Request{ElectionID: "e1", VoterID: "nobody", Code: f.codes[1][1], VoterPub: pub}, "voterID or code is wrong"},
		{"other election", Request{ElectionID: "e2", VoterID: f.codes[1][0], Code: f.codes[1][1], VoterPub: pub}, "HTTP 404"},
		{"bad key", Request{ElectionID: "e1", VoterID: f.codes[1][0], Code: f.codes[1][1], VoterPub: []byte{4, 1, 2}}, "voterPub"},
		{"bad id", Request{ElectionID: "e1", VoterID: "a,b", Code: f.codes[1][1], VoterPub: pub}, "voterID"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.client.Register(context.Background(), &tc.req)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want mention of %q", err, tc.want)
			}
		})
	}
	// The wrong attempts above consumed nothing: voter 2 can still register.
	if _, err := f.client.Register(context.Background(), &Request{ElectionID: "e1", VoterID: f.codes[1][0], Code: f.codes[1][1], VoterPub: pub}); err != nil {
		t.Fatalf("voter 2 after refused attempts: %v", err)
	}
	// The used codes survive a restart.
	st, err := OpenState(f.state, "e1")
	if err != nil {
		t.Fatal(err)
	}
	if st.Count() != 2 {
		t.Fatalf("persisted state holds %d registrations, want 2", st.Count())
	}
	if _, err := OpenState(f.state, "other"); err == nil {
		t.Fatal("state of election e1 opened for another election")
	}
}

func TestRawHTTPErrors(t *testing.T) {
	f := newFixture(t, 1)
	tests := []struct {
		method, path, body string
		status             int
	}{
		{http.MethodGet, Path, "", http.StatusMethodNotAllowed},
		{http.MethodPost, "/other", "{}", http.StatusNotFound},
		{http.MethodPost, Path, "{not json", http.StatusBadRequest},
		{http.MethodPost, Path, `{"unknown":1}`, http.StatusBadRequest},
		{http.MethodPost, Path, strings.Repeat("x", maxRequest+10), http.StatusRequestEntityTooLarge},
	}
	for _, tc := range tests {
		req, _ := http.NewRequest(tc.method, f.srv.URL+tc.path, strings.NewReader(tc.body))
		resp, err := f.client.HTTP.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Errorf("%s %s %.20q: status %d, want %d", tc.method, tc.path, tc.body, resp.StatusCode, tc.status)
		}
	}
}

func TestConcurrentClaimsIssueOneToken(t *testing.T) {
	f := newFixture(t, 1)
	id, code := f.codes[0][0], f.codes[0][1]
	const n = 8
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok := 0
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := f.client.Register(context.Background(), &Request{ElectionID: "e1", VoterID: id, Code: code, VoterPub: voterPub(t)})
			if err == nil {
				mu.Lock()
				ok++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if ok != 1 {
		t.Fatalf("%d concurrent registrations succeeded with one code, want 1", ok)
	}
}

func TestParseRollErrors(t *testing.T) {
	tests := []struct{ name, data, want string }{
		{"empty", "voter_id,code\n", "no voters"},
		{"no comma", "alice\n", "want \"voter_id,code\""},
		{"short code", "alice,abc\n", "shorter than 8"},
		{"dup", "alice,abcdefgh\nalice,abcdefgi\n", "appears twice"},
		{"bad id", "a b,abcdefgh\n", "voter id"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseRoll(strings.NewReader(tc.data), "roll.csv")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want mention of %q", err, tc.want)
			}
		})
	}
}

func TestClientRequiresHTTPS(t *testing.T) {
	if _, err := NewClient("http://127.0.0.1:1", ""); err == nil {
		t.Fatal("plain http URL accepted")
	}
}

func TestSelfSignedTLS(t *testing.T) {
	dir := t.TempDir()
	cert, key := filepath.Join(dir, "c.pem"), filepath.Join(dir, "k.pem")
	if err := WriteSelfSignedTLS(cert, key, []string{"127.0.0.1", "localhost"}, 3600e9); err != nil {
		t.Fatal(err)
	}
	c, err := NewClient("https://127.0.0.1:1", cert)
	if err != nil {
		t.Fatal(err)
	}
	if c.HTTP == nil {
		t.Fatal("no HTTP client")
	}
	if err := WriteSelfSignedTLS(cert, key, nil, 3600e9); err == nil {
		t.Fatal("certificate without hosts accepted")
	}
}
