package main

import (
	"bufio"
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/fabvote/fabvote/crypto/votecode"
	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/atomicfile"
	"github.com/fabvote/fabvote/internal/ballotstream"
	"github.com/fabvote/fabvote/internal/cli"
	"github.com/fabvote/fabvote/internal/easigner"
	"github.com/fabvote/fabvote/internal/progress"
)

// ballotOptions are the flags of `ballot`.
type ballotOptions struct {
	manifest, voterKey, token string
	choice                    []string
	out                       string
	bulk                      bool
	voters                    int
	votersFile, choices       string
	choicesOut                string
	workers                   int
	quiet                     bool
	ea                        eaFlags
}

func cmdBallot(fs *pflag.FlagSet) func() error {
	var o ballotOptions
	fs.StringVar(&o.manifest, "manifest", "", "the election's manifest.json")
	fs.StringVar(&o.voterKey, "voter-key", "", "your voter key (PEM)")
	fs.StringVar(&o.token, "token", "", "your token file from fabvote register")
	fs.StringArrayVar(&o.choice, "choice", nil, "contest=options for each contest of your ballot style (repeat the flag, or separate with ;): options by name or 0-based index, comma-separated; blank for a blank vote; nothing for none. One contest: the options alone")
	fs.StringVar(&o.out, "out", "", "ballot file to write (bulk: ballot stream)")
	fs.BoolVar(&o.bulk, "bulk", false, "generate many voters' ballots on every core")
	fs.IntVar(&o.voters, "voters", 0, "bulk: number of voters to generate (keys + tokens signed with the EA key)")
	fs.StringVar(&o.votersFile, "voters-file", "", "bulk: voters from fabvote register --offline instead of --voters")
	fs.StringVar(&o.choices, "choices", "random", "bulk: random (valid selections for each voter's style), or a file with one line of choices (as --choice) per voter")
	fs.StringVar(&o.choicesOut, "choices-out", "", "bulk: secret record of each voter's choice (default OUT.choices.csv, 0600)")
	fs.IntVar(&o.workers, "workers", runtime.NumCPU(), "bulk: parallel workers")
	// The help and the CLI reference name the default, not this machine's
	// number of CPUs.
	fs.Lookup("workers").DefValue = "one per CPU"
	fs.BoolVar(&o.quiet, "quiet", false, "bulk: no progress bar")
	o.ea.register(fs)
	return func() error { return o.run(fs) }
}

// run makes the bulk ballots, or the one ballot once its flags are
// complete.
func (o *ballotOptions) run(fs *pflag.FlagSet) error {
	if err := required(fs, "manifest", "out"); err != nil {
		return err
	}
	m, _, err := loadManifest(o.manifest)
	if err != nil {
		return err
	}
	p, err := election.Prepare(m)
	if err != nil {
		return err
	}
	if o.bulk {
		if o.choicesOut == "" {
			o.choicesOut = o.out + ".choices.csv"
		}
		return bulkBallots(p, &o.ea, bulkConfig{voters: o.voters, votersFile: o.votersFile, choices: o.choices,
			out: o.out, choicesOut: o.choicesOut, workers: o.workers, quiet: o.quiet})
	}
	if err := required(fs, "voter-key", "token", "choice"); err != nil {
		return err
	}
	return o.singleBallot(p)
}

// singleBallot makes the voter's ballot with the token issued for the
// voter's key.
func (o *ballotOptions) singleBallot(p *election.Prepared) error {
	m := p.Manifest
	key, err := easigner.LoadPEM(o.voterKey)
	if err != nil {
		return fmt.Errorf("--voter-key: %w", err)
	}
	var tok tokenFile
	if err := readJSON(o.token, "token", &tok); err != nil {
		return err
	}
	pub, _ := key.PublicKey.Bytes()
	if tok.ElectionID != m.ElectionID {
		return fmt.Errorf("--token is for election %q, the manifest is %q", tok.ElectionID, m.ElectionID)
	}
	if !bytes.Equal(tok.VoterPub, pub) {
		return errors.New("--token was issued for another voter key than --voter-key")
	}
	style, err := p.TokenStyle(tok.Token)
	if err != nil {
		return fmt.Errorf("--token: %w", err)
	}
	sels, err := parseChoices(m, p.Layout, style, strings.Join(o.choice, ";"))
	if err != nil {
		return cli.Usagef("--choice: %v", err)
	}
	b, err := p.NewBallotSelections(rand.Reader, key, tok.Token, sels)
	if err != nil {
		return err
	}
	enc := b.Marshal()
	if err := atomicfile.WriteFile(o.out, enc, 0o600); err != nil {
		return err
	}
	h := election.BallotHash(enc)
	fmt.Printf("ballot for election %q written to %s (%d bytes); pseudonym %s, ballot hash %x\n",
		m.ElectionID, o.out, len(enc), b.PseudonymHex(), h)
	return nil
}

