package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"time"

	"filippo.io/age"
	"github.com/spf13/pflag"

	"github.com/fabvote/fabvote/crypto/paillier/threshold"
	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/atomicfile"
	"github.com/fabvote/fabvote/internal/audit"
	"github.com/fabvote/fabvote/internal/ballotclient"
	"github.com/fabvote/fabvote/internal/cli"
	"github.com/fabvote/fabvote/internal/gateway"
	"github.com/fabvote/fabvote/internal/keyfile"
	"github.com/fabvote/fabvote/internal/sharebox"
	"github.com/fabvote/fabvote/internal/tallyjournal"
	"github.com/fabvote/fabvote/internal/trustee"
)

// tallyOptions are the flags of `tally`.
type tallyOptions struct {
	manifest                 string
	shares, ageIDs, partials []string
	paillierKey, resultOut   string
	wait, noPublish, quiet   bool
	nf                       netFlags
}

func cmdTally(fs *pflag.FlagSet) func() error {
	var o tallyOptions
	fs.StringVar(&o.manifest, "manifest", "", "the election's manifest.json (must equal the ledger's)")
	fs.StringArrayVar(&o.shares, "share", nil, "your own sealed key share, if you are also a trustee (at most one: the others bring --partial)")
	fs.StringArrayVar(&o.ageIDs, "age-identity", nil, "your age identity file, which opens --share (from fabvote trustee keygen; its directory holds your journal)")
	fs.StringArrayVar(&o.partials, "partial", nil, "a partial decryption from fabvote trustee decrypt; repeatable")
	fs.StringVar(&o.paillierKey, "paillier-key", "", "single-key elections: the Paillier private key")
	fs.String("product-out", "", "removed: trustees recompute the tally product from the ledger (fabvote trustee decrypt --network)")
	fs.MarkHidden("product-out") // kept only to refuse it with an explanation
	fs.StringVar(&o.resultOut, "result-out", "", "write the result JSON here")
	fs.BoolVar(&o.wait, "wait", false, "wait for the ledger to show the voting window closed first")
	fs.BoolVar(&o.noPublish, "no-publish", false, "compute the result but do not publish it")
	fs.BoolVar(&o.quiet, "quiet", false, "no progress bar")
	o.nf.register(fs, "admin")
	return func() error {
		if err := o.check(fs); err != nil {
			return err
		}
		return o.tally()
	}
}

// check refuses flags that cannot make a result: no key at all, a single
// key mixed with shares, or more than one share in this process.
func (o *tallyOptions) check(fs *pflag.FlagSet) error {
	if err := cli.Required(fs, "manifest"); err != nil {
		return err
	}
	if fs.Lookup("product-out").Value.String() != "" {
		return cli.Usagef("--product-out is removed: each trustee recomputes the tally from the ledger itself (fabvote trustee decrypt --network FILE …)")
	}
	if len(o.shares)+len(o.partials) == 0 && o.paillierKey == "" {
		return cli.Usagef("nothing to decrypt with: give --share/--partial (trustees) or --paillier-key (single key)")
	}
	if o.paillierKey != "" && len(o.shares)+len(o.partials) > 0 {
		return cli.Usagef("--paillier-key is for single-key elections; do not mix it with --share/--partial")
	}
	if (len(o.shares) > 0) != (len(o.ageIDs) > 0) {
		return cli.Usagef("--share and --age-identity go together: a sealed share opens only with its trustee's identity")
	}
	if len(o.shares) > 1 || len(o.ageIDs) > 1 {
		return cli.Usagef("at most one --share and one --age-identity (a tallier who is also a trustee): k shares never come together in one process; the other trustees run `fabvote trustee decrypt` and bring --partial")
	}
	return nil
}

// tally recomputes the tally from the ledger as the election authority,
// decrypts it and publishes the result.
func (o *tallyOptions) tally() error {
	m, data, err := loadManifest(o.manifest)
	if err != nil {
		return err
	}
	return o.nf.withLedger(m.AuthorityMSP, func(ctx context.Context, lc *ballotclient.Client) error {
		tally, err := recomputeTally(ctx, &o.nf, lc, m, data, o.wait, o.quiet)
		if err != nil {
			return err
		}
		res, err := decryptTally(tally, o.paillierKey, o.shares, o.ageIDs, o.partials)
		if err != nil {
			return err
		}
		return finishTally(ctx, lc, tally.Prepared().Manifest, res, o.resultOut, o.noPublish)
	})
}

