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
	"github.com/spf13/pflag"

	"github.com/fabvote/fabvote/crypto/paillier"
	"github.com/fabvote/fabvote/crypto/paillier/threshold"
	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/atomicfile"
	"github.com/fabvote/fabvote/internal/ballotclient"
	"github.com/fabvote/fabvote/internal/cli"
	"github.com/fabvote/fabvote/internal/easigner"
	"github.com/fabvote/fabvote/internal/keyfile"
	"github.com/fabvote/fabvote/internal/sharebox"
)

// createOptions are the flags of `election create`.
type createOptions struct {
	id, title, cands     string
	contestsPath         string
	maxVoters            uint64
	start, end           string
	trustees, k          int
	recipientsFile       string
	keyFrom              string
	bits, challenge      int
	authority            string
	trusteeMSPs, channel string
	skew                 time.Duration
	boothDigest          string
	out                  string
	force                bool
	ea                   eaFlags
}

func cmdElectionCreate(fs *pflag.FlagSet) func() error {
	var o createOptions
	o.register(fs)
	return func() error {
		if err := cli.Required(fs, "election", "max-voters", "out"); err != nil {
			return err
		}
		if (o.cands == "") == (o.contestsPath == "") {
			return cli.Usagef("give --candidates (one question: choose one) or --contests FILE, not both")
		}
		if o.keyFrom != "" && (fs.Changed("trustees") || fs.Changed("threshold") || fs.Changed("trustee-recipients") || fs.Changed("bits")) {
			return cli.Usagef("--key-from takes the key, its size and its threshold from the ceremony: no --trustees, --threshold, --trustee-recipients or --bits")
		}
		return o.create()
	}
}

func (o *createOptions) register(fs *pflag.FlagSet) {
	fs.StringVar(&o.id, "election", "", "election id (1..64 characters of [A-Za-z0-9._-], starting with a letter or digit)")
	cli.Alias(fs, "election", "id")
	fs.StringVar(&o.title, "title", "", "title (default: the id)")
	fs.StringVar(&o.cands, "candidates", "", "comma-separated candidate names: an election of one question, choose one of them")
	fs.StringVar(&o.contestsPath, "contests", "", "JSON file of the election's contests and ballot styles (docs/cli: election create)")
	fs.Uint64Var(&o.maxVoters, "max-voters", 0, "largest possible number of ballots (sets the vote encoding)")
	fs.StringVar(&o.start, "start", "now", "window start: RFC 3339, now, or +DURATION (can be changed by fabvote election open)")
	fs.StringVar(&o.end, "end", "+1h", "window end (exclusive): RFC 3339 or +DURATION")
	fs.StringVar(&o.keyFrom, "key-from", "", "use the key of a key ceremony: its public result (ceremony.json from fabvote trustee ceremony --out), checked before use; the trustees already hold their shares")
	fs.IntVar(&o.trustees, "trustees", 0, "without --key-from: deal the key as shares to this many trustees (0: a single Paillier key file); a dealer holds the whole key while it runs, so it is for tests and benchmarks")
	fs.IntVar(&o.k, "threshold", 0, "trustees needed to decrypt (with --trustees)")
	fs.StringVar(&o.recipientsFile, "trustee-recipients", "", "with --trustees: one age recipient per trustee, in trustee order (from fabvote trustee keygen); share i is sealed to line i")
	fs.IntVar(&o.bits, "bits", 2048, "Paillier modulus size: 2048, 3072 or 4096")
	fs.IntVar(&o.challenge, "challenge-bits", election.DefaultChallenge, "validity-proof challenge length")
	fs.StringVar(&o.authority, "authority-msp", "EAMSP", "MSP id of the election authority (opens the election, publishes results)")
	fs.StringVar(&o.trusteeMSPs, "trustee-msps", "", "comma-separated MSP ids that may also publish the result")
	fs.StringVar(&o.channel, "channel", "fabvote", "the Fabric channel the election runs on (part of its identity: the contract opens it there only)")
	fs.DurationVar(&o.skew, "max-clock-skew", election.DefaultClockSkewSeconds*time.Second, "largest clock difference between two honest peers; a result is accepted from end + this (whole seconds)")
	fs.StringVar(&o.boothDigest, "booth-digest", "", "digest of the booth's files the voters run (fabvote booth digest --dir DIR); ea serve --booth serves only those")
	fs.StringVar(&o.out, "out", "", "output directory (created; must not hold a manifest already)")
	fs.BoolVar(&o.force, "force", false, "overwrite an existing election in --out")
	fs.StringVar(&o.ea.module, "pkcs11-module", "", "create the EA key in this PKCS#11 library's token instead of DIR/ea.key")
	fs.StringVar(&o.ea.token, "pkcs11-token", "", "PKCS#11 token label")
	o.ea.registerPIN(fs)
	fs.StringVar(&o.ea.label, "pkcs11-label", "fabvote-ea", "PKCS#11 key label (must not exist yet)")
}

