package loadgen

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fabvote/fabvote/internal/box"
)

// boxServer is an HTTPS server answering the ballots path with answer, and
// the PEM of its certificate (which a client can trust as its CA).
func boxServer(t *testing.T, answer http.HandlerFunc) (*httptest.Server, []byte) {
	t.Helper()
	srv := httptest.NewTLSServer(answer)
	t.Cleanup(srv.Close)
	return srv, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
}

// otherCA is the PEM of a self-signed CA that signed no server's certificate.
func otherCA(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "another CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

func newBoxTarget(t *testing.T, url string, ca []byte, timeout time.Duration) *BoxTarget {
	t.Helper()
	bt, err := NewBoxTarget(BoxOptions{URL: url, CACert: ca, Conns: 1, Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(bt.Close)
	return bt
}

// answerWith writes status and body as JSON, as the box does.
func answerWith(status int, body any) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(body)
	}
}

// TestBoxTargetSendsTheBallot: the ballot arrives as the box's API wants
// it: POST to the ballots path, JSON, the ballot's bytes in standard base64.
func TestBoxTargetSendsTheBallot(t *testing.T) {
	ballot := []byte{0, 1, 2, 0xfe, 0xff}
	var got box.BallotRequest
	var method, path, ctype string
	srv, ca := boxServer(t, func(w http.ResponseWriter, r *http.Request) {
		method, path, ctype = r.Method, r.URL.Path, r.Header.Get("Content-Type")
		json.NewDecoder(r.Body).Decode(&got)
		answerWith(http.StatusOK, box.Receipt{TxID: "tx1", Block: 7})(w, r)
	})
	s := newBoxTarget(t, srv.URL, ca, 0).Do(context.Background(), 0, ballot)
	if !s.OK || s.Reason != "" {
		t.Fatalf("sample OK %v reason %q, want a committed ballot", s.OK, s.Reason)
	}
	if method != http.MethodPost || path != box.BallotsPath || ctype != "application/json" {
		t.Errorf("request %s %s (%s), want POST %s (application/json)", method, path, ctype, box.BallotsPath)
	}
	if want := base64.StdEncoding.EncodeToString(ballot); got.Ballot != want {
		t.Errorf("ballot sent %q, want %q", got.Ballot, want)
	}
	if s.Start.IsZero() || s.Done.Before(s.Start) || !s.Endorsed.IsZero() {
		t.Errorf("sample times start %v endorsed %v done %v: want done ≥ start and no endorsement", s.Start, s.Endorsed, s.Done)
	}
}

// TestBoxTargetAnswers: the sample's outcome is the box's answer: 200 with
// a receipt is a committed ballot, a refusal fails with its code, anything
// else with what it was.
func TestBoxTargetAnswers(t *testing.T) {
	for _, tc := range []struct {
		what   string
		answer http.HandlerFunc
		ok     bool
		reason string
	}{
		{"receipt", answerWith(http.StatusOK, box.Receipt{TxID: "tx1", Block: 3}), true, ""},
		{"refusal with the contract's code", answerWith(http.StatusUnprocessableEntity, box.Refusal{Error: "already cast", Code: "DUPLICATE"}), false, "box: DUPLICATE"},
		{"refusal with the box's code", answerWith(http.StatusServiceUnavailable, box.Refusal{Error: "busy", Code: box.CodeUnavailable}), false, "box: UNAVAILABLE"},
		{"invalidated at commit", answerWith(http.StatusConflict, box.Refusal{Error: "send it again", Code: "MVCC_READ_CONFLICT"}), false, "box: MVCC_READ_CONFLICT"},
		{"an answer that is no refusal", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "bad gateway", http.StatusBadGateway) }, false, "box: HTTP 502"},
		{"200 without a receipt", answerWith(http.StatusOK, map[string]string{}), false, "box: 200 without a receipt"},
	} {
		t.Run(tc.what, func(t *testing.T) {
			srv, ca := boxServer(t, tc.answer)
			s := newBoxTarget(t, srv.URL, ca, 0).Do(context.Background(), 0, []byte("ballot"))
			if s.OK != tc.ok || s.Reason != tc.reason {
				t.Errorf("sample OK %v reason %q, want OK %v reason %q", s.OK, s.Reason, tc.ok, tc.reason)
			}
			if s.Done.Before(s.Start) {
				t.Errorf("done %v before start %v", s.Done, s.Start)
			}
		})
	}
}