// recomputeTally is the tally every decryption path starts from:
// trustee.Recompute checks the channel, the manifest and the window on a
// peer of every org in the network file, verifies every ballot and requires
// every org's peer to list the same ballots. lc is the connection to wait
// on; m is manifest, parsed.
func recomputeTally(ctx context.Context, nf *netFlags, lc *ballotclient.Client, m *election.Manifest, manifest []byte, wait, quiet bool) (*trustee.Tally, error) {
	if wait {
		if err := waitWindowClosed(ctx, lc, m, manifest); err != nil {
			return nil, err
		}
	}
	tl, closeAll, err := nf.trusteeLedger(lc.Conn.Org)
	if err != nil {
		return nil, err
	}
	defer closeAll()
	t0 := time.Now()
	var tally *trustee.Tally
	for attempt := 1; ; attempt++ {
		tally, err = recomputeOnce(ctx, tl, m.ElectionID, manifest, quiet)
		// A peer restarted a moment ago may still be catching up on
		// blocks: its listing differs from the others' until it has.
		if !errors.Is(err, trustee.ErrOrgsDisagree) || attempt == orgRetries {
			break
		}
		fmt.Fprintf(os.Stderr, "%v\nasking again in %s (%d of %d)…\n", err, orgRetryDelay, attempt+1, orgRetries)
		select {
		case <-ctx.Done():
			return nil, errors.New("interrupted")
		case <-time.After(orgRetryDelay):
		}
	}
	var be *trustee.BallotsError
	if errors.As(err, &be) {
		for _, f := range be.Failures {
			fmt.Fprintf(os.Stderr, "  invalid: %s\n", f)
		}
	}
	if err != nil {
		return nil, err
	}
	c := tally.Checked()
	fmt.Printf("read %d ballots from the ledger, %d valid, in %s\n", c.Entries, c.Valid, time.Since(t0).Round(time.Millisecond))
	return tally, nil
}

// How often, and how far apart, recomputeTally asks again when the orgs'
// peers disagree.
const (
	orgRetries    = 4
	orgRetryDelay = 3 * time.Second
)

func recomputeOnce(ctx context.Context, tl *trustee.Ledger, id string, manifest []byte, quiet bool) (*trustee.Tally, error) {
	t0 := time.Now()
	fmt.Fprintf(os.Stderr, "reading and verifying every ballot of %q from a peer of every org…\n", id)
	next := 1000
	return trustee.Recompute(ctx, tl, manifest, audit.Options{Progress: func(done int) {
		if !quiet && done >= next {
			fmt.Fprintf(os.Stderr, "  %d ballots verified (%.0f/s)\n", done, float64(done)/time.Since(t0).Seconds())
			next += 1000 * (1 + done/10000)
		}
	}})
}

// waitWindowClosed sleeps until the window's end, then asks the ledger
// until it shows the window closed (the peers' rule may add a margin). It
// first checks that the manifest is the ledger's, so that a stale copy (one
// made before `election open` set the window) fails now, not after the wait.
func waitWindowClosed(ctx context.Context, lc *ballotclient.Client, m *election.Manifest, manifest []byte) error {
	onLedger, err := lc.GetManifest(ctx, m.ElectionID)
	if err != nil {
		return fmt.Errorf("reading the manifest of %q from the ledger: %w", m.ElectionID, err)
	}
	if !bytes.Equal(onLedger, manifest) {
		return fmt.Errorf("election %q: %w (was it copied before `election open` set the window?)", m.ElectionID, trustee.ErrManifestMismatch)
	}
	if err := waitUntil(ctx, m.ResultNotBefore(), "the voting window to close (end + the manifest's clock skew)"); err != nil {
		return err
	}
	for {
		closed, err := lc.WindowClosed(ctx, m.ElectionID)
		if err != nil {
			return fmt.Errorf("asking the ledger whether the window of %q has closed: %w", m.ElectionID, err)
		}
		if closed {
			return nil
		}
		select {
		case <-ctx.Done():
			return errors.New("interrupted while waiting")
		case <-time.After(time.Second):
		}
	}
}

