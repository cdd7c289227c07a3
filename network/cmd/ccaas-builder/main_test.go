package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const testPEM = "-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n"

func TestParseConnection(t *testing.T) {
	pemJSON := strings.ReplaceAll(testPEM, "\n", `\n`)
	full := `{"address":"127.0.0.1:7153","dial_timeout":"10s","tls_required":true,"client_auth_required":true,` +
		`"root_cert":"` + pemJSON + `","client_cert":"` + pemJSON + `","client_key":"` + pemJSON + `"}`
	tests := []struct {
		name, in, wantErr string
	}{
		{"mutual TLS", full, ""},
		{"plain", `{"address":"127.0.0.1:1"}`, ""},
		{"numeric timeout", `{"address":"a:1","dial_timeout":3000000000}`, ""},
		{"no address", `{"address":""}`, "address"},
		{"bad timeout", `{"address":"a:1","dial_timeout":"soon"}`, "dial_timeout"},
		{"client auth without tls", `{"address":"a:1","client_auth_required":true}`, "tls_required"},
		{"tls no root", `{"address":"a:1","tls_required":true}`, "root_cert"},
		{"mtls no key", strings.Replace(full, `"client_key":"`+pemJSON+`"`, `"client_key":""`, 1), "client_key"},
		{"cert not pem", strings.Replace(full, `"client_cert":"`+pemJSON+`"`, `"client_cert":"abc"`, 1), "client_cert"},
		{"unknown field", `{"address":"a:1","adress":"x"}`, "adress"},
		{"not json", `address`, "connection.json"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseConnection([]byte(tc.in))
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error = %v, want one naming %s", err, tc.wantErr)
			}
		})
	}
}

func TestDetect(t *testing.T) {
	tests := []struct {
		name, metadata string
		want           bool
		wantErr        bool
	}{
		{"ccaas", `{"type":"ccaas","label":"kv_1"}`, true, false},
		{"upper case", `{"type":"CCAAS","label":"kv_1"}`, true, false},
		{"golang", `{"type":"golang","path":"x","label":"kv_1"}`, false, false},
		{"garbage", `{`, false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "metadata.json"), []byte(tc.metadata), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := Detect(dir)
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Fatalf("Detect = %v, %v; want %v, error %v", got, err, tc.want, tc.wantErr)
			}
		})
	}
	if _, err := Detect(t.TempDir()); err == nil {
		t.Fatal("Detect without metadata.json succeeded")
	}
}

func TestBuildRelease(t *testing.T) {
	src, out, rel := t.TempDir(), t.TempDir(), t.TempDir()
	conn := []byte(`{"address":"127.0.0.1:9999","tls_required":false}`)
	if err := os.WriteFile(filepath.Join(src, "connection.json"), conn, 0o644); err != nil {
		t.Fatal(err)
	}
	idx := filepath.Join(src, "META-INF", "statedb", "couchdb", "indexes")
	if err := os.MkdirAll(idx, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(idx, "i.json"), []byte(`{}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Build(src, out); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "META-INF", "statedb", "couchdb", "indexes", "i.json")); err != nil {
		t.Fatalf("META-INF not copied: %v", err)
	}
	if err := Release(out, rel); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(rel, "chaincode", "server", "connection.json"))
	if err != nil || string(got) != string(conn) {
		t.Fatalf("released connection.json = %q, %v; want %q", got, err, conn)
	}

	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, "connection.json"), []byte(`{"address":""}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Build(bad, t.TempDir()); err == nil || !strings.Contains(err.Error(), "address") {
		t.Fatalf("Build of a bad package: error = %v, want one naming address", err)
	}
	if err := Build(t.TempDir(), t.TempDir()); err == nil {
		t.Fatal("Build without connection.json succeeded")
	}
}

func TestNewConnection(t *testing.T) {
	dir := t.TempDir()
	pemFile := filepath.Join(dir, "c.pem")
	if err := os.WriteFile(pemFile, []byte(testPEM), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, address, timeout, root, cert, key, wantErr string
	}{
		{"ok", "127.0.0.1:7153", "10s", pemFile, pemFile, pemFile, ""},
		{"no address", "", "10s", pemFile, pemFile, pemFile, "address"},
		{"bad timeout", "a:1", "x", pemFile, pemFile, pemFile, "dial_timeout"},
		{"no root", "a:1", "10s", "", pemFile, pemFile, "root-cert"},
		{"missing key file", "a:1", "10s", pemFile, pemFile, filepath.Join(dir, "none"), "client-key"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := NewConnection(tc.address, tc.timeout, tc.root, tc.cert, tc.key)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want one naming %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.RootCert != testPEM || c.ClientKey != testPEM || !c.ClientAuthRequired || !c.TLSRequired {
				t.Fatalf("connection = %+v", c)
			}
		})
	}
}
