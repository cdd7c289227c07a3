package loadgen

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fabvote/fabvote/internal/gateway"
	"google.golang.org/grpc"
)

// writeCert writes a fresh self-signed ECDSA certificate and its PKCS#8 key.
func writeCert(t *testing.T, dir, name string) (certPEM []byte, certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Unix(0, 0), NotAfter: time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	certFile, keyFile = filepath.Join(dir, name+".pem"), filepath.Join(dir, name+"-key.pem")
	if err := os.WriteFile(certFile, certPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certPEM, certFile, keyFile
}

// TestDial checks Dial through gateway.Connect without a network (gRPC
// connects lazily): the loopback rule, the identity lookup, and the
// fingerprint, which must stay what prepared-transaction stores recorded:
// SHA-256 over length-prefixed TLS CA, client certificate, channel, chaincode.
func TestDial(t *testing.T) {
	dir := t.TempDir()
	caPEM, caFile, _ := writeCert(t, dir, "tlsca")
	certPEM, certFile, keyFile := writeCert(t, dir, "user1")
	netw := func(endpoint string) *gateway.Network {
		return &gateway.Network{Channel: "fabvote", Chaincodes: []string{"ballot"}, Orgs: []gateway.Org{{
			Name: "ea", MSPID: "EAMSP", TLSCACert: caFile,
			Peers:      []gateway.Peer{{Name: "peer0", Endpoint: endpoint}},
			Identities: map[string]gateway.Identity{"user1": {Cert: certFile, Key: keyFile}},
		}}}
	}
	h := sha256.New()
	for _, part := range [][]byte{caPEM, certPEM, []byte("fabvote"), []byte("ballot")} {
		fmt.Fprintf(h, "%d:", len(part))
		h.Write(part)
	}
	wantFP := hex.EncodeToString(h.Sum(nil))

	tests := []struct {
		name, endpoint string
		opts           DialOptions
		wantErr        string // "" = success
	}{
		{"loopback", "127.0.0.1:7051", DialOptions{}, ""},
		{"localhost, explicit names", "localhost:7051", DialOptions{Org: "EAMSP", Identity: "user1", Chaincode: "ballot"}, ""},
		{"remote peer refused", "10.1.2.3:7051", DialOptions{}, "not a loopback address"},
		{"unknown identity", "127.0.0.1:7051", DialOptions{Identity: "admin"}, `--identity "admin"`},
		// Per-connection gRPC options reach grpc.NewClient (this one is
		// checked there and refused).
		{"grpc option applied", "127.0.0.1:7051", DialOptions{GRPC: []grpc.DialOption{grpc.WithDefaultServiceConfig("{")}}, "service config"},
		{"chaincode not deployed", "127.0.0.1:7051", DialOptions{Chaincode: "other"}, "not deployed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Dial(netw(tc.endpoint), tc.opts)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Dial = %v, want an error mentioning %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Dial: %v", err)
			}
			defer c.Close()
			if c.Endpoint != tc.endpoint || c.Fingerprint != wantFP {
				t.Fatalf("endpoint %q fingerprint %s, want %q %s", c.Endpoint, c.Fingerprint, tc.endpoint, wantFP)
			}
		})
	}
}
