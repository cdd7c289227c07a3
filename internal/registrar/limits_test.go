package registrar

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

// fakeClock drives a Guard's time.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

func testGuard(t *testing.T, l Limits) (*Guard, *fakeClock) {
	t.Helper()
	g, err := NewGuard(l)
	if err != nil {
		t.Fatal(err)
	}
	c := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	g.now = c.now
	return g, c
}

func TestGuardRequestRate(t *testing.T) {
	l := openLimits()
	l.IPRate, l.IPBurst = 1, 3
	g, clock := testGuard(t, l)
	for i := 0; i < 3; i++ {
		if _, err := g.AllowIP("10.0.0.1"); err != nil {
			t.Fatalf("request %d within the burst: %v", i, err)
		}
	}
	if _, err := g.AllowIP("10.0.0.1"); err == nil || !strings.Contains(err.Error(), "too many requests") {
		t.Fatalf("request past the burst: err = %v", err)
	}
	if _, err := g.AllowIP("10.0.0.2"); err != nil {
		t.Fatalf("another address is limited too: %v", err)
	}
	clock.advance(time.Second)
	if _, err := g.AllowIP("10.0.0.1"); err != nil {
		t.Fatalf("after a second: %v", err)
	}
}

func TestGuardLockoutAndExpiry(t *testing.T) {
	l := openLimits()
	l.VoterFailures, l.FailureWindow, l.Lockout = 3, 10*time.Minute, 15*time.Minute
	g, clock := testGuard(t, l)
	for i := 0; i < 3; i++ {
		if _, locked := g.Fail("ip", "alice"); locked {
			t.Fatalf("failure %d already locks out", i+1)
		}
	}
	if _, locked := g.Fail("ip", "alice"); !locked {
		t.Fatal("the failure past the limit does not lock out")
	}
	wait, err := g.AllowVoter("ip", "alice")
	if err == nil || !strings.Contains(err.Error(), "locked out") || wait != 15*time.Minute {
		t.Fatalf("locked voter: wait %v, err %v", wait, err)
	}
	if _, err := g.AllowVoter("ip", "bob"); err != nil {
		t.Fatalf("another voter is locked out: %v", err)
	}
	// Failures from one address never lock the voter out elsewhere.
	if _, err := g.AllowVoter("other-ip", "alice"); err != nil {
		t.Fatalf("the voter is locked out from another address: %v", err)
	}
	clock.advance(15*time.Minute + time.Second)
	if _, err := g.AllowVoter("ip", "alice"); err != nil {
		t.Fatalf("lockout does not expire: %v", err)
	}
}

