// Command ccaas-builder is fabvote's Fabric external builder for chaincode run
// as a service (package type "ccaas").
//
// Fabric's own ccaas_builder lives in a module that cannot be fetched here,
// and the job is small: the chaincode package holds only connection.json (the
// address of the running chaincode service and the TLS material the peer uses
// to dial it); the peer never starts a process. One binary serves the three
// builder steps, chosen by the name it is invoked as (bin/detect, bin/build,
// bin/release are links to it) or by its first argument:
//
//	detect  SOURCE_DIR METADATA_DIR           exit 0 if metadata.json has type "ccaas"
//	build   SOURCE_DIR METADATA_DIR OUTPUT_DIR  validate connection.json, copy it (and META-INF) to OUTPUT_DIR
//	release OUTPUT_DIR RELEASE_DIR            copy connection.json to RELEASE_DIR/chaincode/server/
//
// A fourth step is for the network tools, not the peer: "connection --address
// … --root-cert F --client-cert F --client-key F --out F" writes a mutual-TLS
// connection.json with the PEM files inlined. docs/cli/ccaas-builder.md
// has every step; exit status 0 success (for detect: the package is
// ccaas), 1 failure (for detect: not ccaas), 2 bad usage.
//
// build checks connection.json as strictly as the peer will (address present,
// TLS material present and PEM-encoded when required, dial_timeout parseable),
// so a bad package fails at install with a clear message, not at first invoke.
package main

import (
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/fabvote/fabvote/internal/atomicfile"
	"github.com/fabvote/fabvote/internal/cli"
	"github.com/fabvote/fabvote/internal/filetree"
)

// PackageType is the metadata.json type this builder accepts.
const PackageType = "ccaas"

// peerSteps are the steps the peer runs, each through a link of that name
// to this binary.
var peerSteps = []string{"detect", "build", "release"}

// main runs the command line as cli.Main does, but with the step first
// when the peer runs the binary through a step's link (stepArgs).
func main() {
	os.Exit(cli.Execute(newRootCommand(os.Stderr), stepArgs(os.Args), os.Stderr))
}

// stepArgs is the command line of the process run as argv: the arguments
// after the program's name, after the step's name when the program is
// invoked through a link named after one of peerSteps (bin/detect).
func stepArgs(argv []string) []string {
	args := argv[1:]
	if step := filepath.Base(argv[0]); slices.Contains(peerSteps, step) {
		args = append([]string{step}, args...)
	}
	return args
}

func newRootCommand(stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "ccaas-builder STEP ARGS",
		Short: "fabvote's Fabric external builder for chaincode run as a service",
		Args:  cli.UnknownCommand,
		RunE:  cli.ShowUsage,
	}
	root.AddCommand(&cobra.Command{
		Use:   "detect SOURCE_DIR METADATA_DIR",
		Short: "exit 0 if METADATA_DIR/metadata.json has type ccaas, 1 if not",
		Args:  cli.ExactArgs(2, "SOURCE_DIR METADATA_DIR"),
		RunE: func(_ *cobra.Command, args []string) error {
			ok, err := Detect(args[1])
			if err == nil && !ok {
				return cli.ErrReported // not a ccaas package: exit 1, nothing to say
			}
			return err
		},
	}, &cobra.Command{
		Use:   "build SOURCE_DIR METADATA_DIR OUTPUT_DIR",
		Short: "validate SOURCE_DIR/connection.json and copy it (and META-INF) to OUTPUT_DIR",
		Args:  cli.ExactArgs(3, "SOURCE_DIR METADATA_DIR OUTPUT_DIR"),
		RunE:  func(_ *cobra.Command, args []string) error { return Build(args[0], args[2]) },
	}, &cobra.Command{
		Use:   "release OUTPUT_DIR RELEASE_DIR",
		Short: "copy OUTPUT_DIR/connection.json to RELEASE_DIR/chaincode/server/",
		Args:  cli.ExactArgs(2, "OUTPUT_DIR RELEASE_DIR"),
		RunE:  func(_ *cobra.Command, args []string) error { return Release(args[0], args[1]) },
	}, connectionCommand())
	cli.Configure(root, stderr)
	return root
}

// Detect reports whether metadataDir/metadata.json declares a ccaas package.
func Detect(metadataDir string) (bool, error) {
	b, err := os.ReadFile(filepath.Join(metadataDir, "metadata.json"))
	if err != nil {
		return false, err
	}
	var md struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(b, &md); err != nil {
		return false, fmt.Errorf("metadata.json: %w", err)
	}
	return strings.EqualFold(md.Type, PackageType), nil
}

// Connection mirrors the connection.json the peer reads from the release
// directory (Fabric's ChaincodeServerUserData).
type Connection struct {
	Address            string          `json:"address"`
	DialTimeout        json.RawMessage `json:"dial_timeout,omitempty"`
	TLSRequired        bool            `json:"tls_required"`
	ClientAuthRequired bool            `json:"client_auth_required"`
	ClientKey          string          `json:"client_key,omitempty"`
	ClientCert         string          `json:"client_cert,omitempty"`
	RootCert           string          `json:"root_cert,omitempty"`
}

