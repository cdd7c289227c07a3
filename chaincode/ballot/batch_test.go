package ballot

import (
	"fmt"
	"math/big"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fabvote/fabvote/crypto/zkp"
	"github.com/fabvote/fabvote/election"
)

// fakeVerify judges item C: even is valid, odd is invalid, with an error
// naming the value, so a caller that got someone else's verdict is caught.
func fakeVerify(calls *atomic.Int64, sizes *sync.Map) func([]zkp.BatchItem) []error {
	return func(items []zkp.BatchItem) []error {
		calls.Add(1)
		sizes.Store(len(items), true)
		errs := make([]error, len(items))
		for i, it := range items {
			if it.C.Bit(0) == 1 {
				errs[i] = fmt.Errorf("invalid %d", it.C.Int64())
			}
		}
		return errs
	}
}

// oneItem is a ballot of one proof whose ciphertext is c (fakeVerify's verdict).
func oneItem(c *big.Int) election.Proofs { return election.Proofs{Items: []zkp.BatchItem{{C: c}}} }

// waitAll fails the test instead of hanging if a caller never gets a verdict.
func waitAll(t *testing.T, wg *sync.WaitGroup) {
	t.Helper()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("deadlock: a caller never got its verdict")
	}
}

func TestBatcherVerdicts(t *testing.T) {
	for _, tc := range []struct {
		name    string
		max     int
		callers int
		wait    time.Duration
	}{
		{"max 1", 1, 50, time.Hour},
		{"max 8", 8, 200, time.Millisecond},
		{"max 64, long wait", 64, 300, time.Hour},
		{"no wait", 16, 100, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int64
			var sizes sync.Map
			b := NewBatcher(tc.max, tc.wait)
			b.verify = fakeVerify(&calls, &sizes)
			var wg sync.WaitGroup
			errs := make([]error, tc.callers)
			for i := 0; i < tc.callers; i++ {
				b.Enter()
			}
			for i := 0; i < tc.callers; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					errs[i] = b.Verify(oneItem(big.NewInt(int64(i))))
				}()
			}
			waitAll(t, &wg)
			for i, err := range errs {
				want := i%2 == 1
				if (err != nil) != want || (err != nil && err.Error() != fmt.Sprintf("fabvote PROOF: proof 0 does not verify: invalid %d", i)) {
					t.Fatalf("caller %d got %v", i, err)
				}
			}
			batches, items := b.BatchStats()
			if items != uint64(tc.callers) || batches != uint64(calls.Load()) {
				t.Fatalf("stats: %d batches, %d items; want %d items", batches, items, tc.callers)
			}
			sizes.Range(func(k, _ any) bool {
				if k.(int) > tc.max {
					t.Errorf("a batch of %d exceeds max %d", k.(int), tc.max)
				}
				return true
			})
		})
	}
}

// TestBatcherBallotsOfSeveralProofs: the limit counts ballots, not proofs,
// and each caller gets the verdict on its own proofs, naming the first that
// fails.
func TestBatcherBallotsOfSeveralProofs(t *testing.T) {
	var calls atomic.Int64
	var sizes sync.Map
	const callers, perBallot, max = 12, 3, 4
	b := NewBatcher(max, time.Hour)
	b.verify = fakeVerify(&calls, &sizes)
	for i := 0; i < callers; i++ {
		b.Enter()
	}
	errs := make([]error, callers)
	var wg sync.WaitGroup
	for i := 0; i < callers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			items := make([]zkp.BatchItem, perBallot)
			for k := range items {
				v := int64(2 * (i*perBallot + k)) // even: valid
				if i%3 == 1 && k == 2 {
					v++ // ballot i's third proof is invalid
				}
				items[k] = zkp.BatchItem{C: big.NewInt(v)}
			}
			errs[i] = b.Verify(election.Proofs{Items: items})
		}()
	}
	waitAll(t, &wg)
	for i, err := range errs {
		want := fmt.Sprintf("fabvote PROOF: proof 2 does not verify: invalid %d", 2*(i*perBallot+2)+1)
		if (i%3 == 1) != (err != nil) || (err != nil && err.Error() != want) {
			t.Fatalf("ballot %d: err %v, want an error only for every third, %q", i, err, want)
		}
	}
	_, proofs := b.BatchStats()
	if proofs != callers*perBallot {
		t.Fatalf("the batcher saw %d proofs, want %d", proofs, callers*perBallot)
	}
	sizes.Range(func(k, _ any) bool {
		if k.(int) > max*perBallot {
			t.Errorf("a batch of %d proofs holds more than %d ballots", k.(int), max)
		}
		return true
	})
}

// A leader waiting for announced casts is released when they abandon, even
// with an unbounded wait.
func TestBatcherAbandonReleasesLeader(t *testing.T) {
	var calls atomic.Int64
	var sizes sync.Map
	b := NewBatcher(64, time.Hour)
	b.verify = fakeVerify(&calls, &sizes)
	for i := 0; i < 5; i++ {
		b.Enter()
	}
	var wg sync.WaitGroup
	var err error
	wg.Add(1)
	go func() { defer wg.Done(); err = b.Verify(oneItem(big.NewInt(2))) }()
	for i := 0; i < 4; i++ {
		b.Abandon()
	}
	waitAll(t, &wg)
	if err != nil || calls.Load() != 1 {
		t.Fatalf("err %v, %d batches", err, calls.Load())
	}
}

