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

	"github.com/spf13/pflag"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/atomicfile"
	"github.com/fabvote/fabvote/internal/ballotclient"
	"github.com/fabvote/fabvote/internal/cli"
	"github.com/fabvote/fabvote/internal/gateway"
	"github.com/fabvote/fabvote/internal/loadgen"
	"github.com/fabvote/fabvote/internal/progress"
	"github.com/fabvote/fabvote/internal/record"
)

// castOptions are the flags of `cast`.
type castOptions struct {
	ballot, ballots         string
	receiptOut, receiptsOut string
	concurrency, limit      int
	quiet                   bool
	nf                      netFlags
}

func cmdCast(fs *pflag.FlagSet) func() error {
	var o castOptions
	fs.StringVar(&o.ballot, "ballot", "", "one ballot file from fabvote ballot")
	fs.StringVar(&o.ballots, "ballots", "", "ballot stream from fabvote ballot --bulk")
	fs.StringVar(&o.receiptOut, "receipt-out", "", "write the receipt (JSON) here")
	fs.StringVar(&o.receiptsOut, "receipts-out", "", "bulk: write one receipt per line here")
	fs.IntVar(&o.concurrency, "concurrency", 64, "bulk: transactions in flight")
	fs.IntVar(&o.limit, "limit", 0, "bulk: cast at most this many ballots (0: all)")
	fs.BoolVar(&o.quiet, "quiet", false, "bulk: no progress bar")
	o.nf.register(fs, "user1")
	return func() error {
		if (o.ballot == "") == (o.ballots == "") {
			return cli.Usagef("give exactly one of --ballot or --ballots")
		}
		return o.nf.withLedger("", o.cast)
	}
}

// cast casts the one ballot or the stream of ballots.
func (o *castOptions) cast(ctx context.Context, lc *ballotclient.Client) error {
	if o.ballot != "" {
		return castOne(ctx, lc, o.ballot, o.receiptOut)
	}
	sum, err := castStream(ctx, lc, o.ballots, o.concurrency, o.limit, o.receiptsOut, !o.quiet)
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

// castOne casts the ballot file path and prints its receipt, which it also
// writes to receiptOut if given.
func castOne(ctx context.Context, lc *ballotclient.Client, path, receiptOut string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("--ballot: %w", err)
	}
	rc, err := lc.CastBallot(ctx, data)
	if err != nil {
		return err
	}
	if receiptOut != "" {
		if err := writeJSON(receiptOut, rc, 0o644); err != nil {
			return err
		}
	}
	out, _ := json.Marshal(rc)
	fmt.Printf("ballot cast: tx %s, block %d, ballot hash %s\n%s\n", rc.TxID, rc.Block, rc.BallotHash, out)
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
	r, err := loadgen.OpenBallots(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	rw, err := newReceiptWriter(receiptsOut)
	if err != nil {
		return nil, err
	}
	defer rw.abort()
	concurrency = max(concurrency, 1)
	sum := &castSummary{total: total, rejected: map[string]int{}, errors: map[string]int{}}
	fmt.Fprintf(os.Stderr, "casting %d ballots from %s with %d in flight as %s\n", total, path, concurrency, lc.Conn.MSPID)
	var bar *progress.Bar
	if showBar {
		bar = progress.New(os.Stderr, "cast", total)
	}
	jobs := make(chan []byte, concurrency)
	t0 := time.Now()
	wait := startCasters(ctx, lc, concurrency, jobs, sum, rw, bar)
	readErr := sendBallots(ctx, r, path, total, jobs)
	close(jobs)
	wait()
	sum.elapsed = time.Since(t0)
	if bar != nil {
		bar.Finish()
	}
	if readErr != nil {
		return sum, readErr
	}
	return sum, rw.commit()
}

// startCasters starts n submitters that cast the ballots of jobs, count
// them in sum, write the receipts to rw and tick bar (both optional). The
// returned function waits for them to finish once jobs is closed.
func startCasters(ctx context.Context, lc *ballotclient.Client, n int, jobs <-chan []byte, sum *castSummary, rw *receiptWriter, bar *progress.Bar) (wait func()) {
	var wg sync.WaitGroup
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range jobs {
				rc, err := lc.CastBallot(ctx, b)
				sum.record(rc, err)
				if err == nil {
					rw.write(rc)
				}
				if bar != nil {
					bar.Add(1)
				}
			}
		}()
	}
	return wg.Wait
}