// decryptTally builds the result with the single key, or with the shares
// present and the partials brought by trustees.
func decryptTally(tally *trustee.Tally, paillierKey string, shares, ageIDs, partials []string) (*election.Result, error) {
	p := tally.Prepared()
	if paillierKey != "" {
		sk, err := keyfile.ReadPrivateKey(paillierKey)
		if err != nil {
			return nil, fmt.Errorf("--paillier-key: %w", err)
		}
		return audit.ResultFromKey(p, tally.Checked(), sk)
	}
	if p.Threshold == nil {
		return nil, fmt.Errorf("election %q has a single key: use --paillier-key", p.Manifest.ElectionID)
	}
	parts, err := sharePartials(tally, shares, ageIDs)
	if err != nil {
		return nil, err
	}
	product := tally.Checked().Product
	for _, f := range partials {
		pd, err := readPartial(p, product, f)
		if err != nil {
			return nil, err
		}
		parts = append(parts, pd)
	}
	if len(parts) < p.Threshold.K {
		return nil, fmt.Errorf("%d trustee share(s) given, %d of %d are needed", len(parts), p.Threshold.K, p.Threshold.L)
	}
	res, err := audit.ResultFromPartials(p, tally.Checked(), parts)
	if err != nil {
		return nil, err
	}
	fmt.Printf("combined %d partial decryptions (threshold %d of %d)\n", len(parts), p.Threshold.K, p.Threshold.L)
	return res, nil
}

// sharePartials opens the tallier's own sealed share, if any, and decrypts
// the tally with it, recording the tally in the journal next to its
// identity.
func sharePartials(tally *trustee.Tally, shares, ageIDs []string) ([]*threshold.PartialDecryption, error) {
	if len(shares) == 0 {
		return nil, nil
	}
	pd, err := decryptWithShare(tally, shares[0], ageIDs[0])
	if err != nil {
		return nil, err
	}
	return []*threshold.PartialDecryption{pd}, nil
}

// decryptWithShare is one trustee's partial decryption of tally: the share
// is opened only now, after the tally was recomputed, and wiped after use.
func decryptWithShare(tally *trustee.Tally, share, ageID string) (*threshold.PartialDecryption, error) {
	ids, err := readIdentities([]string{ageID})
	if err != nil {
		return nil, err
	}
	j, err := tallyjournal.Open(filepath.Dir(ageID))
	if err != nil {
		return nil, err
	}
	ks, err := sharebox.ReadSealedFile(share, ids...)
	if err != nil {
		return nil, fmt.Errorf("--share: %w", err)
	}
	defer ks.Wipe()
	pd, err := tally.PartialDecrypt(rand.Reader, ks, j)
	if err != nil {
		return nil, fmt.Errorf("--share %s: %w", share, err)
	}
	return pd, nil
}

func readIdentities(paths []string) ([]age.Identity, error) {
	var ids []age.Identity
	for _, f := range paths {
		got, err := sharebox.ReadIdentityFile(f)
		if err != nil {
			return nil, fmt.Errorf("--age-identity: %w", err)
		}
		ids = append(ids, got...)
	}
	return ids, nil
}

// readPartial reads a trustee's partial decryption and checks that it is
// one of this tally's product, the one recomputed from the ledger.
func readPartial(p *election.Prepared, product *big.Int, f string) (*threshold.PartialDecryption, error) {
	b, err := os.ReadFile(f)
	if err != nil {
		return nil, fmt.Errorf("--partial: %w", err)
	}
	pd, err := threshold.ParsePartialDecryption(p.Threshold, b)
	if err != nil {
		return nil, fmt.Errorf("--partial %s: %w", f, err)
	}
	if err := p.Threshold.VerifyPartial(product, pd); err != nil {
		return nil, fmt.Errorf("--partial %s (trustee %d) is not a decryption of the tally product recomputed from the ledger: %w", f, pd.Index, err)
	}
	return pd, nil
}

