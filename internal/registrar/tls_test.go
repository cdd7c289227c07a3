package registrar

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func tlsFiles(dir string) TLSFiles {
	p := func(s string) string { return filepath.Join(dir, s) }
	return TLSFiles{CACert: p("ca.crt"), CAKey: p("ca.key"), Cert: p("server.crt"), Key: p("server.key")}
}

// TestTLSLeafUnderCA: the server certificate is a leaf (CA:FALSE, serverAuth
// only) that verifies under the separate CA voters trust; a renewal keeps the
// CA; keys are 0600.
func TestTLSLeafUnderCA(t *testing.T) {
	f := tlsFiles(t.TempDir())
	newCA, err := WriteTLS(f, []string{"127.0.0.1", "localhost"}, time.Hour)
	if err != nil || !newCA {
		t.Fatalf("first WriteTLS: newCA %v, err %v", newCA, err)
	}
	leaf, _ := readCert(f.Cert)
	ca, _ := readCert(f.CACert)
	if leaf.IsCA || !leaf.BasicConstraintsValid || leaf.KeyUsage&x509.KeyUsageCertSign != 0 {
		t.Fatal("server certificate may sign certificates")
	}
	if len(leaf.ExtKeyUsage) != 1 || leaf.ExtKeyUsage[0] != x509.ExtKeyUsageServerAuth {
		t.Fatalf("server certificate extended key usage %v, want serverAuth only", leaf.ExtKeyUsage)
	}
	if !ca.IsCA || !ca.MaxPathLenZero || leaf.CheckSignatureFrom(ca) != nil {
		t.Fatal("server certificate is not signed by a leaf-only CA")
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: pool, DNSName: "localhost"}); err != nil {
		t.Fatalf("leaf does not verify under the CA: %v", err)
	}
	for _, k := range []string{f.Key, f.CAKey} {
		if fi, err := os.Stat(k); err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("%s: mode %v, want 0600", k, fi.Mode().Perm())
		}
	}
	if newCA, err := WriteTLS(f, []string{"localhost"}, time.Hour); err != nil || newCA {
		t.Fatalf("renewal: newCA %v, err %v", newCA, err)
	}
	renewed, _ := readCert(f.Cert)
	if renewed.SerialNumber.Cmp(leaf.SerialNumber) == 0 || renewed.CheckSignatureFrom(ca) != nil {
		t.Fatal("renewal did not make a new leaf under the same CA")
	}
	if _, err := ServerTLS(f.CACert, f.CAKey); err == nil || !strings.Contains(err.Error(), "is a CA certificate") {
		t.Fatalf("serving with the CA certificate: err = %v", err)
	}
	os.Remove(f.CAKey)
	if _, err := WriteTLS(f, []string{"localhost"}, time.Hour); err == nil || !strings.Contains(err.Error(), "or neither") {
		t.Fatalf("CA certificate without its key: err = %v", err)
	}
	if _, err := WriteTLS(tlsFiles(t.TempDir()), nil, time.Hour); err == nil {
		t.Fatal("certificate without hosts accepted")
	}
}

// TestTLSOnlyAEAD: the service completes a handshake with an AEAD suite or
// TLS 1.3, and refuses a client that offers only CBC suites.
func TestTLSOnlyAEAD(t *testing.T) {
	f := tlsFiles(t.TempDir())
	if _, err := WriteTLS(f, []string{"127.0.0.1"}, time.Hour); err != nil {
		t.Fatal(err)
	}
	conf, err := ServerTLS(f.Cert, f.Key)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") }))
	srv.TLS = conf
	srv.Config.ErrorLog = nil
	srv.StartTLS()
	defer srv.Close()
	c, err := NewClient(srv.URL, f.CACert)
	if err != nil {
		t.Fatal(err)
	}
	pool := c.HTTP.Transport.(*http.Transport).TLSClientConfig.RootCAs
	dial := func(suites []uint16, maxVersion uint16) error {
		conn, err := tls.Dial("tcp", srv.Listener.Addr().String(), &tls.Config{RootCAs: pool, CipherSuites: suites, MaxVersion: maxVersion})
		if err == nil {
			conn.Close()
		}
		return err
	}
	if err := dial(nil, tls.VersionTLS13); err != nil {
		t.Fatalf("TLS 1.3: %v", err)
	}
	if err := dial([]uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256}, tls.VersionTLS12); err != nil {
		t.Fatalf("TLS 1.2 ECDHE-ECDSA-AES128-GCM: %v", err)
	}
	if err := dial([]uint16{tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256}, tls.VersionTLS12); err != nil {
		t.Fatalf("TLS 1.2 ECDHE-ECDSA-CHACHA20-POLY1305: %v", err)
	}
	for _, cbc := range []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA, tls.TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA, tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256} {
		err := dial([]uint16{cbc}, tls.VersionTLS12)
		var alert tls.AlertError
		if err == nil || !(errors.As(err, &alert) || strings.Contains(err.Error(), "handshake failure")) {
			t.Fatalf("CBC suite %s: err = %v, want a handshake failure", tls.CipherSuiteName(cbc), err)
		}
	}
	for _, id := range TLSConfig().CipherSuites {
		name := tls.CipherSuiteName(id)
		if !strings.Contains(name, "_GCM_") && !strings.Contains(name, "CHACHA20_POLY1305") || !strings.HasPrefix(name, "TLS_ECDHE_") {
			t.Fatalf("configured suite %s is not ECDHE with an AEAD", name)
		}
	}
}