type bulkConfig struct {
	voters                   int
	votersFile, choices, out string
	choicesOut               string
	workers                  int
	quiet                    bool
}

type genJob struct {
	index int
	id    string
	key   *ecdsa.PrivateKey // nil: generate
	token []byte            // nil: issue with the EA key
}

type genResult struct {
	index   int
	ballot  []byte
	vkh     string
	style   int
	choices []votecode.Selection
	err     error
}

// bulkBallots streams voters through a pool of workers into the ballot
// stream; memory stays O(workers), whatever the number of voters.
func bulkBallots(p *election.Prepared, ea *eaFlags, cfg bulkConfig) error {
	src, err := bulkVoters(p, ea, cfg)
	if err != nil {
		return err
	}
	defer src.close()
	if src.total == 0 {
		return errors.New("no voters to generate ballots for")
	}
	if uint64(src.total) > p.Manifest.MaxVoters {
		return fmt.Errorf("%d voters exceed the election's max-voters %d", src.total, p.Manifest.MaxVoters)
	}
	choose, err := choiceSource(p, cfg.choices, src.total)
	if err != nil {
		return err
	}
	cfg.workers = max(cfg.workers, 1)
	out, err := createBulkOutput(p.Manifest, cfg.out, cfg.choicesOut)
	if err != nil {
		return err
	}
	defer out.abort()
	fmt.Fprintf(os.Stderr, "generating %d ballots for election %q on %d workers; %s\n", src.total, p.Manifest.ElectionID, cfg.workers, src.what)
	var bar *progress.Bar
	if !cfg.quiet {
		bar = progress.New(os.Stderr, "ballots", src.total)
	}
	results, feedErr := startGenerators(p, src, choose, cfg.workers)
	t0 := time.Now()
	firstErr := out.collect(results, bar)
	if err := <-feedErr; err != nil && firstErr == nil {
		firstErr = err
	}
	if firstErr != nil {
		return firstErr
	}
	if err := out.commit(); err != nil {
		return err
	}
	printBulkSummary(p.Manifest, out, cfg, time.Since(t0))
	return nil
}

// voterSource is where the voters of bulk mode come from.
type voterSource struct {
	what  string // for the progress line
	total int
	mint  *election.Minter // nil: every voter brings a token
	feed  func(chan<- genJob) error
	close func()
}

// bulkVoters is the voters file, or --voters N voters whose tokens the EA
// key issues.
func bulkVoters(p *election.Prepared, ea *eaFlags, cfg bulkConfig) (*voterSource, error) {
	switch {
	case cfg.votersFile != "" && cfg.voters != 0:
		return nil, cli.Usagef("give --voters or --voters-file, not both")
	case cfg.votersFile != "":
		n, err := countLines(cfg.votersFile)
		if err != nil {
			return nil, fmt.Errorf("--voters-file: %w", err)
		}
		feed := func(jobs chan<- genJob) error { return feedVotersFile(cfg.votersFile, jobs) }
		return &voterSource{what: "voters from " + cfg.votersFile, total: n, feed: feed, close: func() {}}, nil
	case cfg.voters > 0:
		mt, closeSigner, err := ea.minter(p.Manifest)
		if err != nil {
			return nil, err
		}
		ids := make([]string, cfg.voters)
		for i := range ids {
			ids[i] = offlineVoterID(i + 1)
		}
		// All of them against the election's bound at once, before any ballot.
		err = mt.AssignStyles(offlineStyles(p.Manifest, ids))
		if err == nil {
			err = mt.Admit(ids)
		}
		if err != nil {
			closeSigner()
			return nil, err
		}
		feed := func(jobs chan<- genJob) error {
			for i, id := range ids {
				jobs <- genJob{index: i, id: id}
			}
			return nil
		}
		return &voterSource{what: "offline registration (tokens signed locally with the EA key)",
			total: cfg.voters, mint: mt, feed: feed, close: closeSigner}, nil
	}
	return nil, cli.Usagef("bulk mode needs --voters N (with the EA key) or --voters-file")
}

// startGenerators starts the workers that make the ballots of the voters
// src feeds. results is closed once every ballot is made; feedErr then
// holds the feed's error.
func startGenerators(p *election.Prepared, src *voterSource, choose chooser, workers int) (results <-chan genResult, feedErr <-chan error) {
	jobs := make(chan genJob, workers*2)
	res := make(chan genResult, workers*2)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				res <- makeBallot(p, src.mint, j, choose)
			}
		}()
	}
	fe := make(chan error, 1)
	go func() {
		err := src.feed(jobs)
		close(jobs)
		fe <- err
	}()
	go func() { wg.Wait(); close(res) }()
	return res, fe
}

// bulkOutput is the ballot stream and the secret record of the voters'
// choices; both appear only on commit.
type bulkOutput struct {
	bf, cf *atomicfile.File
	bw     *ballotstream.Writer
	cw     *bufio.Writer
	m      *election.Manifest
	expect *expectedCounts
}

