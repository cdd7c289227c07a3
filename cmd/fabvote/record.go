package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/pflag"

	"github.com/fabvote/fabvote/internal/audit"
	"github.com/fabvote/fabvote/internal/ballotclient"
	"github.com/fabvote/fabvote/internal/bboard"
	"github.com/fabvote/fabvote/internal/cli"
	"github.com/fabvote/fabvote/internal/record"
)

// cmdRecordExport writes an election record (docs/RECORD.md) from the
// gateway peer's own org: its ledger values and its blocks, so that the
// record is one peer's copy, whose transactions filter is that peer's.
func cmdRecordExport(fs *pflag.FlagSet) func() error {
	id := fs.String("election", "", "election id")
	out := fs.String("out", "", "the record directory to write (must not exist, or be empty)")
	var nf netFlags
	nf.register(fs, "user1")
	return func() error {
		if err := required(fs, "election", "out"); err != nil {
			return err
		}
		return nf.withLedger("", func(ctx context.Context, lc *ballotclient.Client) error {
			return exportRecord(ctx, lc, *id, *out)
		})
	}
}

// exportRecord writes the record of election id to out from lc's own org.
func exportRecord(ctx context.Context, lc *ballotclient.Client, id, out string) error {
	lc.OwnOrgOnly = true
	// The values first: the blocks read after them reach their writes.
	mb, err := lc.GetManifest(ctx, id)
	if err != nil {
		return fmt.Errorf("reading the manifest of %q from the ledger: %w", id, err)
	}
	rb, err := lc.GetResult(ctx, id)
	if err != nil {
		return fmt.Errorf("reading the result of %q from the ledger: %w", id, err)
	}
	sum, err := record.Export(ctx, record.Source{Blocks: lc.Blocks(), Channel: lc.Conn.Channel(), Chaincode: lc.Conn.Chaincode(),
		ElectionID: id, Manifest: mb, Result: rb}, out)
	if err != nil {
		return fmt.Errorf("exporting the record of %q: %w", id, err)
	}
	fmt.Printf("record of election %q written to %s: blocks 0 .. %d, %d ballot(s), %d bytes\n", id, out, sum.LastBlock, sum.Ballots, sum.Bytes)
	fmt.Printf("genesis hash: %s (block 0's header hash: verifiers take it with --genesis-hash)\n", hex.EncodeToString(sum.GenesisHash))
	if rb == nil {
		fmt.Println("no result is published yet: the record has no result.json, and verifying it reports RESULT_MISSING")
	}
	return nil
}

// verifyRecord is `fabvote verify --record DIR`: offline, from the
// record's files alone.
func verifyRecord(dir, genesisHex, manifestPath string, expect expectFlags, asJSON bool) error {
	rep, err := runRecordVerify(dir, genesisHex, manifestPath)
	if err != nil {
		return err
	}
	if rep.Tally != nil {
		expect.check(rep)
	}
	return printReport(rep, asJSON)
}

// runRecordVerify verifies the record in dir against the anchors given;
// a directory that is no record is a usage error (exit 2).
func runRecordVerify(dir, genesisHex, manifestPath string) (*audit.Report, error) {
	opts, err := recordOptions(genesisHex, manifestPath)
	if err != nil {
		return nil, err
	}
	ctx, cancel := signalContext()
	defer cancel()
	rep, err := record.Verify(ctx, dir, opts)
	if errors.Is(err, record.ErrUnreadable) {
		return nil, cli.Usagef("--record %s: %v", dir, err)
	}
	return rep, err
}

// recordOptions turns --genesis-hash and --manifest, the two anchors an
// observer gets from the election's organisations, into the record
// verifier's options.
func recordOptions(genesisHex, manifestPath string) (record.Options, error) {
	var opts record.Options
	if genesisHex != "" {
		h, err := hex.DecodeString(genesisHex)
		if err != nil || len(h) != 32 {
			return opts, cli.Usagef("--genesis-hash %q is not 64 hex digits", genesisHex)
		}
		opts.GenesisHash = h
	}
	if manifestPath != "" {
		// Compared byte for byte, as the Python verifier does (RECORD.md
		// 9): a file that is no canonical manifest is simply not the
		// record's, a MANIFEST failure in the report; one that cannot be
		// read is a usage error.
		data, err := os.ReadFile(manifestPath)
		if err != nil {
			return opts, cli.Usagef("--manifest: %v", err)
		}
		opts.Manifest = data
	}
	return opts, nil
}