func TestLimitsCheck(t *testing.T) {
	for name, change := range map[string]func(*Limits){
		"zero rate":     func(l *Limits) { l.IPRate = 0 },
		"zero burst":    func(l *Limits) { l.VoterBurst = 0 },
		"zero failures": func(l *Limits) { l.IPFailures = 0 },
		"zero lockout":  func(l *Limits) { l.Lockout = 0 },
	} {
		l := DefaultLimits()
		change(&l)
		if _, err := NewGuard(l); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
}

// TestLockoutOverHTTP: after repeated wrong codes from one address the voter
// id is refused there with 429 even with its right code; the same voter from
// another address and other voters are not; and an address that keeps
// failing is refused for every voter.
func TestLockoutOverHTTP(t *testing.T) {
	l := openLimits()
	l.VoterFailures, l.IPFailures = 3, 6
	f := newFixture(t, 4, l)
	pub := voterPub(t)
	for i := 0; i < 4; i++ {
		if _, err := f.register(0, "WRONGWRONGWRONGWRONG", pub); err == nil || !strings.Contains(err.Error(), "HTTP 403") {
			t.Fatalf("wrong code %d: %v", i, err)
		}
	}
	_, err := f.register(0, f.codes[0][1], pub)
	if err == nil || !strings.Contains(err.Error(), "HTTP 429") || !strings.Contains(err.Error(), "locked out") {
		t.Fatalf("right code after lockout: err = %v, want HTTP 429 locked out", err)
	}
	// The real voter 0, from another address, still registers: wrong codes
	// sent from this address cannot lock it out.
	srv := f.srv.Config.Handler.(*Server)
	if _, rf := srv.register("192.0.2.7", &Request{ElectionID: "e1", VoterID: f.codes[0][0], Code: f.codes[0][1], VoterPub: pub}); rf != nil {
		t.Fatalf("voter 0 from another address after the lockout here: %v", rf.err)
	}
	if _, err := f.register(1, f.codes[1][1], voterPub(t)); err != nil {
		t.Fatalf("another voter after voter 0's lockout: %v", err)
	}
	// Three more failures on voter 2 bring the address to 7 > 6.
	for i := 0; i < 3; i++ {
		f.register(2, "WRONGWRONGWRONGWRONG", pub)
	}
	_, err = f.register(3, f.codes[3][1], voterPub(t))
	if err == nil || !strings.Contains(err.Error(), "HTTP 429") || !strings.Contains(err.Error(), "client address is locked out") {
		t.Fatalf("locked-out address: err = %v, want HTTP 429", err)
	}
	if n := f.store.Count(); n != 2 {
		t.Fatalf("%d tokens issued, want 2", n)
	}
}

// TestLimitSubject: an IPv6 client counts as its /64, an IPv4 one as itself.
func TestLimitSubject(t *testing.T) {
	for _, c := range []struct{ host, want string }{
		{"192.0.2.7", "192.0.2.7"},
		{"2001:db8:1:2:aaaa::1", "2001:db8:1:2::/64"},
		{"2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64"},
		{"2001:db8:1:3::1", "2001:db8:1:3::/64"},
		{"::ffff:192.0.2.7", "::ffff:192.0.2.7"},
		{"not-an-ip", "not-an-ip"},
	} {
		if got := limitSubject(c.host); got != c.want {
			t.Errorf("limitSubject(%q) = %q, want %q", c.host, got, c.want)
		}
	}
}

// TestRateLimitOverHTTP: past its burst a client gets 429 with Retry-After.
func TestRateLimitOverHTTP(t *testing.T) {
	l := openLimits()
	l.IPRate, l.IPBurst = 0.001, 5
	f := newFixture(t, 1, l)
	var last *http.Response
	for i := 0; i < 6; i++ {
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, f.srv.URL+Path, strings.NewReader("{}"))
		resp, err := f.client.HTTP.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		last = resp
		if i < 5 && resp.StatusCode == http.StatusTooManyRequests {
			t.Fatalf("request %d within the burst got 429", i)
		}
	}
	if last.StatusCode != http.StatusTooManyRequests || last.Header.Get("Retry-After") == "" {
		t.Fatalf("request past the burst: status %d, Retry-After %q", last.StatusCode, last.Header.Get("Retry-After"))
	}
}

// TestFailureLogRateLimited: a flood of failures writes a bounded number of
// log lines, and the next line allowed counts the ones left out.
func TestFailureLogRateLimited(t *testing.T) {
	l := openLimits()
	l.LogRate = 2
	f := newFixture(t, 1, l)
	srv := f.srv.Config.Handler.(*Server)
	clock := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	srv.Guard.now = clock.now
	for i := 0; i < 50; i++ {
		srv.logFailure("refused %d", i)
	}
	lines := strings.Count(f.log.String(), "refused")
	if lines < 1 || lines > 3 {
		t.Fatalf("%d failure lines logged for 50 failures, want at most 3 (rate 2/s, burst 3)", lines)
	}
	clock.advance(time.Second)
	srv.logFailure("refused again")
	if !strings.Contains(f.log.String(), "more refusals not logged") {
		t.Fatalf("suppressed failures are not counted:\n%s", f.log)
	}
}