// create checks everything cheap, then generates the keys and writes the
// election's files, all or none of them.
func (o *createOptions) create() error {
	recipients, err := o.checkTrustees()
	if err != nil {
		return err
	}
	m, err := o.draftManifest(time.Now())
	if err != nil {
		return err
	}
	if err := o.takeCeremonyKey(m); err != nil {
		return err
	}
	_, statErr := os.Stat(o.out)
	madeOut := os.IsNotExist(statErr)
	if err := o.makeOutDir(); err != nil {
		return err
	}
	// Every file is staged under a temporary name and moved into place only
	// once all are written: a failure leaves nothing of this election, nor
	// the --out directory if this command made it.
	stage := &staging{dir: o.out}
	committed := false
	defer func() {
		if !committed {
			stage.abort()
			if madeOut {
				os.Remove(o.out) // only if empty
			}
		}
	}()
	written, err := o.writeKeys(stage, m, recipients)
	if err != nil {
		return err
	}
	if err := o.commit(stage, m); err != nil {
		return err
	}
	committed = true
	printCreated(m, filepath.Join(o.out, "manifest.json"), written)
	return nil
}

// takeCeremonyKey puts the key of --key-from's ceremony into m, once its
// result verifies; without --key-from, m keeps the dealer's placeholders.
func (o *createOptions) takeCeremonyKey(m *election.Manifest) error {
	if o.keyFrom == "" {
		return nil
	}
	r, err := readCeremonyResult(o.keyFrom)
	if err != nil {
		return fmt.Errorf("--key-from: %w", err)
	}
	if err := r.apply(m); err != nil {
		return fmt.Errorf("--key-from %s: the ceremony's result does not verify: %w", o.keyFrom, err)
	}
	return nil
}

// checkTrustees checks --trustees, --threshold and --trustee-recipients
// and returns the recipients the shares are sealed to.
func (o *createOptions) checkTrustees() ([]age.Recipient, error) {
	if o.trustees < 0 || (o.trustees > 0 && (o.k < 1 || o.k > o.trustees)) {
		return nil, cli.Usagef("--threshold %d with --trustees %d: want 1 <= threshold <= trustees", o.k, o.trustees)
	}
	if o.trustees == 0 && (o.k != 0 || o.recipientsFile != "") {
		return nil, cli.Usagef("--threshold and --trustee-recipients need --trustees")
	}
	return readRecipients(o.recipientsFile, o.trustees)
}