// sendBallots reads total ballots from r into jobs; it stops early on a
// read error or an interrupt, which it returns.
func sendBallots(ctx context.Context, r loadgen.Source, path string, total int, jobs chan<- []byte) error {
	for i := 0; i < total; i++ {
		b, err := r.Next()
		if err != nil {
			return fmt.Errorf("--ballots %s: %w", path, err)
		}
		select {
		case jobs <- b:
		case <-ctx.Done():
			return errors.New("interrupted")
		}
	}
	return nil
}

// receiptWriter writes the receipts of a bulk cast, one JSON line each,
// for all the submitters; the file appears only on commit. A nil
// receiptWriter (no --receipts-out) writes nothing.
type receiptWriter struct {
	mu sync.Mutex
	f  *atomicfile.File
	w  *bufio.Writer
}

func newReceiptWriter(path string) (*receiptWriter, error) {
	if path == "" {
		return nil, nil
	}
	f, err := atomicfile.Create(path, 0o644)
	if err != nil {
		return nil, err
	}
	return &receiptWriter{f: f, w: bufio.NewWriter(f)}, nil
}

func (rw *receiptWriter) write(rc *ballotclient.CastReceipt) {
	if rw == nil {
		return
	}
	line, _ := json.Marshal(rc)
	rw.mu.Lock()
	defer rw.mu.Unlock()
	rw.w.Write(append(line, '\n'))
}

func (rw *receiptWriter) commit() error {
	if rw == nil {
		return nil
	}
	if err := rw.w.Flush(); err != nil {
		return err
	}
	return rw.f.Commit()
}

// abort removes the file unless it was committed.
func (rw *receiptWriter) abort() {
	if rw != nil {
		rw.f.Abort()
	}
}

// countStream counts the records of a ballot stream (at most limit if > 0)
// without keeping them, so progress and throughput have a denominator.
func countStream(path string, limit int) (int, error) {
	r, err := loadgen.OpenBallots(path)
	if err != nil {
		return 0, err
	}
	defer r.Close()
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

func cmdReceiptCheck(fs *pflag.FlagSet) func() error {
	receipt := fs.String("receipt", "", "receipt from fabvote cast --receipt-out")
	ballot := fs.String("ballot", "", "your copy of the ballot: also check its hash against the receipt")
	recordDir := fs.String("record", "", "check against this election record (docs/RECORD.md) offline, with no identity and no network")
	genesis := fs.String("genesis-hash", "", "with --record: require this header hash (hex) of the channel's genesis block")
	manifest := fs.String("manifest", "", "with --record: require the record's manifest to be this published one")
	var nf netFlags
	nf.register(fs, "user1")
	return func() error {
		if err := required(fs, "receipt"); err != nil {
			return err
		}
		if err := notEmptyIfGiven(fs, "record", "genesis-hash", "manifest"); err != nil {
			return err
		}
		if *recordDir == "" && (*genesis != "" || *manifest != "") {
			return cli.Usagef("--genesis-hash and --manifest go with --record")
		}
		rc, err := readReceipt(*receipt)
		if err != nil {
			return err
		}
		if *ballot != "" {
			if err := checkBallotFile(*ballot, rc); err != nil {
				return err
			}
		}
		if *recordDir != "" {
			return checkReceiptInRecord(*recordDir, *genesis, *manifest, rc)
		}
		return nf.withLedger("", func(ctx context.Context, lc *ballotclient.Client) error {
			return checkReceipt(ctx, lc, rc)
		})
	}
}

// checkReceiptInRecord verifies the record with the anchors given, then
// finds the receipt's ballot in it: a voter needs neither a network file
// nor a Fabric identity.
func checkReceiptInRecord(dir, genesisHex, manifestPath string, rc *ballotclient.CastReceipt) error {
	rep, err := runRecordVerify(dir, genesisHex, manifestPath)
	if err != nil {
		return err
	}
	st, err := record.CheckReceipt(dir, rep, record.Receipt{ElectionID: rc.ElectionID, Pseudonym: rc.Pseudonym, BallotHash: rc.BallotHash, TxID: rc.TxID})
	if err != nil {
		return fmt.Errorf("receipt does NOT check out against the record %s: %w", dir, err)
	}
	verdict := "the result counts it"
	if !st.Counted {
		verdict = st.Note
	}
	anchors := "the record is anchored by --genesis-hash and --manifest"
	switch {
	case genesisHex == "" && manifestPath == "":
		anchors = "no anchors given: compare the record's genesis hash and manifest with the published ones"
	case genesisHex == "":
		anchors = "no --genesis-hash given: compare the record's genesis hash with the published one"
	case manifestPath == "":
		anchors = "no --manifest given: compare the record's manifest with the published one"
	}
	fmt.Printf("OK: the ballot %s of voter %s is in the verified record of election %q (tx %s, block %d); %s (%s)\n",
		st.Entry.BallotHash, st.Entry.Pseudonym, rc.ElectionID, st.Entry.TxID, st.Entry.Block, verdict, anchors)
	if !st.Counted && rep.Result != nil {
		return cli.ErrReported
	}
	return nil
}

// readReceipt reads a receipt that names the ballot it is for.
func readReceipt(path string) (*ballotclient.CastReceipt, error) {
	var rc ballotclient.CastReceipt
	if err := readJSON(path, "receipt", &rc); err != nil {
		return nil, cli.Usagef("%v", err)
	}
	if rc.ElectionID == "" || rc.Pseudonym == "" || rc.BallotHash == "" {
		return nil, cli.Usagef("--receipt %s: missing electionID, pseudonym or ballotHash", path)
	}
	return &rc, nil
}

// checkBallotFile checks that the voter's copy of the ballot is the one
// the receipt is for.
func checkBallotFile(path string, rc *ballotclient.CastReceipt) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("--ballot: %w", err)
	}
	h := election.BallotHash(data)
	if hex.EncodeToString(h[:]) != rc.BallotHash {
		return fmt.Errorf("--ballot %s does not match the receipt (hash %x, receipt %s)", path, h, rc.BallotHash)
	}
	return nil
}

