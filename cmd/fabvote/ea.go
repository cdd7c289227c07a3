package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/spf13/pflag"
	"golang.org/x/time/rate"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/atomicfile"
	"github.com/fabvote/fabvote/internal/boothserve"
	"github.com/fabvote/fabvote/internal/cli"
	"github.com/fabvote/fabvote/internal/easigner"
	"github.com/fabvote/fabvote/internal/opsserve"
	"github.com/fabvote/fabvote/internal/registrar"
	"github.com/fabvote/fabvote/network/portplan"
	"github.com/fabvote/fabvote/network/portprobe"
)

func cmdEARoll(fs *pflag.FlagSet) func() error {
	n := fs.Int("voters", 0, "number of voters")
	prefix := fs.String("prefix", "voter-", "voter id prefix (ids are PREFIX000001, …)")
	styles := fs.StringSlice("styles", nil, "ballot style ids, comma-separated: voters get them in turn (an election of several styles needs each voter's)")
	out := fs.String("out", "", "roll file to write (mode 0600: it holds the one-time codes)")
	return func() error {
		if err := cli.Required(fs, "out"); err != nil {
			return err
		}
		if *n <= 0 {
			return cli.Usagef("--voters %d: want at least 1", *n)
		}
		// A roll's one-time codes may already be in voters' hands: a new
		// roll never replaces one.
		if _, err := os.Lstat(*out); err == nil {
			return fmt.Errorf("--out %s exists: its one-time codes may already be handed out; write the new roll elsewhere, or move the old one away yourself", *out)
		}
		if err := registrar.WriteNewRoll(*out, *n, *prefix, *styles); err != nil {
			return err
		}
		fmt.Printf("voter roll of %d voters with one-time codes written to %s\n", *n, *out)
		return nil
	}
}

func cmdEATLSCert(fs *pflag.FlagSet) func() error {
	var f registrar.TLSFiles
	fs.StringVar(&f.CACert, "ca-cert", "", "CA certificate voters trust (register --ca-cert); made with --ca-key if neither exists")
	fs.StringVar(&f.CAKey, "ca-key", "", "CA private key (0600); keep it offline between renewals")
	fs.StringVar(&f.Cert, "tls-cert", "", "server certificate to write (a leaf signed by the CA; ea serve --tls-cert)")
	fs.StringVar(&f.Key, "tls-key", "", "server private key to write (0600; ea serve --tls-key)")
	cli.Alias(fs, "tls-cert", "cert")
	cli.Alias(fs, "tls-key", "key")
	hosts := fs.String("hosts", "127.0.0.1,localhost", "comma-separated IP addresses and DNS names")
	days := fs.Int("days", 30, "validity of the server certificate in days")
	return func() error {
		if err := cli.Required(fs, "ca-cert", "ca-key", "tls-cert", "tls-key"); err != nil {
			return err
		}
		if *days < 1 {
			return cli.Usagef("--days %d: want at least 1", *days)
		}
		return writeTLSCert(f, splitList(*hosts), *days)
	}
}

// writeTLSCert writes the server certificate of f, and its CA if new.
func writeTLSCert(f registrar.TLSFiles, hosts []string, days int) error {
	newCA, err := registrar.WriteTLS(f, hosts, time.Duration(days)*24*time.Hour)
	if err != nil {
		return err
	}
	if newCA {
		fmt.Printf("new TLS CA %s (key %s) written; give voters the CA certificate\n", f.CACert, f.CAKey)
	}
	fmt.Printf("TLS server certificate %s and key %s written, signed by the CA %s\n", f.Cert, f.Key, f.CACert)
	return nil
}

// stateFlags locate the registration state and what it is bound to.
type stateFlags struct {
	manifest, roll, state string
}

func (s *stateFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&s.manifest, "manifest", "", "the election's manifest.json")
	fs.StringVar(&s.roll, "roll", "", "voter roll (voter_id,code lines)")
	fs.StringVar(&s.state, "state", "", "registration state database (default: ROLL.state.db)")
}

