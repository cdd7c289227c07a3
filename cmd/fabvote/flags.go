package main

import (
	"context"
	"crypto"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/fabvote/fabvote/crypto/paillier/threshold/trustee"
	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/ballotclient"
	"github.com/fabvote/fabvote/internal/cli"
	"github.com/fabvote/fabvote/internal/easigner"
	"github.com/fabvote/fabvote/internal/gateway"
	"github.com/fabvote/fabvote/internal/registrar"
)

// required is a usage error naming the first flag of names left empty.
func required(fs *pflag.FlagSet, names ...string) error {
	for _, n := range names {
		if f := fs.Lookup(n); f == nil || missing(f) {
			return cli.Usagef("--%s is required", n)
		}
	}
	return nil
}

// notEmptyIfGiven refuses a flag given with an empty value, such as an
// unset shell variable: for an anchor (--genesis-hash, --manifest) an empty
// value would otherwise be taken for no anchor, and the check silently skipped.
func notEmptyIfGiven(fs *pflag.FlagSet, names ...string) error {
	for _, n := range names {
		if f := fs.Lookup(n); f != nil && f.Changed && f.Value.String() == "" {
			return cli.Usagef("--%s was given an empty value (an unset variable?): give it a value, or leave the flag out", n)
		}
	}
	return nil
}

// missing reports whether f holds no value: an empty string (given or not),
// or a number left at its zero default.
func missing(f *pflag.Flag) bool {
	v := f.Value.String()
	return v == "" || (!f.Changed && v == "0" && f.DefValue == "0")
}

// netFlags select the network and the identity.
type netFlags struct {
	network, org, identity string
	maxAttempts            int
}

func (n *netFlags) register(fs *pflag.FlagSet, defaultIdentity string) {
	fs.StringVar(&n.network, "network", "run/current/network.json", "network description written by make network-up")
	fs.StringVar(&n.org, "org", "", "org name or MSP id to connect as (default: the command's natural org)")
	fs.StringVar(&n.identity, "identity", defaultIdentity, "identity of the org in network.json (admin, user1, …)")
	fs.IntVar(&n.maxAttempts, "max-attempts", 8, "attempts per transaction for retryable failures")
}

// connect opens the ledger client; defaultOrg is used when --org is empty.
func (n *netFlags) connect(defaultOrg string) (*ballotclient.Client, error) {
	net, err := gateway.LoadNetwork(n.network)
	if err != nil {
		return nil, err
	}
	conn, err := gateway.Connect(net, gateway.Options{Org: n.orgOr(net, defaultOrg), Identity: n.identity, MaxAttempts: n.maxAttempts})
	if err != nil {
		return nil, err
	}
	return ballotclient.New(conn), nil
}

// withLedger connects as connect does and runs fn with the client and a
// context that SIGINT or SIGTERM cancels; both are released when fn returns.
func (n *netFlags) withLedger(defaultOrg string, fn func(ctx context.Context, lc *ballotclient.Client) error) error {
	lc, err := n.connect(defaultOrg)
	if err != nil {
		return err
	}
	defer lc.Conn.Close()
	ctx, cancel := signalContext()
	defer cancel()
	return fn(ctx, lc)
}

// orgOr is --org, or else defaultOrg if the network has it and holds an
// identity of it, or else the first org the network holds identities of.
// On one organisation's host (fabnet's network.json) that is the host's
// own org; on a single-host network, with every org's identities, the first.
func (n *netFlags) orgOr(net *gateway.Network, defaultOrg string) string {
	if n.org != "" {
		return n.org
	}
	if o, err := net.Org(defaultOrg); defaultOrg != "" && err == nil && len(o.Identities) > 0 {
		return defaultOrg
	}
	for _, o := range net.Orgs {
		if len(o.Identities) > 0 {
			return o.Name
		}
	}
	return "" // the first org, whose missing identity Connect reports
}

// trusteeLedger is the channel of the network file as a trustee reads it:
// a peer of every org in the file, each reached over TLS pinned to that
// org's CA and signing as --identity of defaultOrg (or --org). close
// closes every connection.
func (n *netFlags) trusteeLedger(defaultOrg string) (l *trustee.Ledger, close func(), err error) {
	net, err := gateway.LoadNetwork(n.network)
	if err != nil {
		return nil, nil, err
	}
	var clients []*ballotclient.Client
	close = func() {
		for _, c := range clients {
			c.Conn.Close()
		}
	}
	for _, o := range net.Orgs {
		conn, err := gateway.Connect(net, gateway.Options{Org: n.orgOr(net, defaultOrg), PeerOrg: o.MSPID,
			Identity: n.identity, MaxAttempts: n.maxAttempts})
		if err != nil {
			close()
			return nil, nil, fmt.Errorf("connecting to %s's peer: %w", o.MSPID, err)
		}
		clients = append(clients, ballotclient.New(conn))
	}
	if l, err = trustee.NewLedger(net.Channel, clients...); err != nil {
		close()
		return nil, nil, err
	}
	return l, close, nil
}

// eaFlags locate the election authority's token key.
type eaFlags struct {
	keyFile                   string
	module, token, pin, label string
	pinFile                   string
	pseudKeyFile              string
}