// checkReceipt checks that the ledger holds the receipt's ballot and says
// whether the result counts it.
func checkReceipt(ctx context.Context, lc *ballotclient.Client, rc *ballotclient.CastReceipt) error {
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
	counted, err := countedStatus(ctx, lc, rc.ElectionID, got)
	if err != nil {
		return err
	}
	fmt.Printf("OK: the ballot %s of voter %s is recorded as cast in election %q (tx %s); %s\n", got.BallotHash, got.Pseudonym, got.ElectionID, got.TxID, counted)
	return nil
}

// countedStatus says whether the result of election id counts the
// recorded ballot got: recorded is not yet counted, a ballot counts if it
// committed before the result (docs/PROTOCOL.md 7.7). A ballot that
// committed after the result is an error.
func countedStatus(ctx context.Context, lc *ballotclient.Client, id string, got *election.Receipt) (string, error) {
	rb, err := lc.GetResult(ctx, id)
	if err != nil {
		return "", fmt.Errorf("the ballot is recorded, but reading the result failed: %w", err)
	}
	if rb == nil {
		return "no result is published yet", nil
	}
	o, err := lc.CommitOrder(ctx, id)()
	if err != nil {
		return "", fmt.Errorf("the ballot is recorded, but reading the commit order failed: %w", err)
	}
	for _, lb := range o.Late {
		if lb.Entry.Pseudonym != got.Pseudonym {
			continue
		}
		if lb.Entry.TxID != got.TxID || lb.Deleted {
			return "", fmt.Errorf("tx %s (block %d) wrote voter %s's ballot key after the result, which the contract never does: run fabvote verify",
				lb.Entry.TxID, lb.Block, got.Pseudonym)
		}
		return "", fmt.Errorf("the ballot %s of voter %s is recorded (tx %s), but it committed in block %d, after the result (block %d): the result does NOT count it",
			got.BallotHash, got.Pseudonym, got.TxID, lb.Block, o.ResultBlock)
	}
	return fmt.Sprintf("it committed before the result (block %d), so the result must count it (fabvote verify checks that it does)", o.ResultBlock), nil
}