// load reads the manifest and the roll and binds them: the roll's codes must
// be strong and the roll no larger than the manifest's maxVoters.
func (s *stateFlags) load() (*election.Manifest, *registrar.Roll, registrar.Binding, error) {
	if s.state == "" {
		s.state = s.roll + ".state.db"
	}
	m, raw, err := loadManifest(s.manifest)
	if err != nil {
		return nil, nil, registrar.Binding{}, err
	}
	r, err := registrar.LoadRoll(s.roll)
	if err != nil {
		return nil, nil, registrar.Binding{}, err
	}
	b, err := registrar.NewBinding(m.ElectionID, raw, m.MaxVoters, r)
	if err != nil {
		return nil, nil, registrar.Binding{}, fmt.Errorf("--roll %s: %w", s.roll, err)
	}
	return m, r, b, nil
}

// initState creates a new state; an older JSON state beside the roll means
// codes were used already, so it refuses rather than forget them.
func (s *stateFlags) initState(b registrar.Binding) error {
	if old := s.roll + ".used.json"; fileExists(old) {
		return fmt.Errorf("%s holds registrations of an older fabvote; a new state would make those codes work again", old)
	}
	if err := registrar.InitStore(s.state, b); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "new registration state %s for election %q and this roll\n", s.state, b.ElectionID)
	return nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func cmdEAInitState(fs *pflag.FlagSet) func() error {
	var sf stateFlags
	sf.register(fs)
	return func() error {
		if err := cli.Required(fs, "manifest", "roll"); err != nil {
			return err
		}
		_, _, b, err := sf.load()
		if err != nil {
			return err
		}
		return sf.initState(b)
	}
}

// limitFlags set registrar.Limits.
func limitFlags(fs *pflag.FlagSet) *registrar.Limits {
	l := registrar.DefaultLimits()
	fs.Var((*rateValue)(&l.IPRate), "ip-rate", fmt.Sprintf("requests per second from one client address (default %v)", l.IPRate))
	fs.IntVar(&l.IPBurst, "ip-burst", l.IPBurst, "requests at once from one client address")
	fs.Var((*rateValue)(&l.VoterRate), "voter-rate", fmt.Sprintf("requests per second for one voter id from one address (default %v)", l.VoterRate))
	fs.IntVar(&l.VoterBurst, "voter-burst", l.VoterBurst, "requests at once for one voter id")
	fs.IntVar(&l.IPFailures, "ip-failures", l.IPFailures, "failures from one address within --failure-window before it is locked out")
	fs.IntVar(&l.VoterFailures, "voter-failures", l.VoterFailures, "failures for one voter id from one address within --failure-window before it is locked out there")
	fs.DurationVar(&l.FailureWindow, "failure-window", l.FailureWindow, "window in which failures are counted")
	fs.DurationVar(&l.Lockout, "lockout", l.Lockout, "how long a locked-out address or voter id is refused")
	return &l
}

// rateValue is a flag of a positive number of requests per second. Its
// default is in the flag's usage, so String is empty like the value of
// Go's flag.Func, which the flag used to be.
type rateValue rate.Limit

func (r *rateValue) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v <= 0 {
		return fmt.Errorf("want a positive number of requests per second")
	}
	*r = rateValue(v)
	return nil
}

func (r *rateValue) String() string { return "" }
func (r *rateValue) Type() string   { return "float" }

// serveOptions are the flags of `ea serve`.
type serveOptions struct {
	addr      string
	opsAddr   string
	state     stateFlags
	initState bool
	cert, key string
	limits    *registrar.Limits
	ea        eaFlags
	booth     boothFlags
}

// boothFlags are the flags of `ea serve` that serve the voter's booth.
type boothFlags struct {
	dir, box, board string
}

func (b *boothFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&b.dir, "booth", "", "serve the voter's booth from this directory (make booth: build/booth) under /booth/; its digest must be the manifest's boothDigest")
	fs.StringVar(&b.box, "box", "", "with --booth: the ballot box the booth sends ballots to (https://HOST:PORT of fabvote box serve)")
	fs.StringVar(&b.board, "board", "", "with --booth: the bulletin board the booth links to (http(s) URL of the fabvote record site)")
}

// handler is the booth's handler for m, or nil without --booth.
func (b *boothFlags) handler(m *election.Manifest) (http.Handler, error) {
	if b.dir == "" {
		if b.box != "" || b.board != "" {
			return nil, cli.Usagef("--box and --board go with --booth")
		}
		return nil, nil
	}
	if b.box == "" || b.board == "" {
		return nil, cli.Usagef("--booth needs --box and --board")
	}
	return boothserve.New(b.dir, m.BoothDigest, boothserve.Config{ElectionID: m.ElectionID, BoxURL: b.box, BoardURL: b.board})
}