// draftManifest makes --out and the manifest of the flags, with
// placeholders for the keys, and checks it: everything cheap is checked
// before spending a minute on primes.
func (o *createOptions) draftManifest(now time.Time) (*election.Manifest, error) {
	st, err := parseTime("start", o.start, now)
	if err != nil {
		return nil, err
	}
	en, err := parseTime("end", o.end, now)
	if err != nil {
		return nil, err
	}
	if o.title == "" {
		o.title = o.id
	}
	contests, styles := election.OneContest(o.title, splitList(o.cands))
	if o.contestsPath != "" {
		if contests, styles, err = readContestsFile(o.contestsPath); err != nil {
			return nil, err
		}
	}
	if o.skew%time.Second != 0 || o.skew < election.MinClockSkewSeconds*time.Second || o.skew > election.MaxClockSkewSeconds*time.Second {
		return nil, cli.Usagef("--max-clock-skew %s: want whole seconds in %ds..%ds", o.skew, election.MinClockSkewSeconds, election.MaxClockSkewSeconds)
	}
	m := &election.Manifest{
		Version:                election.ManifestVersion,
		ElectionID:             o.id,
		Channel:                o.channel,
		MaxClockSkewSeconds:    uint32(o.skew / time.Second),
		Title:                  o.title,
		Contests:               contests,
		Styles:                 styles,
		EncodingBits:           uint(bits.Len64(o.maxVoters)),
		MaxVoters:              o.maxVoters,
		AuthorityMSP:           o.authority,
		TrusteeMSPs:            splitList(o.trusteeMSPs),
		Start:                  st,
		End:                    en,
		ChallengeBits:          o.challenge,
		BoothDigest:            o.boothDigest,
		TokenKey:               []byte{0}, // placeholders for the early check below
		PaillierKey:            []byte{0},
		KeyOrigin:              election.KeyOriginDealer, // unless --key-from
		PseudonymKeyCommitment: make([]byte, election.PseudonymKeyCommitmentLen),
	}
	return m, o.checkDraft(m)
}

// makeOutDir creates --out, which must not hold an election unless --force.
func (o *createOptions) makeOutDir() error {
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	if _, err := os.Stat(filepath.Join(o.out, "manifest.json")); err == nil && !o.force {
		return fmt.Errorf("--out %s already holds an election (manifest.json); use another directory or --force", o.out)
	}
	return nil
}

// checkDraft validates the draft manifest but for its placeholder keys,
// then the window, the challenge length and the modulus size.
func (o *createOptions) checkDraft(m *election.Manifest) error {
	if err := m.Validate(); err != nil && !strings.Contains(err.Error(), "paillierKey") {
		return err
	}
	if !m.End.After(m.Start) {
		return cli.Usagef("--end %s is not after --start %s", m.End.Format(time.RFC3339), m.Start.Format(time.RFC3339))
	}
	if o.challenge%8 != 0 || o.challenge < election.MinChallengeBits || o.challenge > election.MaxChallengeBits {
		return cli.Usagef("--challenge-bits %d: want a multiple of 8 in %d..%d", o.challenge, election.MinChallengeBits, election.MaxChallengeBits)
	}
	if o.bits != 2048 && o.bits != 3072 && o.bits != 4096 {
		return cli.Usagef("--bits %d: want 2048, 3072 or 4096", o.bits)
	}
	if o.boothDigest != "" {
		if err := election.CheckBoothDigest(o.boothDigest); err != nil {
			return cli.Usagef("--booth-digest: %v", err)
		}
	}
	return nil
}

// writeKeys stages the EA key (or makes it in the PKCS#11 token), the
// pseudonym key and the Paillier key or trustee shares, and puts their
// public parts in m. It returns the lines to print.
func (o *createOptions) writeKeys(stage *staging, m *election.Manifest, recipients []age.Recipient) ([]string, error) {
	// The EA key first: a PKCS#11 mistake should not cost a key generation.
	signer, eaLine, closeSigner, err := o.createEAKey(stage)
	if err != nil {
		return nil, err
	}
	defer closeSigner()
	written := []string{eaLine}
	line, err := writePseudonymKey(stage, m)
	if err != nil {
		return nil, err
	}
	written = append(written, line)
	lines, err := o.writePaillierKey(stage, m, recipients)
	if err != nil {
		return nil, err
	}
	written = append(written, lines...)
	if m.TokenKey, err = easigner.PublicKeyDER(signer); err != nil {
		return nil, err
	}
	return written, nil
}