func (e *eaFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&e.keyFile, "ea-key", "", "EA token key, PEM file (or use the --pkcs11-* flags)")
	fs.StringVar(&e.module, "pkcs11-module", "", "PKCS#11 library holding the EA key, e.g. /usr/lib/softhsm/libsofthsm2.so")
	fs.StringVar(&e.token, "pkcs11-token", "", "PKCS#11 token label")
	e.registerPIN(fs)
	fs.StringVar(&e.label, "pkcs11-label", "fabvote-ea", "PKCS#11 key label")
	fs.StringVar(&e.pseudKeyFile, "pseudonym-key", "", "the authority's pseudonym key (default: pseudonym.key next to --ea-key)")
}

// minter opens the EA key and the pseudonym key and returns the election's
// token minter (it refuses more than the manifest's maxVoters tokens).
func (e *eaFlags) minter(m *election.Manifest) (*election.Minter, func(), error) {
	signer, closeSigner, err := e.signer()
	if err != nil {
		return nil, nil, err
	}
	mt, err := e.newMinter(signer, m)
	if err != nil {
		closeSigner()
		return nil, nil, err
	}
	return mt, closeSigner, nil
}

func (e *eaFlags) newMinter(signer crypto.Signer, m *election.Manifest) (*election.Minter, error) {
	if err := checkSignerMatches(signer, m); err != nil {
		return nil, err
	}
	path := e.pseudKeyFile
	if path == "" {
		if e.keyFile == "" {
			return nil, cli.Usagef("--pseudonym-key is required with a PKCS#11 EA key")
		}
		path = filepath.Join(filepath.Dir(e.keyFile), "pseudonym.key")
	}
	key, err := easigner.LoadPseudonymKey(path)
	if err != nil {
		return nil, err
	}
	p, err := election.Prepare(m)
	if err != nil {
		return nil, err
	}
	mt, err := election.NewMinter(nil, p, signer, key)
	if err != nil {
		return nil, err
	}
	// Every issuing command finds the pseudonym key, so the store beside it
	// is the one bound of maxVoters for the election.
	mt.BindIssued(&registrar.IssuedLog{Path: registrar.IssuedLogPath(path, m.ElectionID), ElectionID: m.ElectionID,
		Commitment: m.PseudonymKeyCommitment})
	return mt, nil
}

func (e *eaFlags) registerPIN(fs *pflag.FlagSet) {
	fs.StringVar(&e.pin, "pkcs11-pin", "", "PKCS#11 user PIN (default: $FABVOTE_PKCS11_PIN; prefer --pkcs11-pin-file)")
	fs.StringVar(&e.pinFile, "pkcs11-pin-file", "", "read the PKCS#11 user PIN from the first line of this file (- for standard input)")
}

func (e *eaFlags) pkcs11() bool { return e.module != "" }

func (e *eaFlags) config() (easigner.PKCS11Config, error) {
	pin, err := readSecret("pkcs11-pin", e.pin, "pkcs11-pin-file", e.pinFile, "FABVOTE_PKCS11_PIN")
	return easigner.PKCS11Config{Module: e.module, Token: e.token, PIN: pin, KeyLabel: e.label}, err
}

// signer opens the EA key; close releases it.
func (e *eaFlags) signer() (s crypto.Signer, closeFn func(), err error) {
	switch {
	case e.pkcs11() && e.keyFile != "":
		return nil, nil, cli.Usagef("give either --ea-key or --pkcs11-module, not both")
	case e.pkcs11():
		cfg, err := e.config()
		if err != nil {
			return nil, nil, err
		}
		ps, err := easigner.OpenPKCS11(cfg)
		if err != nil {
			return nil, nil, err
		}
		return ps, func() { ps.Close() }, nil
	case e.keyFile != "":
		k, err := easigner.LoadPEM(e.keyFile)
		if err != nil {
			return nil, nil, err
		}
		return k, func() {}, nil
	}
	return nil, nil, cli.Usagef("the EA key is required: --ea-key FILE or --pkcs11-module/--pkcs11-token/--pkcs11-label")
}

// checkSignerMatches ensures the EA key is the manifest's token key.
func checkSignerMatches(s crypto.Signer, m *election.Manifest) error {
	der, err := easigner.PublicKeyDER(s)
	if err != nil {
		return err
	}
	if string(der) != string(m.TokenKey) {
		return fmt.Errorf("the EA key is not the token key of election %q (wrong --ea-key or PKCS#11 label?)", m.ElectionID)
	}
	return nil
}

func loadManifest(path string) (*election.Manifest, []byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("--manifest: %w", err)
	}
	m, err := election.ParseManifest(data)
	if err != nil {
		return nil, nil, fmt.Errorf("--manifest %s: %w", path, err)
	}
	return m, data, nil
}

// parseTime accepts RFC 3339, "now", or a signed duration from now ("+10m", "-1h").
func parseTime(flagName, s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "now":
		return now.UTC().Truncate(time.Second), nil
	case strings.HasPrefix(s, "+") || strings.HasPrefix(s, "-"):
		d, err := time.ParseDuration(s)
		if err != nil {
			return time.Time{}, cli.Usagef("--%s %q: not a duration like +10m or -1h", flagName, s)
		}
		return now.Add(d).UTC().Truncate(time.Second), nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, cli.Usagef("--%s %q: want RFC 3339 (2026-11-22T08:00:00Z), now, or +DURATION", flagName, s)
	}
	return t.UTC(), nil
}

// signalContext is cancelled on SIGINT or SIGTERM.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}
