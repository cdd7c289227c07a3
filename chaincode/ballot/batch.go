package ballot

import (
	"crypto/rand"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fabvote/fabvote/crypto/zkp"
	"github.com/fabvote/fabvote/election"
)

// Batcher is an election.ProofVerifier that gathers the validity proofs of
// concurrent CastBallot calls and checks them together with zkp.VerifyBatch
// (one exponentiation by N for the whole batch instead of p per ballot).
// Every caller gets exactly its own verdict: when a combined check fails,
// zkp.VerifyBatch re-checks the items one by one and names the invalid ones.
//
// The first caller of a batch leads it: it waits until the batch holds Max
// proofs, or Wait has passed, or every cast in progress (see Enter) is in
// this batch, whichever comes first; then it verifies the batch and hands
// out the verdicts. So a lone cast never waits.
//
// Under load the batcher is self-clocking: when Wait has passed but another
// batch is still being verified, the leader keeps collecting until that
// verification ends (or its batch is full). Verification already keeps every
// core busy (zkp.VerifyBatch splits its work), so starting a second one
// early would only split the CPU between two small batches; collecting
// instead lets the batch size follow the arrival rate, and per-ballot cost
// falls with batch size (chaincode/README.md). A cast then waits at most for
// the batch ahead of it, which it would have waited for on the CPU anyway.
type Batcher struct {
	max  int
	wait time.Duration
	// verify checks a batch; zkp.VerifyBatch with crypto/rand weights by
	// default (tests substitute it to count calls).
	verify func([]zkp.BatchItem) []error

	mu        sync.Mutex
	cur       *batch        // the batch being filled, nil if none
	active    int           // casts between Enter and the end of Verify (or Abandon)
	verifying int           // batches being verified
	idle      chan struct{} // closed (and replaced) whenever a verification ends

	batches atomic.Uint64
	items   atomic.Uint64
}

type batch struct {
	items   []zkp.BatchItem
	ballots int // the casts whose items are in the batch
	errs    []error
	release chan struct{} // closed when the leader should stop waiting
	gone    bool          // no longer accepting items
	done    chan struct{} // closed when errs is set
}

// NewBatcher returns a batcher of the proofs of at most max ballots per
// batch, waiting at most wait for a batch to fill.
func NewBatcher(max int, wait time.Duration) *Batcher {
	if max < 1 {
		max = 1
	}
	return &Batcher{max: max, wait: wait, idle: make(chan struct{}), verify: func(items []zkp.BatchItem) []error {
		return zkp.VerifyBatch(rand.Reader, items)
	}}
}

// Enter announces a cast in progress that will probably call Verify; the end
// of Verify, or Abandon, ends it. A batch's leader stops waiting as soon as
// every announced cast is in its batch. Casts that never Enter still get
// their verdict; they just make that shortcut fire early.
func (b *Batcher) Enter() {
	b.mu.Lock()
	b.active++
	b.mu.Unlock()
}

// Abandon ends an Enter whose cast was rejected before reaching Verify.
func (b *Batcher) Abandon() { b.leave() }

func (b *Batcher) leave() {
	b.mu.Lock()
	if b.active > 0 {
		b.active--
	}
	b.releaseLocked()
	b.mu.Unlock()
}

// releaseLocked closes the current batch if waiting cannot make it larger.
func (b *Batcher) releaseLocked() {
	if bt := b.cur; bt != nil && (bt.ballots >= b.max || b.active <= bt.ballots) {
		b.closeLocked(bt)
	}
}

func (b *Batcher) closeLocked(bt *batch) {
	if !bt.gone {
		bt.gone = true
		if b.cur == bt {
			b.cur = nil // later callers start a new batch
		}
		close(bt.release)
	}
}

// Verify implements election.ProofVerifier: it adds a ballot's proofs to
// the batch and returns the first of their verdicts that is an error.
func (b *Batcher) Verify(ps election.Proofs) error {
	items := ps.Items
	defer b.leave()
	b.mu.Lock()
	bt := b.cur
	leader := bt == nil
	if leader {
		bt = &batch{release: make(chan struct{}), done: make(chan struct{})}
		b.cur = bt
	}
	first := len(bt.items)
	bt.items = append(bt.items, items...)
	bt.ballots++
	b.releaseLocked()
	b.mu.Unlock()
	verdict := func() error { return ps.Verdict(bt.errs[first : first+len(items)]) }

	if !leader {
		<-bt.done
		return verdict()
	}
	if b.wait > 0 {
		t := time.NewTimer(b.wait)
		select {
		case <-bt.release:
		case <-t.C:
		}
		t.Stop()
	}
	b.mu.Lock()
	// Self-clocking (see the type's doc): while another batch is verified,
	// keep collecting. A batch is released when full (releaseLocked), and
	// every verification ends, so this loop ends.
	for b.verifying > 0 && !bt.gone {
		idle := b.idle
		b.mu.Unlock()
		select {
		case <-bt.release:
		case <-idle:
		}
		b.mu.Lock()
	}
	b.closeLocked(bt)
	b.verifying++
	b.mu.Unlock()
	// No one appends to bt.items once it is gone.
	bt.errs = b.run(bt.items)
	b.mu.Lock()
	b.verifying--
	close(b.idle)
	b.idle = make(chan struct{})
	b.mu.Unlock()
	close(bt.done)
	return verdict()
}

// run verifies a batch and never leaves a waiter without a verdict: a panic
// or a malformed answer from the verifier becomes an error for every item.
func (b *Batcher) run(items []zkp.BatchItem) (errs []error) {
	b.batches.Add(1)
	b.items.Add(uint64(len(items)))
	defer func() {
		if r := recover(); r != nil {
			errs = fill(len(items), fmt.Errorf("batch verifier panicked: %v", r))
		}
	}()
	errs = b.verify(items)
	if len(errs) != len(items) {
		return fill(len(items), fmt.Errorf("batch verifier returned %d verdicts for %d proofs", len(errs), len(items)))
	}
	return errs
}

func fill(n int, err error) []error {
	out := make([]error, n)
	for i := range out {
		out[i] = err
	}
	return out
}

// BatchStats reports how many batches and proofs (all ballots' statements)
// the batcher has verified.
func (b *Batcher) BatchStats() (batches, items uint64) { return b.batches.Load(), b.items.Load() }

var _ election.ProofVerifier = (*Batcher)(nil)