// finishTally writes, prints and publishes the result.
func finishTally(ctx context.Context, lc *ballotclient.Client, m *election.Manifest, res *election.Result, resultOut string, noPublish bool) error {
	enc, err := res.Marshal()
	if err != nil {
		return err
	}
	if resultOut != "" {
		if err := atomicfile.WriteFile(resultOut, enc, 0o644); err != nil {
			return err
		}
	}
	printCounts(m, res)
	if noPublish {
		fmt.Println("result not published (--no-publish)")
		return nil
	}
	r, err := lc.PublishResult(ctx, enc)
	if err != nil {
		var re *gateway.RejectError
		if errors.As(err, &re) && re.Code == election.CodeExists {
			return fmt.Errorf("a result for %q is already published: %w", m.ElectionID, err)
		}
		return err
	}
	fmt.Printf("result published by %s: tx %s, block %d\n", lc.Conn.MSPID, r.TxID, r.Block)
	return nil
}

func printCounts(m *election.Manifest, r *election.Result) {
	fmt.Printf("result of election %q (%d ballots):\n", m.ElectionID, r.BallotCount)
	for i, cr := range r.Contests {
		c := &m.Contests[i]
		fmt.Printf("  %s (%s): %d ballots, %d undervotes", c.ID, c.Title, cr.Ballots, cr.Undervotes)
		if c.Blank {
			fmt.Printf(", %d blank", cr.Blank)
		}
		fmt.Println()
		for j, o := range c.Options {
			fmt.Printf("    %-24s %d\n", o, cr.Counts[j])
		}
	}
}

// trusteeDecryptOptions are the flags of `trustee decrypt`.
type trusteeDecryptOptions struct {
	manifest, share, ageID, out string
	wait, quiet                 bool
	nf                          netFlags
}

func cmdTrusteeDecrypt(fs *pflag.FlagSet) func() error {
	var o trusteeDecryptOptions
	fs.StringVar(&o.manifest, "manifest", "", "the election's manifest.json (your own copy: must equal the ledger's)")
	fs.StringVar(&o.share, "share", "", "your sealed key share, from fabvote election create")
	fs.StringVar(&o.ageID, "age-identity", "", "your age identity file, from fabvote trustee keygen; its directory also holds your journal (decrypted.json): back them up together")
	fs.String("product", "", "removed: the tool recomputes the tally product from the ledger itself")
	fs.MarkHidden("product") // kept only to refuse it with an explanation
	fs.StringVar(&o.out, "out", "", "partial decryption to write (give it to the tallier)")
	fs.BoolVar(&o.wait, "wait", false, "wait for the ledger to show the voting window closed first")
	fs.BoolVar(&o.quiet, "quiet", false, "no progress lines")
	o.nf.register(fs, "user1")
	return func() error {
		if fs.Lookup("product").Value.String() != "" {
			return cli.Usagef("--product is removed: a trustee decrypts only the tally it recomputes from the ledger's verified ballots; give --network instead")
		}
		if err := cli.Required(fs, "manifest", "share", "age-identity", "out"); err != nil {
			return err
		}
		return o.decrypt()
	}
}

// decrypt checks the election and the identity, then recomputes the tally
// from the ledger and writes this trustee's partial decryption of it.
func (o *trusteeDecryptOptions) decrypt() error {
	m, data, err := loadManifest(o.manifest)
	if err != nil {
		return err
	}
	if len(m.Threshold) == 0 {
		return fmt.Errorf("election %q has a single key, not trustee shares", m.ElectionID)
	}
	// The identity is checked now, so that a wrong path fails before the
	// wait; the share is opened only once the tally is recomputed.
	if _, err := readIdentities([]string{o.ageID}); err != nil {
		return err
	}
	return o.nf.withLedger("", func(ctx context.Context, lc *ballotclient.Client) error {
		tally, err := recomputeTally(ctx, &o.nf, lc, m, data, o.wait, o.quiet)
		if err != nil {
			return err
		}
		return writePartial(tally, o.share, o.ageID, o.out)
	})
}

// writePartial writes the partial decryption of tally with the sealed
// share to out.
func writePartial(tally *trustee.Tally, share, ageID, out string) error {
	pd, err := decryptWithShare(tally, share, ageID)
	if err != nil {
		return err
	}
	enc, err := pd.Marshal(tally.Prepared().Threshold)
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(out, enc, 0o644); err != nil {
		return err
	}
	fmt.Printf("trustee %d: partial decryption (with its proof) of the tally of %d ballots written to %s\n", pd.Index, tally.Checked().Valid, out)
	return nil
}