func createBulkOutput(m *election.Manifest, out, choicesOut string) (*bulkOutput, error) {
	bf, err := atomicfile.Create(out, 0o644)
	if err != nil {
		return nil, err
	}
	cf, err := atomicfile.Create(choicesOut, 0o600)
	if err != nil {
		bf.Abort()
		return nil, err
	}
	o := &bulkOutput{bf: bf, cf: cf, cw: bufio.NewWriter(cf), m: m, expect: newExpectedCounts(m)}
	if o.bw, err = ballotstream.NewWriter(bf); err != nil {
		o.abort()
		return nil, err
	}
	fmt.Fprintln(o.cw, choicesHeader)
	return o, nil
}

// collect writes the ballots of results as they come. After the first
// failure, which it returns, it drains the rest without writing.
func (o *bulkOutput) collect(results <-chan genResult, bar *progress.Bar) error {
	var firstErr error
	for r := range results {
		if r.err != nil {
			if firstErr == nil {
				firstErr = fmt.Errorf("voter %d: %w", r.index+1, r.err)
			}
			continue
		}
		if firstErr != nil {
			continue
		}
		if err := o.bw.Write(r.ballot); err != nil {
			firstErr = err
			continue
		}
		fmt.Fprintf(o.cw, "%s,%s\n", r.vkh, formatChoices(o.m, r.style, r.choices))
		o.expect.add(r.style, r.choices)
		if bar != nil {
			bar.Add(1)
		}
	}
	if bar != nil {
		bar.Finish()
	}
	return firstErr
}

func (o *bulkOutput) commit() error {
	if err := o.bw.Flush(); err != nil {
		return err
	}
	if err := o.cw.Flush(); err != nil {
		return err
	}
	if err := o.bf.Commit(); err != nil {
		return err
	}
	return o.cf.Commit()
}

// abort removes both files unless committed.
func (o *bulkOutput) abort() {
	o.bf.Abort()
	o.cf.Abort()
}

func printBulkSummary(m *election.Manifest, out *bulkOutput, cfg bulkConfig, elapsed time.Duration) {
	n := out.bw.Count()
	fmt.Printf("%d ballots written to %s in %s (%.1f ballots/s); secret choices in %s\n", n, cfg.out,
		elapsed.Round(time.Millisecond), float64(n)/elapsed.Seconds(), cfg.choicesOut)
	out.expect.print(os.Stdout)
}

func makeBallot(p *election.Prepared, mint *election.Minter, j genJob, choose chooser) genResult {
	res := genResult{index: j.index}
	key := j.key
	if key == nil {
		var err error
		if key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
			res.err = err
			return res
		}
	}
	pub, _ := key.PublicKey.Bytes()
	tok := j.token
	if tok == nil {
		var err error
		if tok, err = mint.Mint(j.id, pub); err != nil {
			res.err = err
			return res
		}
	}
	if res.style, res.err = p.TokenStyle(tok); res.err != nil {
		return res
	}
	if res.choices, res.err = choose(j.index, res.style); res.err != nil {
		return res
	}
	b, err := p.NewBallotSelections(rand.Reader, key, tok, res.choices)
	if err != nil {
		res.err = err
		return res
	}
	res.ballot = b.Marshal()
	res.vkh = b.PseudonymHex()
	return res
}

// chooser gives voter i of style its choices.
type chooser func(i, style int) ([]votecode.Selection, error)

// choiceSource is random valid choices, or the choices of a file's lines
// (one per voter, as --choice, blank lines skipped).
func choiceSource(p *election.Prepared, spec string, total int) (chooser, error) {
	if spec == "random" {
		return func(_, style int) ([]votecode.Selection, error) { return randomChoices(nil, p.Manifest, style) }, nil
	}
	data, err := os.ReadFile(spec)
	if err != nil {
		return nil, fmt.Errorf("--choices: %w (want random or a file)", err)
	}
	var lines []string
	var lineNo []int
	for i, line := range strings.Split(string(data), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			lines, lineNo = append(lines, line), append(lineNo, i+1)
		}
	}
	if len(lines) < total {
		return nil, fmt.Errorf("--choices %s has %d lines of choices for %d voters", spec, len(lines), total)
	}
	return func(i, style int) ([]votecode.Selection, error) {
		sels, err := parseChoices(p.Manifest, p.Layout, style, lines[i])
		if err != nil {
			return nil, fmt.Errorf("--choices %s:%d: %w", spec, lineNo[i], err)
		}
		return sels, nil
	}, nil
}

func countLines(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n := 0
	br := bufio.NewReader(f)
	for {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			n++
		}
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

func feedVotersFile(path string, jobs chan<- genJob) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	i := 0
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		l, k, err := parseVoterLine(line)
		if err != nil {
			return fmt.Errorf("--voters-file %s line %d: %w", path, i+1, err)
		}
		jobs <- genJob{index: i, id: l.VoterID, key: k, token: l.Token}
		i++
	}
	return sc.Err()
}
