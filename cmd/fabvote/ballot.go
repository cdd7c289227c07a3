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

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/atomicfile"
	"github.com/fabvote/fabvote/internal/ballotstream"
	"github.com/fabvote/fabvote/internal/easigner"
	"github.com/fabvote/fabvote/internal/progress"
)

func cmdBallot(args []string) error {
	fs := newFlags("ballot", "--manifest FILE --voter-key voter.key --token token.json --choice N|NAME --out ballot.bin\n       fabvote ballot --bulk --manifest FILE (--voters N (--ea-key FILE | --pkcs11-…) | --voters-file voters.jsonl) --choices random|FILE --out ballots.bin")
	manifest := fs.String("manifest", "", "the election's manifest.json")
	voterKey := fs.String("voter-key", "", "your voter key (PEM)")
	tokenPath := fs.String("token", "", "your token file from `register`")
	choice := fs.String("choice", "", "candidate: 0-based index or exact name")
	out := fs.String("out", "", "ballot file to write (bulk: ballot stream)")
	bulk := fs.Bool("bulk", false, "generate many voters' ballots on every core")
	voters := fs.Int("voters", 0, "bulk: number of voters to generate (keys + tokens signed with the EA key)")
	votersFile := fs.String("voters-file", "", "bulk: voters from `register --offline` instead of --voters")
	choices := fs.String("choices", "random", "bulk: random, or a file with one choice (index or name) per voter per line")
	choicesOut := fs.String("choices-out", "", "bulk: secret record of each voter's choice (default OUT.choices.csv, 0600)")
	workers := fs.Int("workers", runtime.NumCPU(), "bulk: parallel workers")
	quiet := fs.Bool("quiet", false, "bulk: no progress bar")
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
	p, err := election.Prepare(m)
	if err != nil {
		return err
	}
	if *bulk {
		if *choicesOut == "" {
			*choicesOut = *out + ".choices.csv"
		}
		return bulkBallots(p, &ea, bulkConfig{voters: *voters, votersFile: *votersFile, choices: *choices,
			out: *out, choicesOut: *choicesOut, workers: *workers, quiet: *quiet})
	}
	if err := required(fs, "voter-key", "token", "choice"); err != nil {
		return err
	}
	j, err := parseChoice(m, *choice)
	if err != nil {
		return usagef("--choice: %v", err)
	}
	key, err := easigner.LoadPEM(*voterKey)
	if err != nil {
		return fmt.Errorf("--voter-key: %w", err)
	}
	var tok tokenFile
	if err := readJSON(*tokenPath, "token", &tok); err != nil {
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
	if err := atomicfile.WriteFile(*out, enc, 0o600); err != nil {
		return err
	}
	h := election.BallotHash(enc)
	fmt.Printf("ballot for election %q written to %s (%d bytes); pseudonym %s, ballot hash %x\n",
		m.ElectionID, *out, len(enc), b.PseudonymHex(), h)
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
	var mint *election.Minter
	var total int
	var feed func(chan<- genJob) error
	switch {
	case cfg.votersFile != "" && cfg.voters != 0:
		return usagef("give --voters or --voters-file, not both")
	case cfg.votersFile != "":
		n, err := countLines(cfg.votersFile)
		if err != nil {
			return fmt.Errorf("--voters-file: %w", err)
		}
		total = n
		feed = func(jobs chan<- genJob) error { return feedVotersFile(cfg.votersFile, jobs) }
	case cfg.voters > 0:
		mt, closeSigner, err := ea.minter(p.Manifest)
		if err != nil {
			return err
		}
		defer closeSigner()
		mint, total = mt, cfg.voters
		feed = func(jobs chan<- genJob) error {
			for i := 0; i < cfg.voters; i++ {
				jobs <- genJob{index: i, id: offlineVoterID(i + 1)}
			}
			return nil
		}
	default:
		return usagef("bulk mode needs --voters N (with the EA key) or --voters-file")
	}
	if total == 0 {
		return errors.New("no voters to generate ballots for")
	}
	if uint64(total) > p.Manifest.MaxVoters {
		return fmt.Errorf("%d voters exceed the election's max-voters %d", total, p.Manifest.MaxVoters)
	}
	choose, err := choiceSource(p.Manifest, cfg.choices, total)
	if err != nil {
		return err
	}
	if cfg.workers < 1 {
		cfg.workers = 1
	}

	bf, err := atomicfile.Create(cfg.out, 0o644)
	if err != nil {
		return err
	}
	defer bf.Abort()
	cf, err := atomicfile.Create(cfg.choicesOut, 0o600)
	if err != nil {
		return err
	}
	defer cf.Abort()
	bw, err := ballotstream.NewWriter(bf)
	if err != nil {
		return err
	}
	cw := bufio.NewWriter(cf)
	fmt.Fprintln(cw, "pseudonym,choice")

	mode := "offline registration (tokens signed locally with the EA key)"
	if cfg.votersFile != "" {
		mode = "voters from " + cfg.votersFile
	}
	fmt.Fprintf(os.Stderr, "generating %d ballots for election %q on %d workers; %s\n", total, p.Manifest.ElectionID, cfg.workers, mode)
	var bar *progress.Bar
	if !cfg.quiet {
		bar = progress.New(os.Stderr, "ballots", total)
	}
	jobs := make(chan genJob, cfg.workers*2)
	results := make(chan genResult, cfg.workers*2)
	var wg sync.WaitGroup
	for w := 0; w < cfg.workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				results <- makeBallot(p, mint, j, choose(j.index))
			}
		}()
	}
	feedErr := make(chan error, 1)
	go func() {
		err := feed(jobs)
		close(jobs)
		feedErr <- err
	}()
	go func() { wg.Wait(); close(results) }()

	counts := make([]uint64, len(p.Manifest.Candidates))
	var firstErr error
	t0 := time.Now()
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
		if err := bw.Write(r.ballot); err != nil {
			firstErr = err
			continue
		}
		fmt.Fprintf(cw, "%s,%d\n", r.vkh, r.choice)
		counts[r.choice]++
		if bar != nil {
			bar.Add(1)
		}
	}
	if bar != nil {
		bar.Finish()
	}
	if err := <-feedErr; err != nil && firstErr == nil {
		firstErr = err
	}
	if firstErr != nil {
		return firstErr
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := cw.Flush(); err != nil {
		return err
	}
	if err := bf.Commit(); err != nil {
		return err
	}
	if err := cf.Commit(); err != nil {
		return err
	}
	el := time.Since(t0)
	fmt.Printf("%d ballots written to %s in %s (%.1f ballots/s); secret choices in %s\n", bw.Count(), cfg.out,
		el.Round(time.Millisecond), float64(bw.Count())/el.Seconds(), cfg.choicesOut)
	fmt.Printf("expected counts:")
	for i, c := range p.Manifest.Candidates {
		fmt.Printf(" %s=%d", c, counts[i])
	}
	fmt.Println()
	return nil
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
