package registrar

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"time"

	"github.com/fabvote/fabvote/internal/atomicfile"
	"github.com/fabvote/fabvote/internal/easigner"
)

// TLSFiles names the registration service's TLS material. Voters trust
// CACert (`register --ca-cert`); the server presents Cert, a leaf the CA
// signed. CAKey only signs leaves and belongs offline between renewals.
type TLSFiles struct {
	CACert, CAKey string
	Cert, Key     string
}

// WriteTLS writes a server leaf certificate for hosts (IPs or DNS names),
// valid for validFor, and its key (0600). The leaf is signed by the CA in
// CACert/CAKey; when neither file exists a new P-256 CA is made first (its key
// 0600), so a renewal reuses the CA voters already trust.
func WriteTLS(f TLSFiles, hosts []string, validFor time.Duration) (newCA bool, err error) {
	tmpl, err := leafTemplate(hosts, validFor)
	if err != nil {
		return false, err
	}
	ca, caKey, newCA, err := loadOrCreateCA(f, validFor)
	if err != nil {
		return false, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return false, err
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return false, err
	}
	if err := easigner.WritePEM(f.Key, key); err != nil {
		return false, err
	}
	return newCA, writeCert(f.Cert, der)
}

func serial() (*big.Int, error) {
	return rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
}

// leafTemplate is a server certificate that cannot sign others (CA:FALSE)
// and is good only for TLS server authentication.
func leafTemplate(hosts []string, validFor time.Duration) (*x509.Certificate, error) {
	sn, err := serial()
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          sn,
		Subject:               pkix.Name{CommonName: "fabvote registration service"},
		NotBefore:             now.Add(-time.Minute),
		NotAfter:              now.Add(validFor),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  false,
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else if h != "" {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	if len(tmpl.IPAddresses)+len(tmpl.DNSNames) == 0 {
		return nil, fmt.Errorf("--hosts: give at least one IP address or DNS name")
	}
	return tmpl, nil
}

// loadOrCreateCA reads the CA pair, or makes one when both files are absent.
// One file without the other is an error: never silently replace a CA.
func loadOrCreateCA(f TLSFiles, leafValidity time.Duration) (*x509.Certificate, *ecdsa.PrivateKey, bool, error) {
	_, certErr := os.Stat(f.CACert)
	_, keyErr := os.Stat(f.CAKey)
	switch {
	case errors.Is(certErr, os.ErrNotExist) && errors.Is(keyErr, os.ErrNotExist):
		ca, key, err := createCA(f, leafValidity)
		return ca, key, true, err
	case certErr != nil || keyErr != nil:
		return nil, nil, false, fmt.Errorf("TLS CA: need both %s and %s, or neither (to make a new CA): %v / %v", f.CACert, f.CAKey, certErr, keyErr)
	}
	key, err := readKey(f.CAKey)
	if err != nil {
		return nil, nil, false, err
	}
	ca, err := readCert(f.CACert)
	if err != nil {
		return nil, nil, false, err
	}
	if !ca.IsCA || !key.PublicKey.Equal(ca.PublicKey) {
		return nil, nil, false, fmt.Errorf("TLS CA: %s is not a CA certificate for the key %s", f.CACert, f.CAKey)
	}
	return ca, key, false, nil
}

// createCA makes a CA that may sign leaves only (path length 0); it outlives
// the first leaf so leaves can be renewed under it.
func createCA(f TLSFiles, leafValidity time.Duration) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	sn, err := serial()
	if err != nil {
		return nil, nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          sn,
		Subject:               pkix.Name{CommonName: "fabvote registration CA"},
		NotBefore:             now.Add(-time.Minute),
		NotAfter:              now.Add(4 * leafValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	if err := easigner.WritePEM(f.CAKey, key); err != nil {
		return nil, nil, err
	}
	if err := writeCert(f.CACert, der); err != nil {
		return nil, nil, err
	}
	ca, err := x509.ParseCertificate(der)
	return ca, key, err
}

func writeCert(path string, der []byte) error {
	return atomicfile.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644)
}

func readKey(path string) (*ecdsa.PrivateKey, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("TLS CA key: %w", err)
	}
	block, _ := pem.Decode(data)
	if block == nil || block.Type != easigner.PEMType {
		return nil, fmt.Errorf("TLS CA key %s: no PEM %q block", path, easigner.PEMType)
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("TLS CA key %s: %w", path, err)
	}
	ek, ok := k.(*ecdsa.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("TLS CA key %s: not an ECDSA key", path)
	}
	return ek, nil
}

func readCert(path string) (*x509.Certificate, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("TLS certificate: %w", err)
	}
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "CERTIFICATE" {
		return nil, fmt.Errorf("TLS certificate %s: no PEM CERTIFICATE block", path)
	}
	c, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("TLS certificate %s: %w", path, err)
	}
	return c, nil
}

// aeadSuites are the TLS 1.2 suites allowed: ECDHE key exchange with an AEAD
// cipher. TLS 1.3's suites are all AEAD and not configurable.
var aeadSuites = []uint16{
	tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
	tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
	tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
	tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
	tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
	tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
}

// TLSConfig is the TLS configuration of both the service and its client:
// TLS 1.2 with AEAD suites only, or TLS 1.3.
func TLSConfig() *tls.Config {
	return &tls.Config{MinVersion: tls.VersionTLS12, CipherSuites: aeadSuites}
}

// ServerTLS loads the server's pair and refuses a CA certificate: voters
// trust the CA, the server presents a leaf.
func ServerTLS(certPath, keyPath string) (*tls.Config, error) {
	pair, err := tls.LoadX509KeyPair(certPath, keyPath)
	if err != nil {
		return nil, fmt.Errorf("--tls-cert/--tls-key: %w", err)
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		return nil, fmt.Errorf("--tls-cert %s: %w", certPath, err)
	}
	if leaf.IsCA {
		return nil, fmt.Errorf("--tls-cert %s is a CA certificate; the service presents a leaf signed by the CA voters trust (`fabvote ea tls-cert`)", certPath)
	}
	c := TLSConfig()
	c.Certificates = []tls.Certificate{pair}
	return c, nil
}