func cmdEAServe(fs *pflag.FlagSet) func() error {
	var o serveOptions
	fs.StringVar(&o.addr, "addr", portplan.Registrar(portplan.MustBase("default")), "listen address (the port plan's, network/portplan)")
	fs.StringVar(&o.opsAddr, "ops-addr", "", "operations endpoint (plain HTTP /metrics and /healthz) listen address; empty: none")
	o.state.register(fs)
	fs.BoolVar(&o.initState, "init-state", false, "create a new registration state first (a new election only; refused if the state exists)")
	fs.StringVar(&o.cert, "tls-cert", "", "TLS server certificate (PEM; a leaf, see fabvote ea tls-cert)")
	fs.StringVar(&o.key, "tls-key", "", "TLS private key (PEM)")
	o.limits = limitFlags(fs)
	o.ea.register(fs)
	o.booth.register(fs)
	return func() error {
		if err := cli.Required(fs, "manifest", "roll", "tls-cert", "tls-key"); err != nil {
			return err
		}
		return o.serve()
	}
}

// serve opens everything the service needs, the listener before the
// state, and runs the service.
func (o *serveOptions) serve() error {
	guard, err := registrar.NewGuard(*o.limits)
	if err != nil {
		return cli.Usagef("%v", err)
	}
	tlsConf, err := registrar.ServerTLS(o.cert, o.key)
	if err != nil {
		return err
	}
	m, roll, b, err := o.state.load()
	if err != nil {
		return err
	}
	boothHandler, err := o.booth.handler(m)
	if err != nil {
		return err
	}
	mint, closeSigner, err := o.ea.minter(m)
	if err != nil {
		return err
	}
	defer closeSigner()
	if err := assignRollStyles(mint, m, roll); err != nil {
		return err
	}
	// Listen before making a state, so a busy port leaves nothing behind.
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return listenError("--addr", o.addr, err)
	}
	defer ln.Close()
	var opsLn net.Listener
	if o.opsAddr != "" {
		if opsLn, err = opsserve.Listen(o.opsAddr); err != nil {
			return listenError("--ops-addr", o.opsAddr, err)
		}
		defer opsLn.Close()
	}
	if o.initState {
		if err := o.state.initState(b); err != nil {
			return err
		}
	}
	st, err := registrar.OpenStore(o.state.state, b)
	if err != nil {
		return err
	}
	defer st.Close()
	h := &registrar.Server{ElectionID: m.ElectionID, Mint: mint.MintCancelable, Roll: roll, Store: st, Guard: guard}
	return serveRegistration(ln, opsLn, tlsConf, h, boothHandler, roll.Len())
}

// listenError says which flag's address of `ea serve` could not be bound
// and, when another process holds it, which one.
func listenError(flag, addr string, err error) error {
	return bindError(flag, addr, err, " (make demo: EA_ADDR, EA_OPS_ADDR or BASE_PORT)")
}

// bindError is listenError for any service, with hint after its advice.
func bindError(flag, addr string, err error, hint string) error {
	if !errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("%s: %w", flag, err)
	}
	by := "another process"
	if h, ok := portprobe.HolderOf(addr); ok {
		by = h.String()
	}
	return fmt.Errorf("%s %s is taken by %s: choose another %s%s", flag, addr, by, flag, hint)
}

