package box

import (
	"encoding/base64"
	"fmt"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/fabvote/fabvote/election"
)

// Limits bound what one client address may ask of the box, and what the box
// asks of the gateway at once.
type Limits struct {
	// Ballots (and manifest reads and probes) per second from one client
	// address, sustained, and at once. One address may be a polling
	// station's or a household's NAT, so the default is generous: a ballot
	// carries its voter's token, and the contract refuses a second one.
	BallotRate  rate.Limit
	BallotBurst int
	// Spoiled ballots from one client address. Anyone may send one, and
	// each is a ledger write, so the default is strict: a voter audits a
	// ballot or two before casting.
	SpoilRate  rate.Limit
	SpoilBurst int
	// MaxInFlight bounds the submissions and reads waiting on the gateway
	// at once; the next is answered 503 at once, so that a flood meets a
	// refusal, not a queue of goroutines.
	MaxInFlight int
	// SubmitTimeout bounds one submission, from endorsement to the commit
	// status. A voter who hangs up does not cut it short: the ledger's
	// answer is still logged and counted.
	SubmitTimeout time.Duration
}

// DefaultLimits suit one organisation's box facing the public.
func DefaultLimits() Limits {
	return Limits{
		BallotRate: 10, BallotBurst: 50,
		SpoilRate: 0.1, SpoilBurst: 3,
		MaxInFlight:   512,
		SubmitTimeout: 90 * time.Second,
	}
}

// Check refuses limits that would disable a bound by accident.
func (l Limits) Check() error {
	switch {
	case l.BallotRate <= 0 || l.BallotBurst < 1 || l.SpoilRate <= 0 || l.SpoilBurst < 1:
		return fmt.Errorf("rate limits must be positive (ballots %v/s burst %d, spoiled %v/s burst %d)", l.BallotRate, l.BallotBurst, l.SpoilRate, l.SpoilBurst)
	case l.MaxInFlight < 1:
		return fmt.Errorf("in-flight submissions %d: want at least 1", l.MaxInFlight)
	case l.SubmitTimeout <= 0:
		return fmt.Errorf("submission timeout %v: want a positive duration", l.SubmitTimeout)
	}
	return nil
}

// Request body bounds. A ballot's body is its base64 (at most
// election.MaxBallotSize bytes encoded) in {"ballot":"…"}, with room for
// whitespace. A spoiled ballot is the format's own JSON, at most
// election.MaxSpoiledSize bytes.
var (
	maxBallotBody  = int64(base64.StdEncoding.EncodedLen(election.MaxBallotSize) + jsonOverhead)
	maxSpoiledBody = int64(election.MaxSpoiledSize)
)

const jsonOverhead = 256

// buckets are token buckets, one per client address. A bucket idle for as
// long as it takes to fill up is the same as a new one, so such buckets are
// forgotten, at most once a minute: the map cannot grow without bound.
type buckets struct {
	mu        sync.Mutex
	rate      rate.Limit
	burst     int
	idle      time.Duration
	m         map[string]*bucket
	lastSweep time.Time
}

type bucket struct {
	lim      *rate.Limiter
	lastSeen time.Time
}

func newBuckets(r rate.Limit, burst int) *buckets {
	idle := time.Duration(math.Ceil(float64(burst)/float64(r))) * time.Second
	return &buckets{rate: r, burst: burst, idle: idle, m: map[string]*bucket{}}
}

// take takes one token of key's bucket; when there is none it returns false
// and how long until there is.
func (b *buckets) take(key string, now time.Time) (time.Duration, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.sweep(now)
	k := b.m[key]
	if k == nil {
		k = &bucket{lim: rate.NewLimiter(b.rate, b.burst)}
		b.m[key] = k
	}
	k.lastSeen = now
	res := k.lim.ReserveN(now, 1)
	if wait := res.DelayFrom(now); wait > 0 {
		res.CancelAt(now)
		return wait, false
	}
	return 0, true
}

func (b *buckets) sweep(now time.Time) {
	if now.Sub(b.lastSweep) < time.Minute {
		return
	}
	b.lastSweep = now
	for key, k := range b.m {
		if now.Sub(k.lastSeen) > b.idle {
			delete(b.m, key)
		}
	}
}

// roundUp is d in whole seconds, at least one: Retry-After's unit.
func roundUp(d time.Duration) time.Duration {
	return max(time.Second, (d + time.Second - 1).Truncate(time.Second))
}