// cmdTrusteeKeygen makes a trustee's age key pair and Ed25519 signing key.
func cmdTrusteeKeygen(fs *pflag.FlagSet) func() error {
	out := fs.String("out", "", "directory for identity.txt and signing-key.pem (secret, 0600), recipient.txt and signing-key.pub (public: for the authority and the key ceremony's configuration)")
	return func() error {
		if err := cli.Required(fs, "out"); err != nil {
			return err
		}
		rcp, pub, fp, err := generateTrusteeKeys(*out)
		if err != nil {
			return err
		}
		fmt.Printf("trustee identity written to %s (secret: keep it)\n", filepath.Join(*out, sharebox.IdentityFile))
		fmt.Printf("signing key written to %s (secret: keep it)\n", filepath.Join(*out, keyfile.SigningKeyFile))
		fmt.Printf("recipient (public, give it to the election authority): %s\n", rcp)
		fmt.Printf("signing key (public, %s): %s\n", keyfile.SigningPubFile, pub)
		fmt.Printf("signing key fingerprint (read it to the other trustees): %s\n", fp)
		return nil
	}
}

// generateTrusteeKeys writes the age identity and the signing key into
// dir. Neither may exist: a trustee's keys come as a pair, and a failure
// to write the second removes the first, so that dir never holds one
// without the other.
func generateTrusteeKeys(dir string) (recipient, pub, fingerprint string, err error) {
	for _, name := range []string{sharebox.IdentityFile, keyfile.SigningKeyFile} {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			return "", "", "", fmt.Errorf("%s already exists: a trustee keeps its keys; use another directory", filepath.Join(dir, name))
		}
	}
	if recipient, err = sharebox.GenerateIdentity(dir); err != nil {
		return "", "", "", err
	}
	if pub, fingerprint, err = keyfile.GenerateSigningKey(dir); err != nil {
		os.Remove(filepath.Join(dir, sharebox.IdentityFile))
		os.Remove(filepath.Join(dir, sharebox.RecipientFile))
		return "", "", "", err
	}
	return recipient, pub, fingerprint, nil
}

// verifyOptions are the flags of `verify`.
type verifyOptions struct {
	id, manifest       string
	expect             expectFlags
	recordDir, genesis string
	asJSON             bool
	nf                 netFlags
}

func cmdVerify(fs *pflag.FlagSet) func() error {
	var o verifyOptions
	fs.StringVar(&o.id, "election", "", "election id")
	fs.StringVar(&o.manifest, "manifest", "", "take the election id from this manifest (the audit still reads the ledger's); with --record, require the record's manifest to be this published one")
	o.expect.register(fs)
	fs.StringVar(&o.recordDir, "record", "", "verify this election record (docs/RECORD.md) offline instead of the ledger: no network flag is used")
	fs.StringVar(&o.genesis, "genesis-hash", "", "with --record: require this header hash (hex) of the channel's genesis block")
	fs.BoolVar(&o.asJSON, "json", false, "print the JSON report (docs/RECORD.md section 7) instead of the human one")
	o.nf.register(fs, "user1")
	return func() error {
		if err := notEmptyIfGiven(fs, "record", "genesis-hash", "manifest", "election"); err != nil {
			return err
		}
		return o.verify()
	}
}

// verify audits the record offline, or else the ledger.
func (o *verifyOptions) verify() error {
	if o.recordDir != "" {
		if o.id != "" {
			return cli.Usagef("--record takes the election from the record: no --election")
		}
		return verifyRecord(o.recordDir, o.genesis, o.manifest, o.expect, o.asJSON)
	}
	if o.genesis != "" {
		return cli.Usagef("--genesis-hash goes with --record")
	}
	localManifest, err := o.electionID()
	if err != nil {
		return err
	}
	return o.nf.withLedger("", func(ctx context.Context, lc *ballotclient.Client) error {
		return o.auditLedger(ctx, lc, localManifest)
	})
}

