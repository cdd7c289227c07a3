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
	"math/big"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/atomicfile"
	"github.com/fabvote/fabvote/internal/ballotstream"
	"github.com/fabvote/fabvote/internal/easigner"
	"github.com/fabvote/fabvote/internal/progress"
)

// ballotOptions are the flags of `ballot`.
type ballotOptions struct {
	manifest, voterKey, token string
	choice, out               string
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
	fs.StringVar(&o.choice, "choice", "", "candidate: 0-based index or exact name")
	fs.StringVar(&o.out, "out", "", "ballot file to write (bulk: ballot stream)")
	fs.BoolVar(&o.bulk, "bulk", false, "generate many voters' ballots on every core")
	fs.IntVar(&o.voters, "voters", 0, "bulk: number of voters to generate (keys + tokens signed with the EA key)")
	fs.StringVar(&o.votersFile, "voters-file", "", "bulk: voters from fabvote register --offline instead of --voters")
	fs.StringVar(&o.choices, "choices", "random", "bulk: random, or a file with one choice (index or name) per voter per line")
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
	j, err := parseChoice(m, o.choice)
	if err != nil {
		return usagef("--choice: %v", err)
	}
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
	b, err := p.NewBallot(rand.Reader, key, tok.Token, j)
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

// parseChoice accepts a 0-based index or an exact candidate name.
func parseChoice(m *election.Manifest, s string) (int, error) {
	if j, err := strconv.Atoi(s); err == nil {
		if j < 0 || j >= len(m.Candidates) {
			return 0, fmt.Errorf("%d is not a candidate index 0..%d", j, len(m.Candidates)-1)
		}
		return j, nil
	}
	for i, c := range m.Candidates {
		if c == s {
			return i, nil
		}
	}
	return 0, fmt.Errorf("%q is neither an index nor a candidate (%s)", s, strings.Join(m.Candidates, ", "))
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
	index  int
	ballot []byte
	vkh    string
	choice int
	err    error
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
	choose, err := choiceSource(p.Manifest, cfg.choices, src.total)
	if err != nil {
		return err
	}
	cfg.workers = max(cfg.workers, 1)
	out, err := createBulkOutput(cfg.out, cfg.choicesOut, len(p.Manifest.Candidates))
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
		return nil, usagef("give --voters or --voters-file, not both")
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
		if err := mt.Admit(ids); err != nil {
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
	return nil, usagef("bulk mode needs --voters N (with the EA key) or --voters-file")
}

// startGenerators starts the workers that make the ballots of the voters
// src feeds. results is closed once every ballot is made; feedErr then
// holds the feed's error.
func startGenerators(p *election.Prepared, src *voterSource, choose func(int) int, workers int) (results <-chan genResult, feedErr <-chan error) {
	jobs := make(chan genJob, workers*2)
	res := make(chan genResult, workers*2)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				res <- makeBallot(p, src.mint, j, choose(j.index))
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
	counts []uint64 // by candidate
}

func createBulkOutput(out, choicesOut string, candidates int) (*bulkOutput, error) {
	bf, err := atomicfile.Create(out, 0o644)
	if err != nil {
		return nil, err
	}
	cf, err := atomicfile.Create(choicesOut, 0o600)
	if err != nil {
		bf.Abort()
		return nil, err
	}
	o := &bulkOutput{bf: bf, cf: cf, cw: bufio.NewWriter(cf), counts: make([]uint64, candidates)}
	if o.bw, err = ballotstream.NewWriter(bf); err != nil {
		o.abort()
		return nil, err
	}
	fmt.Fprintln(o.cw, "pseudonym,choice")
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
		fmt.Fprintf(o.cw, "%s,%d\n", r.vkh, r.choice)
		o.counts[r.choice]++
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
	fmt.Printf("expected counts:")
	for i, c := range m.Candidates {
		fmt.Printf(" %s=%d", c, out.counts[i])
	}
	fmt.Println()
}

func makeBallot(p *election.Prepared, mint *election.Minter, j genJob, choice int) genResult {
	res := genResult{index: j.index, choice: choice}
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
	b, err := p.NewBallot(rand.Reader, key, tok, choice)
	if err != nil {
		res.err = err
		return res
	}
	res.ballot = b.Marshal()
	res.vkh = b.PseudonymHex()
	return res
}

// choiceSource returns voter index -> choice.
func choiceSource(m *election.Manifest, spec string, total int) (func(int) int, error) {
	if spec == "random" {
		n := big.NewInt(int64(len(m.Candidates)))
		return func(int) int {
			v, err := rand.Int(rand.Reader, n)
			if err != nil {
				panic(err) // crypto/rand does not fail on Linux
			}
			return int(v.Int64())
		}, nil
	}
	data, err := os.ReadFile(spec)
	if err != nil {
		return nil, fmt.Errorf("--choices: %w (want random or a file)", err)
	}
	var cs []int
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		j, err := parseChoice(m, line)
		if err != nil {
			return nil, fmt.Errorf("--choices %s:%d: %v", spec, i+1, err)
		}
		cs = append(cs, j)
	}
	if len(cs) < total {
		return nil, fmt.Errorf("--choices %s has %d choices for %d voters", spec, len(cs), total)
	}
	return func(i int) int { return cs[i] }, nil
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
