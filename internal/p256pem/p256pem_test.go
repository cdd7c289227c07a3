package p256pem

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"strings"
	"testing"
)

func TestParsePrivateKey(t *testing.T) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pkcs8, _ := x509.MarshalPKCS8PrivateKey(k)
	sec1, _ := x509.MarshalECPrivateKey(k)
	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	der384, _ := x509.MarshalPKCS8PrivateKey(p384)
	block := func(typ string, b []byte) []byte { return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: b}) }
	for _, good := range [][]byte{block("PRIVATE KEY", pkcs8), block("EC PRIVATE KEY", sec1)} {
		if got, err := ParsePrivateKey(good); err != nil || !got.Equal(k) {
			t.Errorf("%s: %v", good[:30], err)
		}
	}
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"no PEM", []byte("not a key"), "no PEM block"},
		{"other block type", block("CERTIFICATE", []byte{1}), `PEM block "CERTIFICATE"`},
		{"garbage PKCS#8", block("PRIVATE KEY", []byte{1, 2}), "asn1"},
		{"P-384 key", block("PRIVATE KEY", der384), "not an ECDSA P-256 key"},
	} {
		if _, err := ParsePrivateKey(tc.data); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}