// serveRegistration runs the HTTPS service on ln until SIGINT or SIGTERM.
// With opsLn, it also serves the operations endpoint there; with a booth
// handler, the booth under /booth/.
func serveRegistration(ln, opsLn net.Listener, tlsConf *tls.Config, h *registrar.Server, booth http.Handler, rollLen int) error {
	logger := log.New(os.Stderr, "ea serve: ", log.LstdFlags|log.LUTC)
	h.Log = logger
	ctx, cancel := signalContext()
	defer cancel()
	var handler http.Handler = h
	if opsLn != nil {
		opsCtx, stopOps := context.WithCancel(ctx)
		var waitOps func()
		handler, waitOps = registrationOps(opsCtx, opsLn, ln, h, rollLen, logger)
		defer waitOps() // runs before the caller closes the state
		defer stopOps()
	}
	if booth != nil {
		handler = boothserve.With(handler, booth)
		logger.Printf("serving the booth at https://%s%s", ln.Addr(), boothserve.Prefix)
	}
	srv := &http.Server{
		Handler:           handler,
		TLSConfig:         tlsConf,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		ErrorLog:          logger, // TLS handshake and connection errors, under the same prefix
	}
	go func() {
		<-ctx.Done()
		sctx, c := context.WithTimeout(context.Background(), 5*time.Second)
		defer c()
		srv.Shutdown(sctx)
	}()
	logger.Printf("registering voters for election %q at https://%s%s (%d on the roll, %d already registered)", h.ElectionID, ln.Addr(), registrar.Path, rollLen, h.Store.Count())
	if err := srv.ServeTLS(ln, "", ""); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	logger.Printf("stopped; %d voters registered", h.Store.Count())
	return nil
}

// loadOrCreateVoterKey reads a voter key, or creates one (0600) if path does not exist.
func loadOrCreateVoterKey(path string) (*ecdsa.PrivateKey, bool, error) {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		k, err := easigner.GeneratePEM(path)
		return k, true, err
	}
	k, err := easigner.LoadPEM(path)
	if err != nil {
		return nil, false, fmt.Errorf("--voter-key: %w", err)
	}
	return k, false, nil
}

// registerOptions are the flags of `register`.
type registerOptions struct {
	url, ca, manifest string
	voterID           string
	code, codeFile    string
	keyPath, out      string
	offline           bool
	roll              string
	voters            int
	ea                eaFlags
}

func cmdRegister(fs *pflag.FlagSet) func() error {
	var o registerOptions
	fs.StringVar(&o.url, "url", "", "registration service URL (https://…)")
	fs.StringVar(&o.ca, "ca-cert", "", "CA certificate that signed the service's certificate")
	fs.StringVar(&o.manifest, "manifest", "", "the election's manifest.json")
	fs.StringVar(&o.voterID, "voter-id", "", "your voter id on the roll")
	fs.StringVar(&o.code, "code", "", "your one-time code (default: $FABVOTE_CODE; prefer --code-file)")
	fs.StringVar(&o.codeFile, "code-file", "", "read your one-time code from the first line of this file (- for standard input)")
	fs.StringVar(&o.keyPath, "voter-key", "", "your voter key (PEM; created if it does not exist)")
	cli.Alias(fs, "voter-key", "key")
	fs.StringVar(&o.out, "out", "", "token file to write (offline: voters file)")
	fs.BoolVar(&o.offline, "offline", false, "bulk mode for benchmarks: generate voter keys and sign their tokens locally with the EA key")
	fs.StringVar(&o.roll, "roll", "", "offline: take voter ids from this roll")
	fs.IntVar(&o.voters, "voters", 0, "offline: number of voters (ids voter-000001, …) when no --roll")
	o.ea.register(fs)
	return func() error { return o.run(fs) }
}

// run registers offline, or online once the online flags are complete.
func (o *registerOptions) run(fs *pflag.FlagSet) error {
	if err := cli.Required(fs, "manifest", "out"); err != nil {
		return err
	}
	m, _, err := loadManifest(o.manifest)
	if err != nil {
		return err
	}
	if o.offline {
		return registerOffline(m, &o.ea, o.roll, o.voters, o.out)
	}
	if err := cli.Required(fs, "url", "voter-id", "voter-key"); err != nil {
		return err
	}
	if o.code, err = readSecret("code", o.code, "code-file", o.codeFile, "FABVOTE_CODE"); err != nil {
		return err
	}
	if o.code == "" {
		return cli.Usagef("--code-file (or --code, or $FABVOTE_CODE) is required")
	}
	return o.registerOnline(m)
}