// createEAKey makes the EA token key in the PKCS#11 token or stages it as
// DIR/ea.key. It returns the line to print; closeFn releases the token.
func (o *createOptions) createEAKey(stage *staging) (signer crypto.Signer, line string, closeFn func(), err error) {
	if o.ea.pkcs11() {
		cfg, err := o.ea.config()
		if err != nil {
			return nil, "", nil, err
		}
		ps, err := easigner.GeneratePKCS11(cfg)
		if err != nil {
			return nil, "", nil, err
		}
		return ps, fmt.Sprintf("EA token key in PKCS#11 token %q, label %q", o.ea.token, o.ea.label), func() { ps.Close() }, nil
	}
	p, err := stage.path("ea.key")
	if err != nil {
		return nil, "", nil, err
	}
	key, err := easigner.GeneratePEM(p)
	if err != nil {
		return nil, "", nil, err
	}
	return key, stage.final("ea.key") + " (secret: the EA token key)", func() {}, nil
}

// writePaillierKey generates the Paillier key, dealt as sealed trustee
// shares with --trustees, stages it and puts its public parts in m. It
// returns the lines to print.
func (o *createOptions) writePaillierKey(stage *staging, m *election.Manifest, recipients []age.Recipient) ([]string, error) {
	if o.keyFrom != "" {
		return []string{fmt.Sprintf("the key of ceremony %x (keyOrigin %q: the trustees hold their shares, nothing secret of it here)", m.KeyCeremony.ID, m.KeyOrigin)}, nil
	}
	fmt.Fprintf(os.Stderr, "generating a %d-bit Paillier key", o.bits)
	if o.trustees > 0 {
		fmt.Fprintf(os.Stderr, " as %d-of-%d trustee shares (safe primes: this can take a minute)", o.k, o.trustees)
	}
	fmt.Fprintln(os.Stderr, "…")
	t0 := time.Now()
	var written []string
	var err error
	if o.trustees > 0 {
		written, err = dealShares(stage, m, o.bits, o.k, o.trustees, recipients)
	} else {
		written, err = writeSingleKey(stage, m, o.bits)
	}
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "key ready in %s\n", time.Since(t0).Round(time.Millisecond))
	return written, nil
}

// dealShares deals a k-of-n threshold Paillier key and stages each share
// sealed to its trustee's recipient.
func dealShares(stage *staging, m *election.Manifest, bitsN, k, n int, recipients []age.Recipient) ([]string, error) {
	pp, shares, err := threshold.Deal(rand.Reader, bitsN, k, n)
	if err != nil {
		return nil, fmt.Errorf("dealing trustee shares: %w", err)
	}
	if m.PaillierKey, err = pp.PublicKey.MarshalBinary(); err != nil {
		return nil, err
	}
	if m.Threshold, err = pp.MarshalBinary(); err != nil {
		return nil, err
	}
	return writeSealedShares(stage, shares, recipients)
}

// writeSingleKey generates a Paillier key and stages it as
// DIR/paillier.key.
func writeSingleKey(stage *staging, m *election.Manifest, bitsN int) ([]string, error) {
	sk, err := paillier.GenerateKey(rand.Reader, bitsN)
	if err != nil {
		return nil, fmt.Errorf("generating the Paillier key: %w", err)
	}
	if m.PaillierKey, err = sk.Public().MarshalBinary(); err != nil {
		return nil, err
	}
	p, err := stage.path("paillier.key")
	if err != nil {
		return nil, err
	}
	if err := keyfile.WritePrivateKey(p, sk); err != nil {
		return nil, fmt.Errorf("writing %s: %w", stage.final("paillier.key"), err)
	}
	return []string{stage.final("paillier.key") + " (secret: the decryption key)"}, nil
}

