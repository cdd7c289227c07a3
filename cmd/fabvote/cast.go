package main

import (
	"bufio"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/atomicfile"
	"github.com/fabvote/fabvote/internal/ballotclient"
	"github.com/fabvote/fabvote/internal/ballotstream"
	"github.com/fabvote/fabvote/internal/gateway"
	"github.com/fabvote/fabvote/internal/progress"
)

func cmdCast(args []string) error {
	fs := newFlags("cast", "--ballot ballot.bin [--receipt-out receipt.json] | --ballots ballots.bin [--concurrency N] [--receipts-out receipts.jsonl]")
	ballot := fs.String("ballot", "", "one ballot file from `ballot`")
	ballots := fs.String("ballots", "", "ballot stream from `ballot --bulk`")
	receiptOut := fs.String("receipt-out", "", "write the receipt (JSON) here")
	receiptsOut := fs.String("receipts-out", "", "bulk: write one receipt per line here")
	concurrency := fs.Int("concurrency", 64, "bulk: transactions in flight")
	limit := fs.Int("limit", 0, "bulk: cast at most this many ballots (0: all)")
	quiet := fs.Bool("quiet", false, "bulk: no progress bar")
	var nf netFlags
	nf.register(fs, "user1")
	if err := parse(fs, args); err != nil {
		return err
	}
	if (*ballot == "") == (*ballots == "") {
		return usagef("give exactly one of --ballot or --ballots")
	}
	lc, err := nf.connect("")
	if err != nil {
		return err
	}
	defer lc.Conn.Close()
	ctx, cancel := signalContext()
	defer cancel()
	if *ballot != "" {
		data, err := os.ReadFile(*ballot)
		if err != nil {
			return fmt.Errorf("--ballot: %w", err)
		}
		rc, err := lc.CastBallot(ctx, data)
		if err != nil {
			return err
		}
		if *receiptOut != "" {
			if err := writeJSON(*receiptOut, rc, 0o644); err != nil {
				return err
			}
		}
		out, _ := json.Marshal(rc)
		fmt.Printf("ballot cast: tx %s, block %d, ballot hash %s\n%s\n", rc.TxID, rc.Block, rc.BallotHash, out)
		return nil
	}
	sum, err := castStream(ctx, lc, *ballots, *concurrency, *limit, *receiptsOut, !*quiet)
	if sum != nil {
		sum.print(os.Stdout)
	}
	if err != nil {
		return err
	}
	if sum.failed() > 0 {
		return fmt.Errorf("%d of %d ballots were not recorded", sum.failed(), sum.total)
	}
	return nil
}

// castSummary counts the outcome of a bulk cast.
type castSummary struct {
	mu        sync.Mutex
	total     int
	committed int
	retried   int
	rejected  map[string]int // by protocol code
	errors    map[string]int // other failures, by message
	elapsed   time.Duration
	firstErrs []string
}

func (s *castSummary) failed() int { return s.total - s.committed }

func (s *castSummary) print(w io.Writer) {
	tps := 0.0
	if s.elapsed > 0 {
		tps = float64(s.committed) / s.elapsed.Seconds()
	}
	fmt.Fprintf(w, "cast %d ballots in %s: %d committed, %d not recorded; throughput %.1f tx/s (committed ballots / wall time)\n",
		s.total, s.elapsed.Round(time.Millisecond), s.committed, s.failed(), tps)
	if s.retried > 0 {
		fmt.Fprintf(w, "  %d ballots needed more than one attempt (retryable failures)\n", s.retried)
	}
	for _, m := range []map[string]int{s.rejected, s.errors} {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(w, "  rejected %-12s %d\n", k, m[k])
		}
	}
	for _, e := range s.firstErrs {
		fmt.Fprintf(w, "  e.g. %s\n", e)
	}
}

func (s *castSummary) record(rc *ballotclient.CastReceipt, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil {
		s.committed++
		if rc.Attempts > 1 {
			s.retried++
		}
		return
	}
	var re *gateway.RejectError
	if errors.As(err, &re) {
		s.rejected[re.Code]++
	} else {
		msg := err.Error()
		if len(msg) > 80 {
			msg = msg[:80]
		}
		s.errors[msg]++
	}
	if len(s.firstErrs) < 3 {
		s.firstErrs = append(s.firstErrs, err.Error())
	}
}

// castStream casts every ballot of a stream with `concurrency` submitters.
func castStream(ctx context.Context, lc *ballotclient.Client, path string, concurrency, limit int, receiptsOut string, showBar bool) (*castSummary, error) {
	total, err := countStream(path, limit)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--ballots: %w", err)
	}
	defer f.Close()
	r, err := ballotstream.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("--ballots %s: %w", path, err)
	}
	var rw *bufio.Writer
	var rf *atomicfile.File
	if receiptsOut != "" {
		if rf, err = atomicfile.Create(receiptsOut, 0o644); err != nil {
			return nil, err
		}
		defer rf.Abort()
		rw = bufio.NewWriter(rf)
	}
	var rmu sync.Mutex
	if concurrency < 1 {
		concurrency = 1
	}
	sum := &castSummary{total: total, rejected: map[string]int{}, errors: map[string]int{}}
	fmt.Fprintf(os.Stderr, "casting %d ballots from %s with %d in flight as %s\n", total, path, concurrency, lc.Conn.MSPID)
	var bar *progress.Bar
	if showBar {
		bar = progress.New(os.Stderr, "cast", total)
	}
	jobs := make(chan []byte, concurrency)
	var wg sync.WaitGroup
	t0 := time.Now()
	for w := 0; w < concurrency; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range jobs {
				rc, err := lc.CastBallot(ctx, b)
				sum.record(rc, err)
				if err == nil && rw != nil {
					line, _ := json.Marshal(rc)
					rmu.Lock()
					rw.Write(append(line, '\n'))
					rmu.Unlock()
				}
				if bar != nil {
					bar.Add(1)
				}
			}
		}()
	}
	var readErr error
	for i := 0; i < total; i++ {
		b, err := r.Next()
		if err != nil {
			readErr = fmt.Errorf("--ballots %s: %w", path, err)
			break
		}
		select {
		case jobs <- b:
		case <-ctx.Done():
			readErr = errors.New("interrupted")
		}
		if readErr != nil {
			break
		}
	}
	close(jobs)
	wg.Wait()
	sum.elapsed = time.Since(t0)
	if bar != nil {
		bar.Finish()
	}
	if readErr != nil {
		return sum, readErr
	}
	if rw != nil {
		if err := rw.Flush(); err != nil {
			return sum, err
		}
		if err := rf.Commit(); err != nil {
			return sum, err
		}
	}
	return sum, nil
}