// registerOnline registers the voter key (made if new) with the service
// and writes the token once it verifies under the manifest's token key.
func (o *registerOptions) registerOnline(m *election.Manifest) error {
	key, created, err := loadOrCreateVoterKey(o.keyPath)
	if err != nil {
		return err
	}
	if created {
		fmt.Fprintf(os.Stderr, "created a new voter key %s (keep it: it signs your ballot)\n", o.keyPath)
	}
	pub, err := key.PublicKey.Bytes()
	if err != nil {
		return err
	}
	c, err := registrar.NewClient(o.url, o.ca)
	if err != nil {
		return err
	}
	ctx, cancel := signalContext()
	defer cancel()
	tok, err := c.Register(ctx, &registrar.Request{ElectionID: m.ElectionID, VoterID: o.voterID, Code: o.code, VoterPub: pub})
	if err != nil {
		return err
	}
	p, err := election.Prepare(m)
	if err != nil {
		return err
	}
	if err := p.VerifyToken(pub, tok.Token); err != nil {
		return fmt.Errorf("the service returned a token that does not verify under the manifest's token key: %w", err)
	}
	if err := writeJSON(o.out, tok, 0o600); err != nil {
		return err
	}
	fmt.Printf("voter %s registered for election %q; token written to %s\n", o.voterID, m.ElectionID, o.out)
	return nil
}

// offlineIDs is the voters of an offline registration, from the roll or
// numbered 1..n, with their ballot styles assigned to mint.
func offlineIDs(mint *election.Minter, m *election.Manifest, rollPath string, n int) ([]string, error) {
	var ids []string
	switch {
	case rollPath != "" && n != 0:
		return nil, cli.Usagef("give --roll or --voters, not both")
	case rollPath != "":
		r, err := registrar.LoadRoll(rollPath)
		if err != nil {
			return nil, err
		}
		if err := assignRollStyles(mint, m, r); err != nil {
			return nil, err
		}
		return r.IDs(), nil
	case n > 0:
		for i := 1; i <= n; i++ {
			ids = append(ids, offlineVoterID(i))
		}
		return ids, mint.AssignStyles(offlineStyles(m, ids))
	default:
		return nil, cli.Usagef("offline registration needs --roll or --voters N")
	}
}

// offlineVoterID is the roll id of the i-th voter registered offline with
// --voters N. Its prefix differs from `ea roll`'s, so offline voters and
// voters of a generated roll are distinct voters (distinct pseudonyms) in
// one election; two offline runs for one election give the same ids, and so
// the same voters.
func offlineVoterID(i int) string { return fmt.Sprintf("offline-voter-%06d", i) }

// assignRollStyles gives the roll's voters their ballot styles. In an
// election of several styles, every voter of the roll needs one.
func assignRollStyles(mint *election.Minter, m *election.Manifest, roll *registrar.Roll) error {
	styles := roll.Styles()
	if len(m.Styles) > 1 {
		for _, id := range roll.IDs() {
			if _, ok := styles[id]; !ok {
				return fmt.Errorf("voter roll: voter %q has no ballot style, and election %q has %d (give each voter's style in the roll's third column)", id, m.ElectionID, len(m.Styles))
			}
		}
	}
	return mint.AssignStyles(styles)
}

// registerOffline writes a voters file: one JSON line per voter with the
// voter's private key (PKCS#8, base64) and token. It is for benchmarks and
// demos, where the EA plays every voter; the file is secret (0600).
func registerOffline(m *election.Manifest, ea *eaFlags, rollPath string, n int, out string) error {
	mint, closeSigner, err := ea.minter(m)
	if err != nil {
		return err
	}
	defer closeSigner()
	ids, err := offlineIDs(mint, m, rollPath, n)
	if err != nil {
		return err
	}
	if uint64(len(ids)) > m.MaxVoters {
		return fmt.Errorf("%d voters, but election %q allows at most maxVoters = %d tokens", len(ids), m.ElectionID, m.MaxVoters)
	}
	// All of them against the election's bound at once, before any file.
	if err := mint.Admit(ids); err != nil {
		return err
	}
	f, err := atomicfile.Create(out, 0o600)
	if err != nil {
		return err
	}
	defer f.Abort()
	w := newVoterWriter(f)
	for _, id := range ids {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return err
		}
		pub, _ := k.PublicKey.Bytes()
		tok, err := mint.Mint(id, pub)
		if err != nil {
			return fmt.Errorf("voter %s: %w", id, err)
		}
		if err := w.write(id, k, tok); err != nil {
			return err
		}
	}
	if err := w.flush(); err != nil {
		return err
	}
	if err := f.Commit(); err != nil {
		return err
	}
	fmt.Printf("offline registration: %d voters with keys and EA tokens written to %s (secret; no HTTPS service involved)\n", len(ids), out)
	return nil
}