func TestBatcherVerifierFailures(t *testing.T) {
	for _, tc := range []struct {
		name   string
		verify func([]zkp.BatchItem) []error
	}{
		{"panic", func([]zkp.BatchItem) []error { panic("boom") }},
		{"short answer", func(items []zkp.BatchItem) []error { return make([]error, len(items)-1) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := NewBatcher(4, time.Hour)
			b.verify = tc.verify
			var wg sync.WaitGroup
			errs := make([]error, 12)
			for range errs {
				b.Enter()
			}
			for i := range errs {
				wg.Add(1)
				go func() { defer wg.Done(); errs[i] = b.Verify(oneItem(big.NewInt(0))) }()
			}
			waitAll(t, &wg)
			for i, err := range errs {
				if err == nil {
					t.Fatalf("caller %d accepted although the verifier failed", i)
				}
			}
		})
	}
}

func TestConfigFromEnv(t *testing.T) {
	env := func(kv ...string) func(string) (string, bool) {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
	}
	cfg, err := ConfigFromEnv(env())
	if err != nil {
		t.Fatal(err)
	}
	if b, ok := cfg.Verifier.(*Batcher); !ok || b.max != DefaultBatchMax || b.wait != DefaultBatchWait || cfg.MaxClockSkew != DefaultMaxClockSkew {
		t.Fatalf("defaults: %+v", cfg)
	}
	cfg, err = ConfigFromEnv(env(EnvProofBatch, "off", EnvMaxClockSkew, "off", EnvAuthorityMSPs, "A, B"))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := cfg.Verifier.(*Batcher); ok || cfg.MaxClockSkew != 0 || len(cfg.AuthorityMSPs) != 2 || cfg.AuthorityMSPs[1] != "B" {
		t.Fatalf("off: %+v", cfg)
	}
	cfg, err = ConfigFromEnv(env(EnvProofBatch, "128", EnvProofBatchWait, "5ms", EnvMaxClockSkew, "30s"))
	if err != nil {
		t.Fatal(err)
	}
	if b, ok := cfg.Verifier.(*Batcher); !ok || b.max != 128 || b.wait != 5*time.Millisecond || cfg.MaxClockSkew != 30*time.Second {
		t.Fatalf("custom: %+v", cfg)
	}
	for _, bad := range [][]string{
		{EnvProofBatch, "many"}, {EnvProofBatch, "-1"}, {EnvProofBatchWait, "soon"},
		{EnvProofBatchWait, "5s"}, {EnvMaxClockSkew, "-1m"}, {EnvMaxClockSkew, "x"},
	} {
		if _, err := ConfigFromEnv(env(bad...)); err == nil {
			t.Errorf("%s=%q accepted", bad[0], bad[1])
		} else if !strings.Contains(err.Error(), bad[0]) {
			t.Errorf("error %q does not name %s", err, bad[0])
		}
	}
}

// TestBatcherCollectsWhileVerifying pins the self-clocking rule: once a
// batch's wait is over, it keeps collecting while another batch is being
// verified, and is verified as one batch when that one ends. The first
// batch's verification is held open by the test, so nothing depends on
// timing (the wait is 1 ns and always over).
func TestBatcherCollectsWhileVerifying(t *testing.T) {
	for _, tc := range []struct {
		name      string
		max       int
		later     int   // casts arriving while the first batch is verified
		started   int   // batches whose verification started before the first ended
		wantSizes []int // batch sizes in the order they are verified
	}{
		{"all later casts in one batch", 64, 3, 1, []int{1, 3}},
		{"full batches do not wait", 2, 4, 3, []int{1, 2, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := NewBatcher(tc.max, time.Nanosecond)
			unblock := make(chan struct{})
			var unblockOnce sync.Once
			release := func() { unblockOnce.Do(func() { close(unblock) }) }
			t.Cleanup(release) // a failing test must not leave the first batch blocked
			var mu sync.Mutex
			var sizes []int
			b.verify = func(items []zkp.BatchItem) []error {
				mu.Lock()
				first := len(sizes) == 0
				sizes = append(sizes, len(items))
				mu.Unlock()
				if first {
					<-unblock
				}
				errs := make([]error, len(items))
				for i, it := range items {
					if it.C.Bit(0) == 1 {
						errs[i] = fmt.Errorf("invalid %d", it.C.Int64())
					}
				}
				return errs
			}
			n := 1 + tc.later
			for i := 0; i < n; i++ {
				b.Enter()
			}
			errs := make([]error, n)
			var wg sync.WaitGroup
			cast := func(i int) {
				wg.Add(1)
				go func() { defer wg.Done(); errs[i] = b.Verify(oneItem(big.NewInt(int64(i)))) }()
			}
			verified := func() int { mu.Lock(); defer mu.Unlock(); return len(sizes) }
			cast(0)
			eventually(t, "the first batch is verified", func() bool { return verified() == 1 })
			for i := 1; i < n; i++ {
				cast(i)
				// Let cast i join (or close a full batch) before the next.
				eventually(t, fmt.Sprintf("cast %d joins the pending batch", i), func() bool {
					b.mu.Lock()
					defer b.mu.Unlock()
					return b.cur != nil && len(b.cur.items) == (i-1)%tc.max+1 || b.cur == nil && i%tc.max == 0
				})
			}
			// Full batches start at once; wait until they have.
			eventually(t, "full batches start", func() bool { return verified() >= tc.started })
			if got := verified(); got != tc.started {
				t.Fatalf("%d batches started while the first was being verified, want %d", got, tc.started)
			}
			release()
			waitAll(t, &wg)
			for i, err := range errs {
				if (err != nil) != (i%2 == 1) {
					t.Errorf("cast %d: verdict %v", i, err)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if fmt.Sprint(sizes) != fmt.Sprint(tc.wantSizes) {
				t.Fatalf("batch sizes %v, want %v", sizes, tc.wantSizes)
			}
		})
	}
}

// eventually polls cond until it holds, failing the test (instead of hanging)
// if it does not within 10 s. It bounds a wait for other goroutines; it
// measures nothing.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting: %s", what)
		}
		runtime.Gosched()
	}
}