// countStream counts the records of a ballot stream (at most limit if > 0)
// without keeping them, so progress and throughput have a denominator.
func countStream(path string, limit int) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("--ballots: %w", err)
	}
	defer f.Close()
	r, err := ballotstream.NewReader(f)
	if err != nil {
		return 0, fmt.Errorf("--ballots %s: %w", path, err)
	}
	n := 0
	for limit <= 0 || n < limit {
		if _, err := r.Next(); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return 0, fmt.Errorf("--ballots %s: %w", path, err)
		}
		n++
	}
	return n, nil
}

func cmdReceiptCheck(args []string) error {
	fs := newFlags("receipt check", "--receipt receipt.json [--ballot ballot.bin] [--network FILE]")
	receipt := fs.String("receipt", "", "receipt from `cast --receipt-out`")
	ballot := fs.String("ballot", "", "your copy of the ballot: also check its hash against the receipt")
	var nf netFlags
	nf.register(fs, "user1")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "receipt"); err != nil {
		return err
	}
	var rc ballotclient.CastReceipt
	if err := readJSON(*receipt, "receipt", &rc); err != nil {
		return err
	}
	if rc.ElectionID == "" || rc.Pseudonym == "" || rc.BallotHash == "" {
		return fmt.Errorf("--receipt %s: missing electionID, pseudonym or ballotHash", *receipt)
	}
	if *ballot != "" {
		data, err := os.ReadFile(*ballot)
		if err != nil {
			return fmt.Errorf("--ballot: %w", err)
		}
		h := election.BallotHash(data)
		if hex.EncodeToString(h[:]) != rc.BallotHash {
			return fmt.Errorf("--ballot %s does not match the receipt (hash %x, receipt %s)", *ballot, h, rc.BallotHash)
		}
	}
	lc, err := nf.connect("")
	if err != nil {
		return err
	}
	defer lc.Conn.Close()
	ctx, cancel := signalContext()
	defer cancel()
	got, err := lc.GetBallot(ctx, rc.ElectionID, rc.Pseudonym)
	if err != nil {
		return fmt.Errorf("ballot of voter %s not found on the ledger: %w", rc.Pseudonym, err)
	}
	var problems []string
	if !strings.EqualFold(got.BallotHash, rc.BallotHash) {
		problems = append(problems, fmt.Sprintf("the ledger holds ballot hash %s, the receipt says %s", got.BallotHash, rc.BallotHash))
	}
	if rc.TxID != "" && got.TxID != rc.TxID {
		problems = append(problems, fmt.Sprintf("the ledger says tx %s, the receipt says %s", got.TxID, rc.TxID))
	}
	if len(problems) > 0 {
		return fmt.Errorf("receipt does NOT match the ledger: %s", strings.Join(problems, "; "))
	}
	// Recorded is not yet counted: a ballot counts if it committed before
	// the result (docs/PROTOCOL.md 7.7).
	rb, err := lc.GetResult(ctx, rc.ElectionID)
	if err != nil {
		return fmt.Errorf("the ballot is recorded, but reading the result failed: %w", err)
	}
	counted := "no result is published yet"
	if rb != nil {
		o, err := lc.CommitOrder(ctx, rc.ElectionID)()
		if err != nil {
			return fmt.Errorf("the ballot is recorded, but reading the commit order failed: %w", err)
		}
		for _, lb := range o.Late {
			if lb.Entry.Pseudonym != got.Pseudonym {
				continue
			}
			if lb.Entry.TxID != got.TxID || lb.Deleted {
				return fmt.Errorf("tx %s (block %d) wrote voter %s's ballot key after the result, which the contract never does: run fabvote verify",
					lb.Entry.TxID, lb.Block, got.Pseudonym)
			}
			return fmt.Errorf("the ballot %s of voter %s is recorded (tx %s), but it committed in block %d, after the result (block %d): the result does NOT count it",
				got.BallotHash, got.Pseudonym, got.TxID, lb.Block, o.ResultBlock)
		}
		counted = fmt.Sprintf("it committed before the result (block %d), so the result must count it (fabvote verify checks that it does)", o.ResultBlock)
	}
	fmt.Printf("OK: the ballot %s of voter %s is recorded as cast in election %q (tx %s); %s\n", got.BallotHash, got.Pseudonym, got.ElectionID, got.TxID, counted)
	return nil
}
