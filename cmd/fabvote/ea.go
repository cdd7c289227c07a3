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
	"time"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/atomicfile"
	"github.com/fabvote/fabvote/internal/easigner"
	"github.com/fabvote/fabvote/internal/registrar"
)

func cmdEARoll(args []string) error {
	fs := newFlags("ea roll", "--voters N --out roll.csv")
	n := fs.Int("voters", 0, "number of voters")
	prefix := fs.String("prefix", "voter-", "voter id prefix (ids are PREFIX000001, …)")
	out := fs.String("out", "", "roll file to write (mode 0600: it holds the one-time codes)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "out"); err != nil {
		return err
	}
	if *n <= 0 {
		return usagef("--voters %d: want at least 1", *n)
	}
	if err := registrar.WriteNewRoll(*out, *n, *prefix); err != nil {
		return err
	}
	fmt.Printf("voter roll of %d voters with one-time codes written to %s\n", *n, *out)
	return nil
}

func cmdEATLSCert(args []string) error {
	fs := newFlags("ea tls-cert", "--cert FILE --key FILE [--hosts 127.0.0.1,localhost]")
	cert := fs.String("cert", "", "certificate to write (give it to voters: register --ca-cert)")
	key := fs.String("key", "", "private key to write (0600)")
	hosts := fs.String("hosts", "127.0.0.1,localhost", "comma-separated IP addresses and DNS names")
	days := fs.Int("days", 30, "validity in days")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "cert", "key"); err != nil {
		return err
	}
	if err := registrar.WriteSelfSignedTLS(*cert, *key, splitList(*hosts), time.Duration(*days)*24*time.Hour); err != nil {
		return err
	}
	fmt.Printf("self-signed TLS certificate %s and key %s written\n", *cert, *key)
	return nil
}

func cmdEAServe(args []string) error {
	fs := newFlags("ea serve", "--manifest FILE --roll roll.csv --tls-cert FILE --tls-key FILE (--ea-key FILE | --pkcs11-…) [--addr 127.0.0.1:7443]")
	addr := fs.String("addr", "127.0.0.1:7443", "listen address")
	manifest := fs.String("manifest", "", "the election's manifest.json")
	roll := fs.String("roll", "", "voter roll (voter_id,code lines)")
	state := fs.String("state", "", "used-code record (default: ROLL.used.json)")
	cert := fs.String("tls-cert", "", "TLS certificate (PEM)")
	key := fs.String("tls-key", "", "TLS private key (PEM)")
	var ea eaFlags
	ea.register(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "manifest", "roll", "tls-cert", "tls-key"); err != nil {
		return err
	}
	if *state == "" {
		*state = *roll + ".used.json"
	}
	m, _, err := loadManifest(*manifest)
	if err != nil {
		return err
	}
	mint, closeSigner, err := ea.minter(m)
	if err != nil {
		return err
	}
	defer closeSigner()
	r, err := registrar.LoadRoll(*roll)
	if err != nil {
		return err
	}
	st, err := registrar.OpenState(*state, m.ElectionID)
	if err != nil {
		return err
	}
	pair, err := tls.LoadX509KeyPair(*cert, *key)
	if err != nil {
		return fmt.Errorf("--tls-cert/--tls-key: %w", err)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("--addr: %w", err)
	}
	logger := log.New(os.Stderr, "ea serve: ", log.LstdFlags|log.LUTC)
	srv := &http.Server{
		Handler:           &registrar.Server{ElectionID: m.ElectionID, Mint: mint.Mint, Roll: r, State: st, Log: logger},
		TLSConfig:         &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12},
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		ErrorLog:          logger, // TLS handshake and connection errors, under the same prefix
	}
	ctx, cancel := signalContext()
	defer cancel()
	go func() {
		<-ctx.Done()
		sctx, c := context.WithTimeout(context.Background(), 5*time.Second)
		defer c()
		srv.Shutdown(sctx)
	}()
	logger.Printf("registering voters for election %q at https://%s%s (%d on the roll, %d already registered)", m.ElectionID, ln.Addr(), registrar.Path, r.Len(), st.Count())
	if err := srv.ServeTLS(ln, "", ""); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	logger.Printf("stopped; %d voters registered", st.Count())
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
		return nil, false, fmt.Errorf("--key: %w", err)
	}
	return k, false, nil
}