// printReport prints the human or the JSON report; a failing one is exit 1.
func printReport(rep *audit.Report, asJSON bool) error {
	if asJSON {
		if err := rep.WriteJSON(os.Stdout); err != nil {
			return err
		}
	} else {
		rep.Write(os.Stdout)
	}
	if !rep.OK() {
		return cli.ErrReported
	}
	return nil
}

// cmdRecordSite writes the public bulletin board of an election record: a
// static site with the election, the result, the verification's outcome
// and every ballot by hash. The site always shows this command's own
// verification of the record, with the anchors given; with --report it
// also shows another verifier's verdict (the independent Python
// verifier's `--json` output, for example), once that report's record
// digest shows it is of these very files (RECORD.md 7.1).
func cmdRecordSite(fs *pflag.FlagSet) func() error {
	dir := fs.String("record", "", "the election record (docs/RECORD.md)")
	out := fs.String("out", "", "the site directory to write (must not exist, or be empty)")
	reportFile := fs.String("report", "", "also show this other verifier's JSON report of the same record")
	genesis := fs.String("genesis-hash", "", "require this header hash (hex) of the channel's genesis block")
	manifest := fs.String("manifest", "", "require the record's manifest to be this published one")
	return func() error {
		if err := required(fs, "record", "out"); err != nil {
			return err
		}
		if err := notEmptyIfGiven(fs, "report", "genesis-hash", "manifest"); err != nil {
			return err
		}
		rep, err := runRecordVerify(*dir, *genesis, *manifest)
		if err != nil {
			return err
		}
		own, err := rep.JSON()
		if err != nil {
			return err
		}
		prov := bboard.Provenance{Verifier: "fabvote verify " + version, Time: time.Now().UTC()}
		if *reportFile != "" {
			if prov.Other, prov.Refused, err = otherReport(*reportFile, rep); err != nil {
				return fmt.Errorf("--report %s: %w", *reportFile, err)
			}
		}
		if err := bboard.BuildWith(*dir, own, *out, prov); err != nil {
			return err
		}
		fmt.Printf("bulletin board of the record %s written to %s (open %s); verification %s\n",
			*dir, *out, filepath.Join(*out, "index.html"), siteVerdict(rep.OK(), prov))
		return nil
	}
}

// otherReport reads another verifier's JSON report. It is shown only when
// its record digest is this record's; a report of other files is refused
// (named in refused) and the site shows this command's verification
// alone. A file that is no report of this election is an error.
func otherReport(path string, rep *audit.Report) (other *bboard.OtherReport, refused string, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, "", err
	}
	var fields map[string]json.RawMessage
	var ok bool
	var digest, id string
	err = json.Unmarshal(b, &fields)
	for _, f := range []struct {
		key string
		v   any
	}{{"ok", &ok}, {"electionID", &id}} {
		if err == nil {
			err = json.Unmarshal(fields[f.key], f.v)
		}
	}
	if err != nil {
		return nil, "", fmt.Errorf("is not a JSON report of a record with its ok and electionID: %w", err)
	}
	if id != rep.ElectionID {
		return nil, "", fmt.Errorf("the report is of election %q, the record of %q", id, rep.ElectionID)
	}
	// A verifier gives the digest once step 1 found every file; without
	// one on either side nothing ties the report to these files.
	want := hex.EncodeToString(rep.RecordDigest)
	if raw, has := fields["recordDigest"]; !has || json.Unmarshal(raw, &digest) != nil || digest == "" || want == "" || digest != want {
		return nil, fmt.Sprintf("the report in %s is not shown: its record digest %q is not this record's %q", filepath.Base(path), digest, want), nil
	}
	return &bboard.OtherReport{Name: "the report in " + filepath.Base(path), OK: ok}, "", nil
}

// siteVerdict is what the command prints of the site's outcome.
func siteVerdict(ok bool, prov bboard.Provenance) string {
	v := verdictWord(ok)
	switch {
	case prov.Refused != "":
		v += "; " + prov.Refused
	case prov.Other != nil:
		v += "; " + prov.Other.Name + ": " + verdictWord(prov.Other.OK)
	}
	return v
}

func verdictWord(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL: the site shows the failures"
}