// TestBoxTargetNoAnswer: a request the box never answers fails with why.
func TestBoxTargetNoAnswer(t *testing.T) {
	t.Run("connection refused", func(t *testing.T) {
		srv, ca := boxServer(t, answerWith(http.StatusOK, box.Receipt{TxID: "tx1"}))
		url := srv.URL
		srv.Close()
		s := newBoxTarget(t, url, ca, 0).Do(context.Background(), 0, []byte("ballot"))
		if s.OK || s.Reason != "box: connection error" || s.Done.IsZero() {
			t.Errorf("sample OK %v reason %q done %v, want a connection error", s.OK, s.Reason, s.Done)
		}
	})
	t.Run("certificate of another CA", func(t *testing.T) {
		srv, _ := boxServer(t, answerWith(http.StatusOK, box.Receipt{TxID: "tx1"}))
		s := newBoxTarget(t, srv.URL, otherCA(t), 0).Do(context.Background(), 0, []byte("ballot"))
		if s.OK || s.Reason != "box: connection error" {
			t.Errorf("sample OK %v reason %q, want a connection error", s.OK, s.Reason)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		release := make(chan struct{})
		srv, ca := boxServer(t, func(w http.ResponseWriter, r *http.Request) { <-release })
		defer close(release)
		s := newBoxTarget(t, srv.URL, ca, 50*time.Millisecond).Do(context.Background(), 0, []byte("ballot"))
		if s.OK || s.Reason != "box: timeout" {
			t.Errorf("sample OK %v reason %q, want a timeout", s.OK, s.Reason)
		}
	})
}

// TestBoxTargetKeepsItsConnection: consecutive ballots travel on one kept-alive
// HTTP/1.1 connection, not a TLS handshake each.
func TestBoxTargetKeepsItsConnection(t *testing.T) {
	var conns atomic.Int32
	var proto atomic.Value
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proto.Store(r.Proto)
		answerWith(http.StatusOK, box.Receipt{TxID: "tx1"})(w, r)
	}))
	srv.EnableHTTP2 = true // the target must still speak HTTP/1.1
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.StartTLS()
	defer srv.Close()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	bt := newBoxTarget(t, srv.URL, ca, 0)
	for i := range 5 {
		if s := bt.Do(context.Background(), i, []byte("ballot")); !s.OK {
			t.Fatalf("ballot %d: %s", i, s.Reason)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("%d connections for 5 ballots in a row, want 1", n)
	}
	if p := proto.Load(); p != "HTTP/1.1" {
		t.Errorf("protocol %v, want HTTP/1.1", p)
	}
}

// TestNewBoxTargetRefuses: each kind of bad option is refused, naming it.
func TestNewBoxTargetRefuses(t *testing.T) {
	_, ca := boxServer(t, answerWith(http.StatusOK, nil))
	good := BoxOptions{URL: "https://127.0.0.1:9", CACert: ca, Conns: 1}
	for _, tc := range []struct {
		what string
		edit func(o *BoxOptions)
		want string
	}{
		{"plain http", func(o *BoxOptions) { o.URL = "http://127.0.0.1:9" }, "want https://HOST:PORT"},
		{"no scheme", func(o *BoxOptions) { o.URL = "127.0.0.1:9" }, "box address"},
		{"no port", func(o *BoxOptions) { o.URL = "https://127.0.0.1" }, "no port"},
		{"a path", func(o *BoxOptions) { o.URL = "https://127.0.0.1:9/v1/ballots" }, "HOST:PORT alone"},
		{"a query", func(o *BoxOptions) { o.URL = "https://127.0.0.1:9/?x=1" }, "HOST:PORT alone"},
		{"another host", func(o *BoxOptions) { o.URL = "https://192.0.2.1:9" }, "not a loopback address"},
		{"no connections", func(o *BoxOptions) { o.Conns = 0 }, "box connections 0"},
		{"a CA file without a certificate", func(o *BoxOptions) { o.CACert = []byte("not PEM") }, "no PEM certificate"},
	} {
		t.Run(tc.what, func(t *testing.T) {
			o := good
			tc.edit(&o)
			_, err := NewBoxTarget(o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("NewBoxTarget: %v, want an error with %q", err, tc.want)
			}
		})
	}
	if _, err := NewBoxTarget(good); err != nil {
		t.Errorf("NewBoxTarget of good options: %v", err)
	}
	remote := good
	remote.URL, remote.Remote = "https://192.0.2.1:9", true
	if _, err := NewBoxTarget(remote); err != nil {
		t.Errorf("NewBoxTarget of another host with Remote: %v", err)
	}
}
