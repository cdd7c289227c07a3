package registrar

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/hex"
	"math/bits"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/election/electiontest"
	"github.com/fabvote/fabvote/internal/nettest"
)

func voterPub(t testing.TB) []byte {
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

// openLimits are limits no test of other behaviour reaches.
func openLimits() Limits {
	l := DefaultLimits()
	l.IPRate, l.IPBurst, l.VoterRate, l.VoterBurst = 1e6, 1e6, 1e6, 1e6
	l.IPFailures, l.VoterFailures = 1e6, 1e6
	return l
}

type fixture struct {
	srv     *httptest.Server
	client  *Client
	prep    *election.Prepared
	store   *Store
	state   string
	binding Binding
	codes   [][2]string
	log     *nettest.SyncBuffer
}

// testMinter is the election's real token minter with the fixture's keys,
// for a manifest allowing maxVoters.
func testMinter(t testing.TB, electionID string, maxVoters uint64) (*election.Minter, *election.Prepared, []byte) {
	t.Helper()
	m := electiontest.Load().Manifest(electionID)
	m.MaxVoters, m.EncodingBits = maxVoters, uint(bits.Len64(maxVoters))
	raw, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	p, err := election.Prepare(m)
	if err != nil {
		t.Fatal(err)
	}
	mint, err := election.NewMinter(rand.Reader, p, electiontest.Load().EA, electiontest.PseudonymKey)
	if err != nil {
		t.Fatal(err)
	}
	return mint, p, raw
}

func prepare(t *testing.T, id string) *election.Prepared {
	p, err := election.Prepare(electiontest.Load().Manifest(id))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// newRoll writes a roll of n voters and returns it with its plain codes.
func newRoll(t testing.TB, dir string, n int) (*Roll, [][2]string) {
	t.Helper()
	rollPath := filepath.Join(dir, "roll.csv")
	if err := WriteNewRoll(rollPath, n, "voter-", nil); err != nil {
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
	return roll, codes
}

func newFixture(t *testing.T, n int, limits Limits) *fixture {
	t.Helper()
	dir := t.TempDir()
	roll, codes := newRoll(t, dir, n)
	mint, prep, manifest := testMinter(t, "e1", uint64(n))
	b, err := NewBinding("e1", manifest, uint64(n), roll)
	if err != nil {
		t.Fatal(err)
	}
	statePath := filepath.Join(dir, "state.db")
	if err := InitStore(statePath, b); err != nil {
		t.Fatal(err)
	}
	st, err := OpenStore(statePath, b)
	if err != nil {
		t.Fatal(err)
	}
	guard, err := NewGuard(limits)
	if err != nil {
		t.Fatal(err)
	}
	var logBuf nettest.SyncBuffer
	srv := httptest.NewTLSServer(&Server{ElectionID: "e1", Mint: mint.MintCancelable, Roll: roll, Store: st, Guard: guard, Log: newTestLogger(&logBuf)})
	t.Cleanup(func() { srv.Close(); st.Close() })
	return &fixture{srv: srv, client: &Client{URL: srv.URL, HTTP: srv.Client()}, prep: prep, store: st, state: statePath, binding: b, codes: codes, log: &logBuf}
}

func (f *fixture) register(i int, code string, pub []byte) (*Token, error) {
	return f.client.Register(context.Background(), &Request{ElectionID: "e1", VoterID: f.codes[i][0], Code: code, VoterPub: pub})
}

func TestRegister(t *testing.T) {
	f := newFixture(t, 3, openLimits())
	pub := voterPub(t)
	id, code := f.codes[0][0], f.codes[0][1]
	tok, err := f.register(0, code, pub)
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
		{"code reused with another key", Request{ElectionID: "e1", VoterID: id, Code: code, VoterPub: voterPub(t)}, "HTTP 409"},
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
	if _, err := f.register(1, f.codes[1][1], pub); err != nil {
		t.Fatalf("voter 2 after refused attempts: %v", err)
	}
	if n := f.store.Count(); n != 2 {
		t.Fatalf("store counts %d tokens, want 2", n)
	}
}

// TestRetrySameKeySameToken: a voter whose answer was lost asks again with the
// same code and key and gets the very token that was stored; the count does
// not move. Another key still gets 409.
func TestRetrySameKeySameToken(t *testing.T) {
	f := newFixture(t, 2, openLimits())
	pub := voterPub(t)
	first, err := f.register(0, f.codes[0][1], pub)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		again, err := f.register(0, f.codes[0][1], pub)
		if err != nil {
			t.Fatalf("retry %d: %v", i, err)
		}
		if !bytes.Equal(again.Token, first.Token) {
			t.Fatalf("retry %d got another token: a second token was minted", i)
		}
	}
	if _, err := f.register(0, f.codes[0][1], voterPub(t)); err == nil || !strings.Contains(err.Error(), "HTTP 409") {
		t.Fatalf("same code, other key: err = %v, want HTTP 409", err)
	}
	if _, err := f.register(0, "AAAAAAAAAAAAAAAAAAAA", pub); err == nil || !strings.Contains(err.Error(), "HTTP 403") {
		t.Fatalf("same key, wrong code: err = %v, want HTTP 403", err)
	}
	if n := f.store.Count(); n != 1 {
		t.Fatalf("store counts %d tokens, want 1", n)
	}
	if !strings.Contains(f.log.String(), "token sent again") {
		t.Fatalf("the retry is not logged:\n%s", f.log)
	}
}

func TestRawHTTPErrors(t *testing.T) {
	f := newFixture(t, 1, openLimits())
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
	f := newFixture(t, 1, openLimits())
	const n = 8
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok := 0
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := f.register(0, f.codes[0][1], voterPub(t)); err == nil {
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

// TestThousandConcurrentRegistrations is the throughput target: 1,000 voters
// registering at once over HTTPS get 0 errors, and every answer is on disk
// (the state reopened from the file holds exactly the tokens answered).
func TestThousandConcurrentRegistrations(t *testing.T) {
	const n = 1000
	f := newFixture(t, n, openLimits())
	f.client.HTTP.Transport.(*http.Transport).MaxConnsPerHost = 64
	pubs := make([][]byte, n)
	for i := range pubs {
		pubs[i] = voterPub(t)
	}
	toks := make([][]byte, n)
	errs := make([]error, n)
	start := time.Now()
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tok, err := f.register(i, f.codes[i][1], pubs[i])
			if err == nil {
				toks[i] = tok.Token
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	t.Logf("%d concurrent registrations in %v", n, time.Since(start))
	for i, err := range errs {
		if err != nil {
			t.Fatalf("voter %d: %v", i, err)
		}
	}
	f.srv.Close()
	f.store.Close()
	st, err := OpenStore(f.state, f.binding)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if c := st.Count(); c != n {
		t.Fatalf("reopened state counts %d tokens, want %d", c, n)
	}
	for i := 0; i < n; i++ {
		reg, err := st.Lookup(f.codes[i][0])
		if err != nil || reg == nil || !bytes.Equal(reg.Token, toks[i]) || !bytes.Equal(reg.VoterPub, pubs[i]) {
			t.Fatalf("voter %d: stored registration %+v (err %v) is not the answer given", i, reg, err)
		}
	}
}

func TestClientRequiresHTTPS(t *testing.T) {
	if _, err := NewClient("http://127.0.0.1:1", ""); err == nil {
		t.Fatal("plain http URL accepted")
	}
}
