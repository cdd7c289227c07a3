// Package p256pem reads an ECDSA P-256 private key from PEM, as fabvote's
// key files hold one: the election authority's key and a voter's key. It
// imports only the standard library, so the booth's WebAssembly build
// reads a voter's key with it too.
package p256pem

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
)

// ParsePrivateKey parses the first PEM block of data: a P-256 private key
// in PKCS#8 ("PRIVATE KEY") or SEC 1 ("EC PRIVATE KEY"). Its errors name no
// file: the caller knows which key it read.
func ParsePrivateKey(data []byte) (*ecdsa.PrivateKey, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, errors.New("no PEM block found")
	}
	var key any
	var err error
	switch block.Type {
	case "PRIVATE KEY":
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	default:
		return nil, fmt.Errorf(`PEM block %q: the PEM block type must be "PRIVATE KEY" or "EC PRIVATE KEY"`, block.Type)
	}
	if err != nil {
		return nil, err
	}
	ek, ok := key.(*ecdsa.PrivateKey)
	if !ok || ek.Curve != elliptic.P256() {
		return nil, errors.New("not an ECDSA P-256 key")
	}
	return ek, nil
}
