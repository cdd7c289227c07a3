package box

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fabvote/fabvote/internal/registrar"
)

// TestTLSRefusesOldVersionsAndCBC: the box's server, on the registrar's TLS
// configuration, answers TLS 1.3 and TLS 1.2 with an AEAD suite, and refuses
// TLS 1.1 and a client offering only CBC suites. Its timeouts and header
// cap are set.
func TestTLSRefusesOldVersionsAndCBC(t *testing.T) {
	dir := t.TempDir()
	p := func(s string) string { return filepath.Join(dir, s) }
	files := registrar.TLSFiles{CACert: p("ca.crt"), CAKey: p("ca.key"), Cert: p("box.crt"), Key: p("box.key")}
	if _, err := registrar.WriteTLS(files, []string{"127.0.0.1"}, time.Hour); err != nil {
		t.Fatal(err)
	}
	conf, err := registrar.ServerTLS(files.Cert, files.Key)
	if err != nil {
		t.Fatal(err)
	}
	srv := newTestBox(t, &fakeLedger{}, nil).HTTPServer(conf)
	if srv.ReadHeaderTimeout <= 0 || srv.ReadTimeout <= 0 || srv.WriteTimeout <= DefaultLimits().SubmitTimeout || srv.IdleTimeout <= 0 || srv.MaxHeaderBytes <= 0 {
		t.Fatalf("server without a timeout or header cap: %+v", srv)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes
	go srv.ServeTLS(ln, "", "")
	defer srv.Close()
	caPEM, _ := os.ReadFile(files.CACert)
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	dial := func(minV, maxV uint16, suites []uint16) error {
		c, err := tls.Dial("tcp", ln.Addr().String(), &tls.Config{RootCAs: pool, MinVersion: minV, MaxVersion: maxV, CipherSuites: suites})
		if err == nil {
			c.Close()
		}
		return err
	}
	if err := dial(tls.VersionTLS13, tls.VersionTLS13, nil); err != nil {
		t.Fatalf("TLS 1.3: %v", err)
	}
	if err := dial(tls.VersionTLS12, tls.VersionTLS12, []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256}); err != nil {
		t.Fatalf("TLS 1.2 with AES-GCM: %v", err)
	}
	if err := dial(tls.VersionTLS10, tls.VersionTLS11, nil); err == nil || !strings.Contains(err.Error(), "protocol version") {
		t.Fatalf("TLS 1.1: %v, want the server's protocol version alert", err)
	}
	for _, cbc := range []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA, tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256} {
		if err := dial(tls.VersionTLS12, tls.VersionTLS12, []uint16{cbc}); err == nil || !strings.Contains(err.Error(), "handshake failure") {
			t.Fatalf("CBC suite %s: %v, want the server's handshake failure", tls.CipherSuiteName(cbc), err)
		}
	}
	// A request over the TLS the box accepts is answered.
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}, Timeout: 10 * time.Second}
	resp, err := client.Post("https://"+ln.Addr().String()+BallotsPath, "application/json", strings.NewReader(ballotBody(testBallot(t, testElection, 1))))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("ballot over HTTPS: %d", resp.StatusCode)
	}
}
