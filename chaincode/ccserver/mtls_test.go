package ccserver

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

func newCA(t *testing.T, name string) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return &testCA{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// issue returns a PEM certificate and key for a leaf usable as server and client.
func (ca *testCA) issue(t *testing.T, cn string, serial int64) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial),
		Subject:      pkix.Name{CommonName: cn},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// TestMutualTLS starts a real chaincode server from environment-style files and
// checks that only clients with a certificate from the client CA get in.
func TestMutualTLS(t *testing.T) {
	ca := newCA(t, "org-tlsca")
	other := newCA(t, "other-ca")
	srvCert, srvKey := ca.issue(t, "ccaas0", 2)
	cliCert, cliKey := ca.issue(t, "peer0", 3)
	badCert, badKey := other.issue(t, "intruder", 4)

	dir := t.TempDir()
	files := map[string][]byte{"srv.crt": srvCert, "srv.key": srvKey, "ca.crt": ca.pem}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	addr := freeAddr(t)
	env := map[string]string{
		EnvID: "test_1.0:00", EnvAddress: addr,
		EnvTLSCert: filepath.Join(dir, "srv.crt"), EnvTLSKey: filepath.Join(dir, "srv.key"),
		EnvTLSClientCA: filepath.Join(dir, "ca.crt"),
	}
	cfg, err := ConfigFromEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	srv, err := cfg.Server(nopCC{})
	if err != nil {
		t.Fatal(err)
	}
	// shim.ChaincodeServer has no Stop: the listener lives until the test binary exits.
	go func() { _ = srv.Start() }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("server did not listen on %s: %v", addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}

	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(ca.pem)
	pair := func(c, k []byte) []tls.Certificate {
		kp, err := tls.X509KeyPair(c, k)
		if err != nil {
			t.Fatal(err)
		}
		return []tls.Certificate{kp}
	}
	tests := []struct {
		name   string
		certs  []tls.Certificate
		wantOK bool
	}{
		{"client certificate from the client CA", pair(cliCert, cliKey), true},
		{"no client certificate", nil, false},
		{"client certificate from another CA", pair(badCert, badKey), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// TLS 1.2 so that the server's verdict on the client certificate
			// is part of the handshake (TLS 1.3 reports it only on the first read).
			conn, err := tls.Dial("tcp", addr, &tls.Config{
				RootCAs: roots, Certificates: tc.certs, ServerName: "127.0.0.1",
				MinVersion: tls.VersionTLS12, MaxVersion: tls.VersionTLS12, NextProtos: []string{"h2"},
			})
			if err == nil {
				conn.Close()
			}
			if (err == nil) != tc.wantOK {
				t.Fatalf("handshake error = %v, want success %v", err, tc.wantOK)
			}
		})
	}
}