// electionID sets the election id from --manifest, if given, and returns
// that manifest to compare with the ledger's.
func (o *verifyOptions) electionID() (localManifest []byte, err error) {
	if o.manifest != "" {
		m, data, err := loadManifest(o.manifest)
		if err != nil {
			return nil, err
		}
		if o.id != "" && o.id != m.ElectionID {
			return nil, cli.Usagef("--election %q and --manifest (election %q) disagree", o.id, m.ElectionID)
		}
		o.id, localManifest = m.ElectionID, data
	}
	if o.id == "" {
		return nil, cli.Usagef("--election (or --manifest) is required")
	}
	return localManifest, nil
}

// auditLedger audits the election from the ledger and prints the report;
// localManifest, if any, must be the ledger's manifest.
func (o *verifyOptions) auditLedger(ctx context.Context, lc *ballotclient.Client, localManifest []byte) error {
	mb, err := lc.GetManifest(ctx, o.id)
	if err != nil {
		return fmt.Errorf("reading the manifest of %q from the ledger: %w", o.id, err)
	}
	rb, err := lc.GetResult(ctx, o.id)
	if err != nil {
		return fmt.Errorf("reading the result of %q from the ledger: %w", o.id, err)
	}
	l := &audit.Ledger{Manifest: mb, Ballots: lc.Ballots(ctx, o.id, 0), Result: rb}
	if rb != nil {
		// A ballot counts if it committed before the result; the blocks
		// since the election opened say which ones did not, and show any
		// ballot deleted or rewritten (docs/PROTOCOL.md 7.6, 7.7); they
		// also hold the tracker and ciphertext claim keys: the spoiled
		// ballots and the claims on every ciphertext (docs/VERIFY.md V32).
		l.Order = lc.CommitOrder(ctx, o.id)
		l.Trackers = lc.Trackers(ctx, o.id)
	}
	rep := audit.Run(l, audit.Options{})
	if rep.ElectionID == "" {
		rep.ElectionID = o.id
	}
	if localManifest != nil {
		rep.Optional = append(rep.Optional, audit.CheckPublishedAnchor)
		if string(localManifest) != string(mb) {
			rep.Failures = append(rep.Failures, audit.Failure{Kind: audit.KindManifest, Subject: "manifest", Check: audit.CheckPublishedAnchor,
				Err: "--manifest " + o.manifest + " differs from the manifest on the ledger"})
		}
	}
	o.expect.check(rep)
	return printReport(rep, o.asJSON)
}

// expectFlags are verify's optional expectations of the result.
type expectFlags struct {
	counts  string
	choices []string
}

func (e *expectFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&e.counts, "expect-counts", "", "also require these published counts: each option's, comma-separated; contest=counts for each contest, separated by ; (the counts alone for one contest)")
	fs.StringSliceVar(&e.choices, "expect-choices", nil, "also require the counts of the voters' choices recorded in these files (ballot --bulk's OUT.choices.csv, or pseudonym,choices lines as --choice takes them), comma-separated")
}

func (e *expectFlags) given() bool { return e.counts != "" || len(e.choices) > 0 }

// check adds a failure to rep for every way the published result differs
// from the expected one.
func (e *expectFlags) check(rep *audit.Report) {
	if !e.given() {
		return
	}
	rep.Optional = append(rep.Optional, audit.CheckExpectedCounts)
	fail := func(msg string) {
		rep.Failures = append(rep.Failures, audit.Failure{Kind: audit.KindExpectedCounts, Subject: "result", Err: msg})
	}
	if rep.Result == nil || rep.Manifest == nil {
		fail("no result to compare with the expected counts")
		return
	}
	var wants []*expectedCounts
	if e.counts != "" {
		want, err := parseExpectedCounts(rep.Manifest, e.counts)
		if err != nil {
			fail("--expect-counts: " + err.Error())
			return
		}
		wants = append(wants, want)
	}
	if len(e.choices) > 0 {
		p, err := election.Prepare(rep.Manifest)
		if err != nil {
			fail(err.Error())
			return
		}
		want, err := readChoicesFiles(p, e.choices)
		if err != nil {
			fail("--expect-choices: " + err.Error())
			return
		}
		wants = append(wants, want)
	}
	for _, want := range wants {
		for _, msg := range want.mismatches(rep.Result) {
			fail(msg)
		}
	}
}
