package ccserver

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hyperledger/fabric-chaincode-go/v2/shim"
	"github.com/hyperledger/fabric-protos-go-apiv2/peer"
)

type nopCC struct{}

func (nopCC) Init(shim.ChaincodeStubInterface) *peer.Response   { return shim.Success(nil) }
func (nopCC) Invoke(shim.ChaincodeStubInterface) *peer.Response { return shim.Success(nil) }

func TestConfigFromEnv(t *testing.T) {
	dir := t.TempDir()
	pem := filepath.Join(dir, "x.pem")
	notPEM := filepath.Join(dir, "x.txt")
	if err := os.WriteFile(pem, []byte("-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(notPEM, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	full := map[string]string{
		EnvID: "kv_1.0:abcd", EnvAddress: "127.0.0.1:9999",
		EnvTLSCert: pem, EnvTLSKey: pem, EnvTLSClientCA: pem,
	}
	with := func(k, v string) map[string]string {
		m := map[string]string{}
		for a, b := range full {
			m[a] = b
		}
		if v == "<unset>" {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	tests := []struct {
		name    string
		env     map[string]string
		wantErr string // substring; "" = success
		missing bool
	}{
		{"complete", full, "", false},
		{"no id", with(EnvID, "<unset>"), EnvID, true},
		{"blank address", with(EnvAddress, "  "), EnvAddress, true},
		{"no cert", with(EnvTLSCert, "<unset>"), EnvTLSCert, true},
		{"no key", with(EnvTLSKey, "<unset>"), EnvTLSKey, true},
		{"no client ca", with(EnvTLSClientCA, "<unset>"), EnvTLSClientCA, true},
		{"cert file missing", with(EnvTLSCert, filepath.Join(dir, "nope")), EnvTLSCert, false},
		{"key not PEM", with(EnvTLSKey, notPEM), EnvTLSKey, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := ConfigFromEnv(func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok })
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if cfg.ID != full[EnvID] || cfg.Address != full[EnvAddress] || len(cfg.ClientCA) == 0 {
					t.Fatalf("config = %+v", cfg)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error = %v, want one naming %s", err, tc.wantErr)
			}
			if errors.Is(err, ErrMissingEnv) != tc.missing {
				t.Fatalf("errors.Is(err, ErrMissingEnv) = %v, want %v", !tc.missing, tc.missing)
			}
		})
	}
}

func TestServerRejectsNilChaincode(t *testing.T) {
	cfg := &Config{ID: "x:1", Address: "127.0.0.1:0"}
	if _, err := cfg.Server(nil); err == nil {
		t.Fatal("Server(nil) succeeded")
	}
	srv, err := cfg.Server(nopCC{})
	if err != nil {
		t.Fatal(err)
	}
	if srv.CCID != "x:1" || srv.TLSProps.Disabled {
		t.Fatalf("server = %+v", srv)
	}
}
