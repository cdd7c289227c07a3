package registrar

import (
	"fmt"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Limits bounds how fast one client address, and one voter id from one client
// address, may try, and locks either out after repeated failures (a wrong
// code, a used code). With codes of at least MinCodeBits a guess is hopeless
// anyway; the limits keep a guesser from burning the service's CPU and make a
// weak roll survivable. A voter id's limits are kept per address, so nobody
// can lock a voter out from somewhere else by sending wrong codes for it.
type Limits struct {
	IPRate, VoterRate   rate.Limit    // requests per second, sustained
	IPBurst, VoterBurst int           // requests at once
	IPFailures          int           // failures from one address within FailureWindow before lockout
	VoterFailures       int           // failures for one voter id from one address within FailureWindow before lockout
	FailureWindow       time.Duration // failures older than this are forgiven
	Lockout             time.Duration // how long a locked-out address or voter id is refused
	LogRate             rate.Limit    // failure log lines per second (the rest are counted)
}

// DefaultLimits suit one registration service facing the public.
func DefaultLimits() Limits {
	return Limits{
		IPRate: 20, IPBurst: 100,
		VoterRate: 0.2, VoterBurst: 5,
		IPFailures: 20, VoterFailures: 5,
		FailureWindow: 10 * time.Minute, Lockout: 15 * time.Minute,
		LogRate: 5,
	}
}

// Check refuses limits that would disable a guard by accident.
func (l Limits) Check() error {
	switch {
	case l.IPRate <= 0 || l.VoterRate <= 0 || l.IPBurst < 1 || l.VoterBurst < 1:
		return fmt.Errorf("rate limits must be positive (ip %v/s burst %d, voter %v/s burst %d)", l.IPRate, l.IPBurst, l.VoterRate, l.VoterBurst)
	case l.IPFailures < 1 || l.VoterFailures < 1:
		return fmt.Errorf("failure counts before lockout must be at least 1 (ip %d, voter %d)", l.IPFailures, l.VoterFailures)
	case l.FailureWindow <= 0 || l.Lockout <= 0 || l.LogRate <= 0:
		return fmt.Errorf("failure window, lockout and log rate must be positive")
	}
	return nil
}

// subject is one address or voter id: its request bucket, its failure
// bucket, and the end of its lockout.
type subject struct {
	requests, failures *rate.Limiter
	lockedUntil        time.Time
	lastSeen           time.Time
}

// limiter keeps subjects of one kind (addresses, or voter ids).
type limiter struct {
	mu        sync.Mutex
	kind      string
	rate      rate.Limit
	burst     int
	failures  int
	window    time.Duration
	lockout   time.Duration
	subjects  map[string]*subject
	lastSweep time.Time
}

func newLimiter(kind string, r rate.Limit, burst, failures int, window, lockout time.Duration) *limiter {
	return &limiter{kind: kind, rate: r, burst: burst, failures: failures, window: window, lockout: lockout, subjects: map[string]*subject{}}
}

func (l *limiter) get(key string, now time.Time) *subject {
	s := l.subjects[key]
	if s == nil {
		perFailure := rate.Every(l.window / time.Duration(l.failures))
		s = &subject{requests: rate.NewLimiter(l.rate, l.burst), failures: rate.NewLimiter(perFailure, l.failures)}
		l.subjects[key] = s
	}
	s.lastSeen = now
	l.sweep(now)
	return s
}

// sweep forgets subjects idle for longer than the window and lockout, so the
// map cannot grow without bound; it runs at most once a minute.
func (l *limiter) sweep(now time.Time) {
	if now.Sub(l.lastSweep) < time.Minute {
		return
	}
	l.lastSweep = now
	idle := l.window + l.lockout
	for k, s := range l.subjects {
		if now.Sub(s.lastSeen) > idle && now.After(s.lockedUntil) {
			delete(l.subjects, k)
		}
	}
}

// allow takes one request from key's bucket; it returns how long to wait when
// key is locked out or over its rate.
func (l *limiter) allow(key string, now time.Time) (time.Duration, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.get(key, now)
	if now.Before(s.lockedUntil) {
		wait := s.lockedUntil.Sub(now)
		return wait, fmt.Errorf("%s is locked out for %s after repeated failures", l.kind, wait.Round(time.Second))
	}
	if !s.requests.AllowN(now, 1) {
		return time.Second, fmt.Errorf("too many requests from this %s; slow down", l.kind)
	}
	return 0, nil
}

// fail records a failure for key and reports whether it starts a lockout.
func (l *limiter) fail(key string, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.get(key, now)
	if s.failures.AllowN(now, 1) {
		return false
	}
	s.lockedUntil = now.Add(l.lockout)
	return true
}

// Guard applies Limits to addresses and voter ids.
type Guard struct {
	ips, voters *limiter
	log         *rate.Limiter
	mu          sync.Mutex
	suppressed  int
	now         func() time.Time
}

// NewGuard checks l and returns its guard.
func NewGuard(l Limits) (*Guard, error) {
	if err := l.Check(); err != nil {
		return nil, err
	}
	return &Guard{
		ips:    newLimiter("client address", l.IPRate, l.IPBurst, l.IPFailures, l.FailureWindow, l.Lockout),
		voters: newLimiter("voter id from this address", l.VoterRate, l.VoterBurst, l.VoterFailures, l.FailureWindow, l.Lockout),
		log:    rate.NewLimiter(l.LogRate, int(l.LogRate)+1),
		now:    time.Now,
	}, nil
}

// AllowIP takes one request of the client address ip.
func (g *Guard) AllowIP(ip string) (time.Duration, error) { return g.ips.allow(ip, g.now()) }

// AllowVoter takes one request for voter id from the client address ip.
func (g *Guard) AllowVoter(ip, id string) (time.Duration, error) {
	return g.voters.allow(voterKey(ip, id), g.now())
}

// voterKey is the subject of a voter id's limits: the id as tried from one
// address. Keyed by the id alone, wrong codes from anywhere would lock the
// real voter out.
func voterKey(ip, id string) string { return ip + " " + id }

// Fail records a failed attempt by ip for voter id (id "" when the request
// named no valid id); it reports which of the two are now locked out.
func (g *Guard) Fail(ip, id string) (ipLocked, voterLocked bool) {
	now := g.now()
	ipLocked = g.ips.fail(ip, now)
	if id != "" {
		voterLocked = g.voters.fail(voterKey(ip, id), now)
	}
	return ipLocked, voterLocked
}

// LogOK reports whether a failure may be logged now; when it may, it also
// returns how many failure lines were suppressed since the last one.
func (g *Guard) LogOK() (bool, int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.log.AllowN(g.now(), 1) {
		g.suppressed++
		return false, 0
	}
	n := g.suppressed
	g.suppressed = 0
	return true, n
}
