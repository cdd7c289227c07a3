package main

import (
	"context"
	"crypto"
	"crypto/rand"
	"errors"
	"fmt"
	"math/bits"
	"os"
	"path/filepath"
	"strings"
	"time"

	"filippo.io/age"

	"github.com/fabvote/fabvote/crypto/paillier"
	"github.com/fabvote/fabvote/crypto/paillier/threshold"
	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/atomicfile"
	"github.com/fabvote/fabvote/internal/easigner"
	"github.com/fabvote/fabvote/internal/sharebox"
)

func cmdElectionCreate(args []string) error {
	fs := newFlags("election create", "--id ID --candidates A,B,… --max-voters N --start T --end T [--trustees N --threshold K --trustee-recipients FILE] --out DIR")
	id := fs.String("id", "", "election id (1..64 characters of [A-Za-z0-9._-])")
	title := fs.String("title", "", "title (default: the id)")
	cands := fs.String("candidates", "", "comma-separated candidate names")
	maxVoters := fs.Uint64("max-voters", 0, "largest possible number of ballots (sets the vote encoding)")
	start := fs.String("start", "now", "window start: RFC 3339, now, or +DURATION (can be changed by `election open`)")
	end := fs.String("end", "+1h", "window end (exclusive): RFC 3339 or +DURATION")
	trustees := fs.Int("trustees", 0, "number of trustees holding key shares (0: a single Paillier key file)")
	k := fs.Int("threshold", 0, "trustees needed to decrypt (with --trustees)")
	recipientsFile := fs.String("trustee-recipients", "", "with --trustees: one age recipient per trustee, in trustee order (from `trustee keygen`); share i is sealed to line i")
	bitsN := fs.Int("bits", 2048, "Paillier modulus size: 2048, 3072 or 4096")
	challenge := fs.Int("challenge-bits", election.DefaultChallenge, "validity-proof challenge length")
	authority := fs.String("authority-msp", "EAMSP", "MSP id of the election authority (opens the election, publishes results)")
	trusteeMSPs := fs.String("trustee-msps", "", "comma-separated MSP ids that may also publish the result")
	channel := fs.String("channel", "fabvote", "the Fabric channel the election runs on (part of its identity: the contract opens it there only)")
	skew := fs.Duration("max-clock-skew", election.DefaultClockSkewSeconds*time.Second, "largest clock difference between two honest peers; a result is accepted from end + this (whole seconds)")
	out := fs.String("out", "", "output directory (created; must not hold a manifest already)")
	force := fs.Bool("force", false, "overwrite an existing election in --out")
	var ea eaFlags
	fs.StringVar(&ea.module, "pkcs11-module", "", "create the EA key in this PKCS#11 library's token instead of DIR/ea.key")
	fs.StringVar(&ea.token, "pkcs11-token", "", "PKCS#11 token label")
	ea.registerPIN(fs)
	fs.StringVar(&ea.label, "pkcs11-label", "fabvote-ea", "PKCS#11 key label (must not exist yet)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "id", "candidates", "max-voters", "out"); err != nil {
		return err
	}
	candidates := splitList(*cands)
	if *trustees < 0 || (*trustees > 0 && (*k < 1 || *k > *trustees)) {
		return usagef("--threshold %d with --trustees %d: want 1 <= threshold <= trustees", *k, *trustees)
	}
	if *trustees == 0 && (*k != 0 || *recipientsFile != "") {
		return usagef("--threshold and --trustee-recipients need --trustees")
	}
	recipients, err := readRecipients(*recipientsFile, *trustees)
	if err != nil {
		return err
	}
	now := time.Now()
	st, err := parseTime("start", *start, now)
	if err != nil {
		return err
	}
	en, err := parseTime("end", *end, now)
	if err != nil {
		return err
	}
	if *title == "" {
		*title = *id
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	manifestPath := filepath.Join(*out, "manifest.json")
	if _, err := os.Stat(manifestPath); err == nil && !*force {
		return fmt.Errorf("--out %s already holds an election (manifest.json); use another directory or --force", *out)
	}
	if *skew%time.Second != 0 || *skew < election.MinClockSkewSeconds*time.Second || *skew > election.MaxClockSkewSeconds*time.Second {
		return usagef("--max-clock-skew %s: want whole seconds in %ds..%ds", *skew, election.MinClockSkewSeconds, election.MaxClockSkewSeconds)
	}
	m := &election.Manifest{
		Version:                election.ManifestVersion,
		ElectionID:             *id,
		Channel:                *channel,
		MaxClockSkewSeconds:    uint32(*skew / time.Second),
		Title:                  *title,
		Candidates:             candidates,
		EncodingBits:           uint(bits.Len64(*maxVoters)),
		MaxVoters:              *maxVoters,
		AuthorityMSP:           *authority,
		TrusteeMSPs:            splitList(*trusteeMSPs),
		Start:                  st,
		End:                    en,
		ChallengeBits:          *challenge,
		TokenKey:               []byte{0}, // placeholders for the early check below
		PaillierKey:            []byte{0},
		PseudonymKeyCommitment: make([]byte, election.PseudonymKeyCommitmentLen),
	}
	// Check everything cheap before spending a minute on primes.
	if err := m.Validate(); err != nil && !strings.Contains(err.Error(), "paillierKey") {
		return err
	}
	if !m.End.After(m.Start) {
		return usagef("--end %s is not after --start %s", m.End.Format(time.RFC3339), m.Start.Format(time.RFC3339))
	}
	if *challenge%8 != 0 || *challenge < election.MinChallengeBits || *challenge > election.MaxChallengeBits {
		return usagef("--challenge-bits %d: want a multiple of 8 in %d..%d", *challenge, election.MinChallengeBits, election.MaxChallengeBits)
	}
	if *bitsN != 2048 && *bitsN != 3072 && *bitsN != 4096 {
		return usagef("--bits %d: want 2048, 3072 or 4096", *bitsN)
	}

	var written []string
	// Every file is staged under a temporary name and moved into place only
	// once all are written: a failure leaves nothing of this election.
	stage := &staging{dir: *out}
	committed := false
	defer func() {
		if !committed {
			stage.abort()
		}
	}()
	// The EA key first: a PKCS#11 mistake should not cost a key generation.
	var signer crypto.Signer
	if ea.pkcs11() {
		cfg, err := ea.config()
		if err != nil {
			return err
		}
		ps, err := easigner.GeneratePKCS11(cfg)
		if err != nil {
			return err
		}
		defer ps.Close()
		signer = ps
		written = append(written, fmt.Sprintf("EA token key in PKCS#11 token %q, label %q", ea.token, ea.label))
	} else {
		p, err := stage.path("ea.key")
		if err != nil {
			return err
		}
		key, err := easigner.GeneratePEM(p)
		if err != nil {
			return err
		}
		signer = key
		written = append(written, stage.final("ea.key")+" (secret: the EA token key)")
	}
	line, err := writePseudonymKey(stage, m)
	if err != nil {
		return err
	}
	written = append(written, line)
	fmt.Fprintf(os.Stderr, "generating a %d-bit Paillier key", *bitsN)
	if *trustees > 0 {
		fmt.Fprintf(os.Stderr, " as %d-of-%d trustee shares (safe primes: this can take a minute)", *k, *trustees)
	}
	fmt.Fprintln(os.Stderr, "…")
	t0 := time.Now()
	if *trustees > 0 {
		pp, shares, err := threshold.Deal(rand.Reader, *bitsN, *k, *trustees)
		if err != nil {
			return fmt.Errorf("dealing trustee shares: %w", err)
		}
		if m.PaillierKey, err = pp.PublicKey.MarshalBinary(); err != nil {
			return err
		}
		if m.Threshold, err = pp.MarshalBinary(); err != nil {
			return err
		}
		paths, err := writeSealedShares(stage, shares, recipients)
		if err != nil {
			return err
		}
		written = append(written, paths...)
	} else {
		sk, err := paillier.GenerateKey(rand.Reader, *bitsN)
		if err != nil {
			return fmt.Errorf("generating the Paillier key: %w", err)
		}
		if m.PaillierKey, err = sk.Public().MarshalBinary(); err != nil {
			return err
		}
		p, err := stage.path("paillier.key")
		if err != nil {
			return err
		}
		if err := paillier.WritePrivateKeyFile(p, sk); err != nil {
			return fmt.Errorf("writing %s: %w", stage.final("paillier.key"), err)
		}
		written = append(written, stage.final("paillier.key")+" (secret: the decryption key)")
	}
	fmt.Fprintf(os.Stderr, "key ready in %s\n", time.Since(t0).Round(time.Millisecond))

	if m.TokenKey, err = easigner.PublicKeyDER(signer); err != nil {
		return err
	}
	data, err := m.Marshal()
	if err != nil {
		return err
	}
	staged, err := stage.path("manifest.json")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(staged, data, 0o644); err != nil {
		return err
	}
	var stale []string
	if *force { // the secrets of the election replaced, which this one does not write again
		stale = []string{"trustee-*.share.age", "paillier.key", "ea.key"}
	}
	if err := stage.commit(stale...); err != nil {
		return err
	}
	committed = true
	fmt.Printf("election %q created: %d candidates, max %d voters, window [%s, %s)\n", m.ElectionID, len(m.Candidates), m.MaxVoters, m.Start.Format(time.RFC3339), m.End.Format(time.RFC3339))
	fmt.Printf("  %s (public)\n", manifestPath)
	for _, w := range written {
		fmt.Printf("  %s\n", w)
	}
	return nil
}

// writePseudonymKey stages a fresh K_pseud next to the EA key and puts its
// commitment in m: the key itself is never in the manifest, but with the
// commitment there no other key can issue tokens for this election
// (election.NewMinter refuses it), so a lost or swapped key cannot give a
// voter a second pseudonym. It returns the line to print.
func writePseudonymKey(stage *staging, m *election.Manifest) (string, error) {
	path, err := stage.path("pseudonym.key")
	if err != nil {
		return "", err
	}
	key, err := easigner.GeneratePseudonymKey(path)
	if err != nil {
		return "", err
	}
	commitment, err := election.PseudonymKeyCommitment(key)
	if err != nil {
		return "", err
	}
	m.PseudonymKeyCommitment = commitment[:]
	return stage.final("pseudonym.key") + " (secret: the pseudonym key, needed with the EA key to issue tokens)", nil
}

// readRecipients reads --trustee-recipients: required with trustees, so
// that no share is ever written in the clear.
func readRecipients(path string, trustees int) ([]age.Recipient, error) {
	if trustees == 0 {
		return nil, nil
	}
	if path == "" {
		return nil, usagef("--trustees needs --trustee-recipients FILE: each share is sealed to its trustee's age key (fabvote trustee keygen)")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--trustee-recipients: %w", err)
	}
	defer f.Close()
	rs, err := sharebox.ParseRecipients(f, trustees)
	if err != nil {
		return nil, usagef("--trustee-recipients %s: %v", path, err)
	}
	return rs, nil
}

// writeSealedShares seals share i to recipient i in DIR/trustee-i.share.age.
// The dealer writes no share in the clear, so no file here opens without
// its trustee's identity. It returns the lines to print.
func writeSealedShares(stage *staging, shares []*threshold.KeyShare, recipients []age.Recipient) ([]string, error) {
	defer func() { // the dealer keeps no share, also when a write fails
		for _, s := range shares {
			s.Wipe()
		}
	}()
	var written []string
	for i, s := range shares {
		name := fmt.Sprintf("trustee-%d.share.age", s.Index)
		p, err := stage.path(name)
		if err != nil {
			return nil, err
		}
		if err := sharebox.WriteSealed(p, s, recipients[i]); err != nil {
			return nil, fmt.Errorf("writing %s: %w", stage.final(name), err)
		}
		written = append(written, fmt.Sprintf("%s (sealed to trustee %d's recipient %s: give it to that trustee)", stage.final(name), s.Index, recipients[i]))
	}
	return written, nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func cmdElectionOpen(args []string) error {
	fs := newFlags("election open", "--manifest FILE [--start T --end T] [--network FILE]")
	manifest := fs.String("manifest", "", "manifest.json from `election create`")
	start := fs.String("start", "", "reset the window start before opening (RFC 3339, now, +DURATION); rewrites --manifest")
	end := fs.String("end", "", "reset the window end before opening; rewrites --manifest")
	var nf netFlags
	nf.register(fs, "admin")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "manifest"); err != nil {
		return err
	}
	m, data, err := loadManifest(*manifest)
	if err != nil {
		return err
	}
	lc, err := nf.connect(m.AuthorityMSP)
	if err != nil {
		return err
	}
	defer lc.Conn.Close()
	ctx, cancel := signalContext()
	defer cancel()
	// Never rewrite the window of an election that is already on the ledger:
	// the file would then differ from the immutable manifest there.
	if _, err := lc.GetManifest(ctx, m.ElectionID); err == nil {
		return fmt.Errorf("election %q is already open on the ledger; its manifest is immutable", m.ElectionID)
	}
	// The window is not bound by tokens or ballots, so it may be set at the
	// last moment, e.g. after pre-generating ballots for a benchmark.
	if *start != "" || *end != "" {
		now := time.Now()
		if *start != "" {
			if m.Start, err = parseTime("start", *start, now); err != nil {
				return err
			}
		}
		if *end != "" {
			if m.End, err = parseTime("end", *end, now); err != nil {
				return err
			}
		}
		if data, err = m.Marshal(); err != nil {
			return err
		}
		if err := atomicfile.WriteFile(*manifest, data, 0o644); err != nil {
			return err
		}
	}
	r, err := lc.OpenElection(ctx, data)
	if err != nil {
		return err
	}
	fmt.Printf("election %q opened by %s: tx %s, block %d; window [%s, %s)\n", m.ElectionID, lc.Conn.MSPID, r.TxID, r.Block,
		m.Start.Format(time.RFC3339), m.End.Format(time.RFC3339))
	return nil
}

// waitUntil sleeps until t (plus a little, so the peers' clocks agree), saying why.
func waitUntil(ctx context.Context, t time.Time, why string) error {
	d := time.Until(t) + 2*time.Second
	if d <= 0 {
		return nil
	}
	fmt.Fprintf(os.Stderr, "waiting %s for %s (%s)…\n", d.Round(time.Second), why, t.Format(time.RFC3339))
	select {
	case <-ctx.Done():
		return errors.New("interrupted while waiting")
	case <-time.After(d):
		return nil
	}
}
