package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/fabvote/fabvote/internal/atomicfile"
	"github.com/fabvote/fabvote/internal/ceremony/config"
	"github.com/fabvote/fabvote/internal/ceremony/relay"
	"github.com/fabvote/fabvote/internal/cli"
	"github.com/fabvote/fabvote/internal/keyfile"
	"github.com/fabvote/fabvote/internal/sharebox"
	"github.com/fabvote/fabvote/network/portplan"
)

// ceremonyConfigOptions are the flags of `ceremony config`.
type ceremonyConfigOptions struct {
	bits, k  int
	relayURL string
	trustees []string // NAME=DIR, in index order
	out      string
}

func cmdCeremonyConfig(fs *pflag.FlagSet) func() error {
	var o ceremonyConfigOptions
	fs.IntVar(&o.bits, "bits", 2048, fmt.Sprintf("size of the modulus N: one of %v", config.Bits))
	fs.IntVar(&o.k, "k", 0, "trustees needed to decrypt")
	fs.StringVar(&o.relayURL, "relay", "", "base URL of the relay (fabvote ceremony relay), http or https")
	fs.StringArrayVar(&o.trustees, "trustee", nil, "NAME=DIR, once per trustee, in index order: DIR holds the trustee's public files from fabvote trustee keygen ("+sharebox.RecipientFile+", "+keyfile.SigningPubFile+")")
	fs.StringVar(&o.out, "out", "", "the configuration file to write (must not exist): give it to every trustee")
	return func() error {
		if err := cli.Required(fs, "k", "relay", "trustee", "out"); err != nil {
			return err
		}
		cfg, err := o.build()
		if err != nil {
			return err
		}
		return writeCeremonyConfig(cfg, o.out)
	}
}

// build makes the configuration of the flags with a fresh ceremony id.
func (o *ceremonyConfigOptions) build() (*config.Config, error) {
	id, err := config.NewID(nil)
	if err != nil {
		return nil, err
	}
	cfg := &config.Config{Ceremony: id, Bits: o.bits, N: len(o.trustees), K: o.k, Relay: o.relayURL}
	for i, arg := range o.trustees {
		name, dir, ok := strings.Cut(arg, "=")
		if !ok || name == "" || dir == "" {
			return nil, cli.Usagef("--trustee %q: want NAME=DIR", arg)
		}
		t, err := readTrusteePublic(i+1, name, dir)
		if err != nil {
			return nil, err
		}
		cfg.Trustees = append(cfg.Trustees, t)
	}
	if err := cfg.Validate(); err != nil {
		return nil, cli.Usagef("%v", err)
	}
	return cfg, nil
}

// readTrusteePublic reads trustee index's public keys from its keygen
// directory.
func readTrusteePublic(index int, name, dir string) (config.Trustee, error) {
	read := func(file string) (string, error) {
		b, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			return "", fmt.Errorf("--trustee %s: %w (a directory of fabvote trustee keygen holds it)", name, err)
		}
		return strings.TrimSpace(string(b)), nil
	}
	rcp, err := read(sharebox.RecipientFile)
	if err != nil {
		return config.Trustee{}, err
	}
	pub, err := read(keyfile.SigningPubFile)
	if err != nil {
		return config.Trustee{}, err
	}
	return config.Trustee{Index: index, Name: name, AgeRecipient: rcp, SigningKey: pub}, nil
}

// writeCeremonyConfig writes cfg's canonical encoding to path, which must
// not exist, and prints its digest and the trustees' fingerprints.
func writeCeremonyConfig(cfg *config.Config, path string) error {
	b, err := cfg.Marshal()
	if err != nil {
		return err
	}
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("--out %s already exists: a ceremony's configuration is never rewritten; choose another file", path)
	}
	if err := atomicfile.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Printf("ceremony %s: %d-of-%d trustees, %d-bit N, relay %s, written to %s\n", cfg.Ceremony, cfg.K, cfg.N, cfg.Bits, cfg.Relay, path)
	for _, t := range cfg.Trustees {
		fmt.Printf("  %s: signing key %s\n", t, keyfile.SigningKeyFingerprint(t.PublicKey()))
	}
	fmt.Printf("config digest (every trustee compares it out of band, then passes it to --expect-digest):\n  %s\n", cfg.DigestHex())
	return nil
}

// ceremonyRelayOptions are the flags of `ceremony relay`.
type ceremonyRelayOptions struct {
	listen, tlsCert, tlsKey string
}

func cmdCeremonyRelay(fs *pflag.FlagSet) func() error {
	var o ceremonyRelayOptions
	fs.StringVar(&o.listen, "listen", portplan.Relay(portplan.MustBase("default")), "HOST:PORT to serve on")
	fs.StringVar(&o.tlsCert, "tls-cert", "", "serve HTTPS with this certificate (PEM); without it the relay serves plain HTTP, which is safe: every message is signed by its trustee and every private one encrypted to its receiver, so the relay can drop a message but neither read nor alter one")
	fs.StringVar(&o.tlsKey, "tls-key", "", "the key of --tls-cert (PEM)")
	return func() error {
		if (o.tlsCert == "") != (o.tlsKey == "") {
			return cli.Usagef("--tls-cert and --tls-key go together")
		}
		ln, err := net.Listen("tcp", o.listen)
		if err != nil {
			return fmt.Errorf("--listen %s: %w", o.listen, err)
		}
		ctx, stop := signalContext()
		defer stop()
		return o.serve(ctx, ln)
	}
}

// serve runs the relay on ln until ctx ends.
func (o *ceremonyRelayOptions) serve(ctx context.Context, ln net.Listener) error {
	logger := log.New(os.Stderr, "ceremony relay: ", log.LstdFlags|log.LUTC)
	s, err := relay.New(relay.DefaultLimits(), logger)
	if err != nil {
		return err
	}
	var tlsConf *tls.Config
	scheme := "http"
	if o.tlsCert != "" {
		cert, err := tls.LoadX509KeyPair(o.tlsCert, o.tlsKey)
		if err != nil {
			return fmt.Errorf("--tls-cert/--tls-key: %w", err)
		}
		tlsConf, scheme = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, "https"
	}
	srv := s.HTTPServer(tlsConf)
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		<-ctx.Done()
		sctx, c := context.WithTimeout(context.Background(), 5*time.Second)
		defer c()
		srv.Shutdown(sctx)
	}()
	logger.Printf("relaying key-ceremony messages at %s://%s", scheme, ln.Addr())
	if tlsConf != nil {
		err = srv.ServeTLS(ln, "", "")
	} else {
		err = srv.Serve(ln)
	}
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	<-stopped
	logger.Printf("stopped")
	return nil
}
