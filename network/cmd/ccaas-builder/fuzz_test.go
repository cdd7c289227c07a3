package main

import (
	"encoding/json"
	"testing"
)

// FuzzParseConnection: the decoder never panics, and whatever it accepts has
// an address and, when TLS is required, the PEM material the peer needs.
func FuzzParseConnection(f *testing.F) {
	f.Add([]byte(`{"address":"127.0.0.1:7153","dial_timeout":"10s","tls_required":false}`))
	f.Add([]byte(`{"address":"a:1","tls_required":true,"client_auth_required":true,"root_cert":"-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n"}`))
	f.Add([]byte(`{"address":"a:1","dial_timeout":3000000000}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := ParseConnection(b)
		if err != nil {
			return
		}
		if c.Address == "" {
			t.Fatal("accepted an empty address")
		}
		if c.TLSRequired && c.RootCert == "" {
			t.Fatal("accepted TLS without root_cert")
		}
		if c.ClientAuthRequired && (!c.TLSRequired || c.ClientCert == "" || c.ClientKey == "") {
			t.Fatal("accepted client auth without TLS material")
		}
		if _, err := json.Marshal(c); err != nil {
			t.Fatalf("accepted value does not re-encode: %v", err)
		}
	})
}