// commit stages the manifest and moves every staged file into place; with
// --force it first removes the secrets of the election replaced that this
// one does not write again.
func (o *createOptions) commit(stage *staging, m *election.Manifest) error {
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
	if o.force {
		stale = []string{"trustee-*.share.age", "paillier.key", "ea.key"}
	}
	return stage.commit(stale...)
}

func printCreated(m *election.Manifest, manifestPath string, written []string) {
	fmt.Printf("election %q created: %s, max %d voters, window [%s, %s)\n", m.ElectionID, describeContests(m), m.MaxVoters, m.Start.Format(time.RFC3339), m.End.Format(time.RFC3339))
	fmt.Printf("  %s (public)\n", manifestPath)
	for _, w := range written {
		fmt.Printf("  %s\n", w)
	}
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
		return nil, cli.Usagef("--trustees needs --trustee-recipients FILE: each share is sealed to its trustee's age key (fabvote trustee keygen)")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--trustee-recipients: %w", err)
	}
	defer f.Close()
	rs, err := sharebox.ParseRecipients(f, trustees)
	if err != nil {
		return nil, cli.Usagef("--trustee-recipients %s: %v", path, err)
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

func cmdElectionOpen(fs *pflag.FlagSet) func() error {
	manifest := fs.String("manifest", "", "manifest.json from fabvote election create")
	start := fs.String("start", "", "reset the window start before opening (RFC 3339, now, +DURATION); rewrites --manifest")
	end := fs.String("end", "", "reset the window end before opening; rewrites --manifest")
	var nf netFlags
	nf.register(fs, "admin")
	return func() error {
		if err := cli.Required(fs, "manifest"); err != nil {
			return err
		}
		m, data, err := loadManifest(*manifest)
		if err != nil {
			return err
		}
		return nf.withLedger(m.AuthorityMSP, func(ctx context.Context, lc *ballotclient.Client) error {
			return openElection(ctx, lc, m, data, *manifest, *start, *end)
		})
	}
}

// openElection writes the manifest to the ledger, after resetting its
// window in the file manifestPath if start or end is given.
func openElection(ctx context.Context, lc *ballotclient.Client, m *election.Manifest, data []byte, manifestPath, start, end string) error {
	// Never rewrite the window of an election that is already on the ledger:
	// the file would then differ from the immutable manifest there.
	if _, err := lc.GetManifest(ctx, m.ElectionID); err == nil {
		return fmt.Errorf("election %q is already open on the ledger; its manifest is immutable", m.ElectionID)
	}
	// The window is not bound by tokens or ballots, so it may be set at the
	// last moment, e.g. after pre-generating ballots for a benchmark.
	if start != "" || end != "" {
		var err error
		if data, err = resetWindow(m, manifestPath, start, end); err != nil {
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

// resetWindow sets the window of m to start and end (each if given),
// rewrites the manifest file path and returns its new bytes.
func resetWindow(m *election.Manifest, path, start, end string) ([]byte, error) {
	now := time.Now()
	var err error
	if start != "" {
		if m.Start, err = parseTime("start", start, now); err != nil {
			return nil, err
		}
	}
	if end != "" {
		if m.End, err = parseTime("end", end, now); err != nil {
			return nil, err
		}
	}
	data, err := m.Marshal()
	if err != nil {
		return nil, err
	}
	if err := atomicfile.WriteFile(path, data, 0o644); err != nil {
		return nil, err
	}
	return data, nil
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

// describeContests says what the ballots ask: "4 candidates" for one
// question of choose one, else the numbers of contests and styles.
func describeContests(m *election.Manifest) string {
	if c := m.Contests[0]; len(m.Contests) == 1 && c.Min == 1 && c.Max == 1 && !c.Blank {
		return fmt.Sprintf("%d candidates", len(c.Options))
	}
	return fmt.Sprintf("%d contests in %d ballot styles", len(m.Contests), len(m.Styles))
}
