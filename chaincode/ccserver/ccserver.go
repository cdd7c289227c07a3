// Package ccserver runs a chaincode as an external service (Fabric's
// "chaincode as a service", CCAAS) with mutual TLS.
//
// Every fabvote chaincode main calls Run. The network scripts (network/net.sh)
// start the chaincode process with the variables below, so the process needs no
// flags and no configuration file; keeping the contract this small lets the
// same binary run under the native network, docker-compose or a test harness.
//
//	CHAINCODE_ID                  the package id the peer knows the chaincode by (label:hash)
//	CHAINCODE_SERVER_ADDRESS      host:port to listen on
//	CHAINCODE_TLS_CERT_FILE       PEM server certificate
//	CHAINCODE_TLS_KEY_FILE        PEM server private key
//	CHAINCODE_TLS_CLIENT_CA_FILE  PEM CA bundle; the peer's client certificate must chain to it
//
// TLS is mandatory and clients must present a certificate (mutual TLS): there
// is deliberately no switch to turn it off.
package ccserver

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/hyperledger/fabric-chaincode-go/v2/shim"
)

// Names of the environment variables Run reads.
const (
	EnvID          = "CHAINCODE_ID"
	EnvAddress     = "CHAINCODE_SERVER_ADDRESS"
	EnvTLSCert     = "CHAINCODE_TLS_CERT_FILE"
	EnvTLSKey      = "CHAINCODE_TLS_KEY_FILE"
	EnvTLSClientCA = "CHAINCODE_TLS_CLIENT_CA_FILE"
)

// ErrMissingEnv is wrapped by the error Config returns when a variable is unset.
var ErrMissingEnv = errors.New("environment variable not set")

// Config is what Run needs to serve a chaincode.
type Config struct {
	ID       string // package id
	Address  string // listen address
	Cert     []byte // PEM server certificate
	Key      []byte // PEM server key
	ClientCA []byte // PEM CA certificates for client authentication
}

// ConfigFromEnv reads the configuration with lookup (os.LookupEnv in Run),
// reading the PEM files it names. The error names the first missing or bad
// variable.
func ConfigFromEnv(lookup func(string) (string, bool)) (*Config, error) {
	get := func(name string) (string, error) {
		v, ok := lookup(name)
		if !ok || strings.TrimSpace(v) == "" {
			return "", fmt.Errorf("ccserver: %s: %w", name, ErrMissingEnv)
		}
		return v, nil
	}
	readPEM := func(name string) ([]byte, error) {
		path, err := get(name)
		if err != nil {
			return nil, err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("ccserver: %s: %w", name, err)
		}
		if !strings.Contains(string(b), "-----BEGIN ") {
			return nil, fmt.Errorf("ccserver: %s: %s holds no PEM block", name, path)
		}
		return b, nil
	}
	var c Config
	var err error
	if c.ID, err = get(EnvID); err != nil {
		return nil, err
	}
	if c.Address, err = get(EnvAddress); err != nil {
		return nil, err
	}
	if c.Cert, err = readPEM(EnvTLSCert); err != nil {
		return nil, err
	}
	if c.Key, err = readPEM(EnvTLSKey); err != nil {
		return nil, err
	}
	if c.ClientCA, err = readPEM(EnvTLSClientCA); err != nil {
		return nil, err
	}
	return &c, nil
}

// Server builds the shim server for cc; callers normally use Run.
func (c *Config) Server(cc shim.Chaincode) (*shim.ChaincodeServer, error) {
	if cc == nil {
		return nil, errors.New("ccserver: chaincode is nil")
	}
	return &shim.ChaincodeServer{
		CCID:    c.ID,
		Address: c.Address,
		CC:      cc,
		TLSProps: shim.TLSProperties{
			Cert:          c.Cert,
			Key:           c.Key,
			ClientCACerts: c.ClientCA,
		},
	}, nil
}

// Run serves cc until the listener fails; it returns only with an error.
// A *contractapi.ContractChaincode is a shim.Chaincode, so both kinds of
// chaincode are served the same way.
func Run(cc shim.Chaincode) error {
	cfg, err := ConfigFromEnv(os.LookupEnv)
	if err != nil {
		return err
	}
	srv, err := cfg.Server(cc)
	if err != nil {
		return err
	}
	if err := srv.Start(); err != nil {
		return fmt.Errorf("ccserver: serve %s on %s: %w", cfg.ID, cfg.Address, err)
	}
	return nil
}