// ParseConnection decodes and validates connection.json; errors name the field.
func ParseConnection(b []byte) (*Connection, error) {
	var c Connection
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("connection.json: %w", err)
	}
	if strings.TrimSpace(c.Address) == "" {
		return nil, errors.New("connection.json: address is empty")
	}
	if len(c.DialTimeout) > 0 {
		var v any
		if err := json.Unmarshal(c.DialTimeout, &v); err != nil {
			return nil, fmt.Errorf("connection.json: dial_timeout: %w", err)
		}
		switch d := v.(type) {
		case string:
			if _, err := time.ParseDuration(d); err != nil {
				return nil, fmt.Errorf("connection.json: dial_timeout: %w", err)
			}
		case float64:
		default:
			return nil, errors.New("connection.json: dial_timeout: want a duration string or nanoseconds")
		}
	}
	if !c.TLSRequired {
		if c.ClientAuthRequired {
			return nil, errors.New("connection.json: client_auth_required is set but tls_required is not")
		}
		return &c, nil
	}
	checks := []struct {
		field, value string
		need         bool
	}{
		{"root_cert", c.RootCert, true},
		{"client_cert", c.ClientCert, c.ClientAuthRequired},
		{"client_key", c.ClientKey, c.ClientAuthRequired},
	}
	for _, ch := range checks {
		if !ch.need {
			continue
		}
		if ch.value == "" {
			return nil, fmt.Errorf("connection.json: %s is empty", ch.field)
		}
		if blk, _ := pem.Decode([]byte(ch.value)); blk == nil {
			return nil, fmt.Errorf("connection.json: %s is not PEM", ch.field)
		}
	}
	return &c, nil
}

// Build validates sourceDir/connection.json and copies it, and META-INF if
// present, into outputDir.
func Build(sourceDir, outputDir string) error {
	src := filepath.Join(sourceDir, "connection.json")
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if _, err := ParseConnection(b); err != nil {
		return err
	}
	if err := os.MkdirAll(outputDir, 0o755); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(outputDir, "connection.json"), b, connectionMode); err != nil {
		return err
	}
	meta := filepath.Join(sourceDir, "META-INF")
	if fi, err := os.Stat(meta); err == nil && fi.IsDir() {
		if err := filetree.Copy(meta, filepath.Join(outputDir, "META-INF")); err != nil {
			return fmt.Errorf("META-INF: %w", err)
		}
	}
	return nil
}

// Release copies outputDir/connection.json to releaseDir/chaincode/server/,
// where the peer looks for it.
func Release(outputDir, releaseDir string) error {
	b, err := os.ReadFile(filepath.Join(outputDir, "connection.json"))
	if err != nil {
		return err
	}
	dir := filepath.Join(releaseDir, "chaincode", "server")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, "connection.json"), b, connectionMode)
}

// connectionMode is the mode of every connection.json this command writes:
// the file holds the peer's TLS client key. Each is written atomically
// (internal/atomicfile), so the peer never reads half of one.
const connectionMode = 0o600

// connectionCommand is the "connection" step.
func connectionCommand() *cobra.Command {
	var address, rootCert, clientCert, clientKey, dialTimeout, out string
	c := &cobra.Command{
		Use:   "connection --address HOST:PORT --root-cert FILE --client-cert FILE --client-key FILE [--dial-timeout 10s] --out FILE",
		Short: "write a mutual-TLS connection.json with the PEM files inlined",
		Args:  cli.NoArgs,
	}
	fs := c.Flags()
	fs.StringVar(&address, "address", "", "chaincode service address host:port (required)")
	fs.StringVar(&rootCert, "root-cert", "", "PEM file: CA of the chaincode service's TLS certificate (required)")
	fs.StringVar(&clientCert, "client-cert", "", "PEM file: the peer's TLS client certificate (required)")
	fs.StringVar(&clientKey, "client-key", "", "PEM file: the peer's TLS client key (required)")
	fs.StringVar(&dialTimeout, "dial-timeout", "10s", "dial timeout")
	fs.StringVar(&out, "out", "", "output file (required)")
	c.RunE = func(*cobra.Command, []string) error {
		if err := cli.Required(fs, "address", "root-cert", "client-cert", "client-key", "out"); err != nil {
			return err
		}
		conn, err := NewConnection(address, dialTimeout, rootCert, clientCert, clientKey)
		if err != nil {
			return err
		}
		b, err := json.MarshalIndent(conn, "", "  ")
		if err != nil {
			return err
		}
		return atomicfile.WriteFile(out, append(b, '\n'), connectionMode)
	}
	return c
}

// NewConnection builds a mutual-TLS Connection from PEM files and validates it.
func NewConnection(address, dialTimeout, rootCertFile, clientCertFile, clientKeyFile string) (*Connection, error) {
	read := func(flagName, path string) (string, error) {
		if path == "" {
			return "", fmt.Errorf("--%s is required", flagName)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return "", fmt.Errorf("--%s: %w", flagName, err)
		}
		return string(b), nil
	}
	c := &Connection{Address: address, TLSRequired: true, ClientAuthRequired: true}
	if dialTimeout != "" {
		c.DialTimeout = json.RawMessage(fmt.Sprintf("%q", dialTimeout))
	}
	var err error
	if c.RootCert, err = read("root-cert", rootCertFile); err != nil {
		return nil, err
	}
	if c.ClientCert, err = read("client-cert", clientCertFile); err != nil {
		return nil, err
	}
	if c.ClientKey, err = read("client-key", clientKeyFile); err != nil {
		return nil, err
	}
	b, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	return ParseConnection(b)
}
