package main

import (
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/fabvote/fabvote/crypto/paillier"
	"github.com/fabvote/fabvote/crypto/paillier/threshold"
	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/atomicfile"
	"github.com/fabvote/fabvote/internal/audit"
	"github.com/fabvote/fabvote/internal/gateway"
)

func cmdTally(args []string) error {
	fs := newFlags("tally", "--manifest FILE [--share trustee-1.key …] [--partial partial-1.bin …] [--paillier-key FILE] [--product-out FILE] [--wait]")
	manifest := fs.String("manifest", "", "the election's manifest.json (must equal the ledger's)")
	var shares, partials stringList
	fs.Var(&shares, "share", "a trustee key share file; repeat for each trustee present")
	fs.Var(&partials, "partial", "a partial decryption from `trustee decrypt`; repeatable")
	paillierKey := fs.String("paillier-key", "", "single-key elections: the Paillier private key")
	productOut := fs.String("product-out", "", "write the tally product here (for trustees on other machines)")
	resultOut := fs.String("result-out", "", "write the result JSON here")
	wait := fs.Bool("wait", false, "wait for the voting window to close first")
	noPublish := fs.Bool("no-publish", false, "compute the result but do not publish it")
	quiet := fs.Bool("quiet", false, "no progress bar")
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
	p, err := election.Prepare(m)
	if err != nil {
		return err
	}
	decrypting := len(shares)+len(partials) > 0 || *paillierKey != ""
	if !decrypting && *productOut == "" {
		return usagef("nothing to do: give --share/--partial/--paillier-key to decrypt, or --product-out for the trustees")
	}
	lc, err := nf.connect(m.AuthorityMSP)
	if err != nil {
		return err
	}
	defer lc.Conn.Close()
	ctx, cancel := signalContext()
	defer cancel()
	onLedger, err := lc.GetManifest(ctx, m.ElectionID)
	if err != nil {
		return fmt.Errorf("reading the manifest of %q from the ledger: %w", m.ElectionID, err)
	}
	if string(onLedger) != string(data) {
		return fmt.Errorf("--manifest %s differs from the manifest of %q on the ledger", *manifest, m.ElectionID)
	}
	if *wait {
		if err := waitUntil(ctx, m.ResultNotBefore(), "the voting window to close (end + the manifest's clock skew)"); err != nil {
			return err
		}
	} else if decrypting && !*noPublish && time.Now().Before(m.ResultNotBefore()) {
		return fmt.Errorf("the voting window of %q is open until %s, and results are accepted from %s (end + clock skew); tally then (or use --wait)",
			m.ElectionID, m.End.Format(time.RFC3339), m.ResultNotBefore().Format(time.RFC3339))
	}

	t0 := time.Now()
	fmt.Fprintf(os.Stderr, "reading and verifying every ballot of %q from the ledger…\n", m.ElectionID)
	next := 1000
	t, err := audit.CheckBallots(p, lc.Ballots(ctx, m.ElectionID, 0), audit.Options{Progress: func(done int) {
		if !*quiet && done >= next {
			fmt.Fprintf(os.Stderr, "  %d ballots verified (%.0f/s)\n", done, float64(done)/time.Since(t0).Seconds())
			next += 1000 * (1 + done/10000)
		}
	}})
	if err != nil {
		return err
	}
	fmt.Printf("read %d ballots from the ledger, %d valid, in %s\n", t.Entries, t.Valid, time.Since(t0).Round(time.Millisecond))
	if len(t.Failures) > 0 {
		for _, f := range t.Failures {
			fmt.Fprintf(os.Stderr, "  invalid: %s\n", f)
		}
		return fmt.Errorf("%d ballots on the ledger do not verify; the chaincode should never have accepted them (run `fabvote verify`)", len(t.Failures))
	}
	if *productOut != "" {
		if err := atomicfile.WriteFile(*productOut, p.PublicKey.EncodeCiphertext(t.Product), 0o644); err != nil {
			return err
		}
		fmt.Printf("tally product of %d ballots written to %s (give it to the trustees: fabvote trustee decrypt)\n", t.Valid, *productOut)
	}
	if !decrypting {
		return nil
	}

	var res *election.Result
	if *paillierKey != "" {
		if len(shares)+len(partials) > 0 {
			return usagef("--paillier-key is for single-key elections; do not mix it with --share/--partial")
		}
		sk, err := paillier.ReadPrivateKeyFile(*paillierKey)
		if err != nil {
			return fmt.Errorf("--paillier-key: %w", err)
		}
		if res, err = audit.ResultFromKey(p, t, sk); err != nil {
			return err
		}
	} else {
		if p.Threshold == nil {
			return fmt.Errorf("election %q has a single key: use --paillier-key", m.ElectionID)
		}
		var parts []*threshold.PartialDecryption
		for _, s := range shares {
			ks, err := threshold.ReadKeyShareFile(s)
			if err != nil {
				return fmt.Errorf("--share %s: %w", s, err)
			}
			if err := ks.Check(p.Threshold); err != nil {
				return fmt.Errorf("--share %s does not belong to election %q: %w", s, m.ElectionID, err)
			}
			pd, err := ks.PartialDecrypt(rand.Reader, p.Threshold, t.Product)
			if err != nil {
				return fmt.Errorf("--share %s: partial decryption: %w", s, err)
			}
			parts = append(parts, pd)
		}
		for _, f := range partials {
			b, err := os.ReadFile(f)
			if err != nil {
				return fmt.Errorf("--partial: %w", err)
			}
			pd, err := threshold.ParsePartialDecryption(p.Threshold, b)
			if err != nil {
				return fmt.Errorf("--partial %s: %w", f, err)
			}
			if err := p.Threshold.VerifyPartial(t.Product, pd); err != nil {
				return fmt.Errorf("--partial %s (trustee %d) is not a decryption of the current tally product (was it made from an older product?): %w", f, pd.Index, err)
			}
			parts = append(parts, pd)
		}
		if len(parts) < p.Threshold.K {
			return fmt.Errorf("%d trustee share(s) given, %d of %d are needed", len(parts), p.Threshold.K, p.Threshold.L)
		}
		if res, err = audit.ResultFromPartials(p, t, parts); err != nil {
			return err
		}
		fmt.Printf("combined %d partial decryptions (threshold %d of %d)\n", len(parts), p.Threshold.K, p.Threshold.L)
	}
	enc, err := res.Marshal()
	if err != nil {
		return err
	}
	if *resultOut != "" {
		if err := atomicfile.WriteFile(*resultOut, enc, 0o644); err != nil {
			return err
		}
	}
	printCounts(m, res)
	if *noPublish {
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
	for i, c := range m.Candidates {
		fmt.Printf("  %-24s %d\n", c, r.Counts[i])
	}
}

func cmdTrusteeDecrypt(args []string) error {
	fs := newFlags("trustee decrypt", "--manifest FILE --share trustee-i.key --product product.bin --out partial-i.bin")
	manifest := fs.String("manifest", "", "the election's manifest.json")
	share := fs.String("share", "", "your key share")
	product := fs.String("product", "", "tally product from `tally --product-out`")
	out := fs.String("out", "", "partial decryption to write (give it to the tallier)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "manifest", "share", "product", "out"); err != nil {
		return err
	}
	m, _, err := loadManifest(*manifest)
	if err != nil {
		return err
	}
	p, err := election.Prepare(m)
	if err != nil {
		return err
	}
	if p.Threshold == nil {
		return fmt.Errorf("election %q has a single key, not trustee shares", m.ElectionID)
	}
	ks, err := threshold.ReadKeyShareFile(*share)
	if err != nil {
		return fmt.Errorf("--share: %w", err)
	}
	if err := ks.Check(p.Threshold); err != nil {
		return fmt.Errorf("--share %s does not belong to election %q: %w", *share, m.ElectionID, err)
	}
	pb, err := os.ReadFile(*product)
	if err != nil {
		return fmt.Errorf("--product: %w", err)
	}
	c, err := p.PublicKey.DecodeCiphertext(pb)
	if err != nil {
		return fmt.Errorf("--product %s: %w", *product, err)
	}
	pd, err := ks.PartialDecrypt(rand.Reader, p.Threshold, c)
	if err != nil {
		return err
	}
	enc, err := pd.Marshal(p.Threshold)
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(*out, enc, 0o644); err != nil {
		return err
	}
	fmt.Printf("trustee %d: partial decryption (with its proof) written to %s\n", pd.Index, *out)
	return nil
}

func cmdVerify(args []string) error {
	fs := newFlags("verify", "--election ID [--network FILE]   (or --manifest FILE for the id)")
	id := fs.String("election", "", "election id")
	manifest := fs.String("manifest", "", "take the election id from this manifest (the audit still reads the ledger's)")
	expect := fs.String("expect-counts", "", "also require these published counts (comma-separated, one per candidate), e.g. from the voters' recorded choices")
	var nf netFlags
	nf.register(fs, "user1")
	if err := parse(fs, args); err != nil {
		return err
	}
	var localManifest []byte
	if *manifest != "" {
		m, data, err := loadManifest(*manifest)
		if err != nil {
			return err
		}
		if *id != "" && *id != m.ElectionID {
			return usagef("--election %q and --manifest (election %q) disagree", *id, m.ElectionID)
		}
		*id, localManifest = m.ElectionID, data
	}
	if *id == "" {
		return usagef("--election (or --manifest) is required")
	}
	lc, err := nf.connect("")
	if err != nil {
		return err
	}
	defer lc.Conn.Close()
	ctx, cancel := signalContext()
	defer cancel()
	mb, err := lc.GetManifest(ctx, *id)
	if err != nil {
		return fmt.Errorf("reading the manifest of %q from the ledger: %w", *id, err)
	}
	rb, err := lc.GetResult(ctx, *id)
	if err != nil {
		return fmt.Errorf("reading the result of %q from the ledger: %w", *id, err)
	}
	l := &audit.Ledger{Manifest: mb, Ballots: lc.Ballots(ctx, *id, 0), Result: rb}
	if rb != nil {
		// A ballot counts if it committed before the result; the blocks
		// since the election opened say which ones did not, and show any
		// ballot deleted or rewritten (docs/PROTOCOL.md 7.6, 7.7).
		l.Order = lc.CommitOrder(ctx, *id)
	}
	rep := audit.Run(l, audit.Options{})
	if rep.ElectionID == "" {
		rep.ElectionID = *id
	}
	if localManifest != nil && string(localManifest) != string(mb) {
		rep.Failures = append(rep.Failures, audit.Failure{Kind: audit.KindManifest, Subject: "manifest",
			Err: "--manifest " + *manifest + " differs from the manifest on the ledger"})
	}
	if *expect != "" {
		checkExpectedCounts(rep, *expect)
	}
	rep.Write(os.Stdout)
	if !rep.OK() {
		return failedError{}
	}
	return nil
}

// checkExpectedCounts adds a failure to rep if the published counts differ
// from the expected ones.
func checkExpectedCounts(rep *audit.Report, spec string) {
	parts := splitList(spec)
	fail := func(msg string) {
		rep.Failures = append(rep.Failures, audit.Failure{Kind: "EXPECTED_COUNTS", Subject: "result", Err: msg})
	}
	if rep.Result == nil {
		fail("no result to compare with --expect-counts")
		return
	}
	if len(parts) != len(rep.Result.Counts) {
		fail(fmt.Sprintf("--expect-counts has %d numbers, the election has %d candidates", len(parts), len(rep.Result.Counts)))
		return
	}
	for i, p := range parts {
		want, err := strconv.ParseUint(p, 10, 64)
		if err != nil {
			fail(fmt.Sprintf("--expect-counts %q: %q is not a count", spec, p))
			return
		}
		if rep.Result.Counts[i] != want {
			name := fmt.Sprint(i)
			if rep.Manifest != nil {
				name = rep.Manifest.Candidates[i]
			}
			fail(fmt.Sprintf("%s has %d votes, the voters' recorded choices give %d", name, rep.Result.Counts[i], want))
		}
	}
}