func cmdRegister(args []string) error {
	fs := newFlags("register", "--url https://HOST:PORT --ca-cert FILE --manifest FILE --voter-id ID --code CODE --key voter.key --out token.json\n       fabvote register --offline --manifest FILE (--ea-key FILE | --pkcs11-…) (--roll roll.csv | --voters N) --out voters.jsonl")
	url := fs.String("url", "", "registration service URL (https://…)")
	ca := fs.String("ca-cert", "", "CA certificate of the service (its self-signed certificate)")
	manifest := fs.String("manifest", "", "the election's manifest.json")
	voterID := fs.String("voter-id", "", "your voter id on the roll")
	code := fs.String("code", "", "your one-time code (default: $FABVOTE_CODE)")
	keyPath := fs.String("key", "", "your voter key (PEM; created if it does not exist)")
	out := fs.String("out", "", "token file to write (offline: voters file)")
	offline := fs.Bool("offline", false, "bulk mode for benchmarks: generate voter keys and sign their tokens locally with the EA key")
	roll := fs.String("roll", "", "offline: take voter ids from this roll")
	voters := fs.Int("voters", 0, "offline: number of voters (ids voter-000001, …) when no --roll")
	var ea eaFlags
	ea.register(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "manifest", "out"); err != nil {
		return err
	}
	m, _, err := loadManifest(*manifest)
	if err != nil {
		return err
	}
	if *offline {
		return registerOffline(m, &ea, *roll, *voters, *out)
	}
	if *code == "" {
		*code = os.Getenv("FABVOTE_CODE")
	}
	if err := required(fs, "url", "voter-id", "key"); err != nil {
		return err
	}
	if *code == "" {
		return usagef("--code (or $FABVOTE_CODE) is required")
	}
	key, created, err := loadOrCreateVoterKey(*keyPath)
	if err != nil {
		return err
	}
	if created {
		fmt.Fprintf(os.Stderr, "created a new voter key %s (keep it: it signs your ballot)\n", *keyPath)
	}
	pub, err := key.PublicKey.Bytes()
	if err != nil {
		return err
	}
	c, err := registrar.NewClient(*url, *ca)
	if err != nil {
		return err
	}
	ctx, cancel := signalContext()
	defer cancel()
	tok, err := c.Register(ctx, &registrar.Request{ElectionID: m.ElectionID, VoterID: *voterID, Code: *code, VoterPub: pub})
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
	if err := writeJSON(*out, tok, 0o600); err != nil {
		return err
	}
	fmt.Printf("voter %s registered for election %q; token written to %s\n", *voterID, m.ElectionID, *out)
	return nil
}

// offlineVoterID is the roll id of the i-th voter registered offline with
// --voters N. Its prefix differs from `ea roll`'s, so offline voters and
// voters of a generated roll are distinct voters (distinct pseudonyms) in
// one election; two offline runs for one election give the same ids, and so
// the same voters.
func offlineVoterID(i int) string { return fmt.Sprintf("offline-voter-%06d", i) }

// registerOffline writes a voters file: one JSON line per voter with the
// voter's private key (PKCS#8, base64) and token. It is for benchmarks and
// demos, where the EA plays every voter; the file is secret (0600).
func registerOffline(m *election.Manifest, ea *eaFlags, rollPath string, n int, out string) error {
	mint, closeSigner, err := ea.minter(m)
	if err != nil {
		return err
	}
	defer closeSigner()
	var ids []string
	switch {
	case rollPath != "" && n != 0:
		return usagef("give --roll or --voters, not both")
	case rollPath != "":
		r, err := registrar.LoadRoll(rollPath)
		if err != nil {
			return err
		}
		ids = r.IDs()
	case n > 0:
		for i := 1; i <= n; i++ {
			ids = append(ids, offlineVoterID(i))
		}
	default:
		return usagef("offline registration needs --roll or --voters N")
	}
	if uint64(len(ids)) > m.MaxVoters {
		return fmt.Errorf("%d voters, but election %q allows at most maxVoters = %d tokens", len(ids), m.ElectionID, m.MaxVoters)
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
