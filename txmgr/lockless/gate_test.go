package lockless

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// deadlockTimeout only detects a goroutine that will never finish; no test
// asserts how fast anything is.
const deadlockTimeout = 20 * time.Second

// finishes runs fn in a goroutine and fails the test if it is still blocked
// after deadlockTimeout.
func finishes(t *testing.T, what string, fn func()) {
	t.Helper()
	ch := make(chan struct{})
	go func() { defer close(ch); fn() }()
	select {
	case <-ch:
	case <-time.After(deadlockTimeout):
		t.Fatalf("%s: still blocked after %v (deadlock)", what, deadlockTimeout)
	}
}

func TestParseMode(t *testing.T) {
	tests := []struct {
		in      string
		want    Mode
		wantErr bool
	}{
		{"locked", Locked, false},
		{"lockless", Lockless, false},
		{" Lockless\n", Lockless, false},
		{"LOCKED", Locked, false},
		{"", Locked, true},
		{"none", Locked, true},
		{"lock-less", Locked, true},
		{"1", Locked, true},
	}
	for _, tc := range tests {
		got, err := ParseMode(tc.in)
		if tc.wantErr {
			if err == nil {
				t.Errorf("ParseMode(%q) = %v, want an error", tc.in, got)
			} else if !strings.Contains(err.Error(), `"locked"`) || !strings.Contains(err.Error(), `"lockless"`) {
				t.Errorf("ParseMode(%q) error %q does not name the allowed values", tc.in, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseMode(%q) = %v, %v; want %v, nil", tc.in, got, err, tc.want)
		}
		if back, err := ParseMode(got.String()); err != nil || back != got {
			t.Errorf("ParseMode(%v.String()) = %v, %v; want round trip", got, back, err)
		}
	}
}

func TestModeFromEnv(t *testing.T) {
	tests := []struct {
		name    string
		set     bool
		value   string
		want    Mode
		wantErr bool
	}{
		{"unset", false, "", Locked, false},
		{"empty", true, "", Locked, false},
		{"locked", true, "locked", Locked, false},
		{"lockless", true, "lockless", Lockless, false},
		{"bad", true, "fast", Locked, true},
		{"typo", true, "lockles", Locked, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(EnvVar, tc.value) // restores the old value afterwards
			if !tc.set {
				if err := os.Unsetenv(EnvVar); err != nil {
					t.Fatal(err)
				}
			}
			got, err := ModeFromEnv()
			if tc.wantErr {
				if err == nil {
					t.Fatalf("ModeFromEnv() with %s=%q = %v, want an error", EnvVar, tc.value, got)
				}
				for _, part := range []string{EnvVar, tc.value, `"locked"`, `"lockless"`} {
					if !strings.Contains(err.Error(), part) {
						t.Errorf("error %q does not mention %s", err, part)
					}
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("ModeFromEnv() = %v, %v; want %v, nil", got, err, tc.want)
			}
		})
	}
}

func TestNewRejectsInvalidMode(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("New(Mode(7)) did not panic")
		}
	}()
	New(Mode(7))
}

// step is one action of a scripted, single-goroutine scenario.
type step int

const (
	opBegin        step = iota
	opBeginLocked       // BeginLocked instead of Begin
	opReadA             // Read("ns", "a")
	opReadB             // Read("ns", "b")
	opUncounted         // ReadUncounted("_lifecycle", "seq")
	opConfirm           // ConfirmUncounted("_lifecycle", "seq"), after the read
	opHint              // ReadHint("ns", "a")
	opMulti             // MultiRead
	opCommit            // LockCommit + UnlockCommit on the same goroutine
	opLockCommit        // LockCommit only (a commit in progress)
	opUnlockCommit      // UnlockCommit
	opDone              // Done
)

func TestScenarios(t *testing.T) {
	tests := []struct {
		name  string
		steps []step
		// retryable is the index of the step that must fail with a
		// retryable error in Lockless mode (-1: none may fail).
		retryable int
	}{
		{"single key", []step{opBegin, opReadA, opDone}, -1},
		{"single key overlapping commit", []step{opBegin, opReadA, opCommit, opDone}, -1},
		{"commit before first read", []step{opBegin, opCommit, opReadA, opDone}, -1},
		{"two keys no overlap", []step{opBegin, opReadA, opReadB, opDone}, -1},
		{"two keys, commit between reads", []step{opBegin, opReadA, opCommit, opReadB, opDone}, 3},
		{"two keys, commit before first read", []step{opBegin, opCommit, opReadA, opReadB, opDone}, 3},
		{"re-read same key after commit", []step{opBegin, opReadA, opCommit, opReadA, opDone}, 3},
		{"multi-read first, after commit", []step{opBegin, opCommit, opMulti, opReadA, opReadB, opDone}, -1},
		{"multi-read after a read and a commit", []step{opBegin, opReadA, opCommit, opMulti, opDone}, 3},
		{"read after escalation ignores later state", []step{opBegin, opReadA, opReadB, opReadA, opMulti, opDone}, -1},
		{"uncounted read does not escalate", []step{opBegin, opUncounted, opCommit, opReadA, opDone}, -1},
		{"uncounted then two keys with overlap", []step{opBegin, opUncounted, opReadA, opCommit, opReadB, opDone}, 4},
		{"begin during commit, one key", []step{opLockCommit, opBegin, opReadA, opUnlockCommit, opDone}, -1},
		{"begin during commit, two keys", []step{opLockCommit, opBegin, opReadA, opUnlockCommit, opReadB, opDone}, 4},
		{"stale session keeps failing", []step{opBegin, opReadA, opCommit, opReadB, opReadA, opMulti, opUncounted, opHint, opDone}, 3},
		{"two uncounted reads, commit between", []step{opBegin, opUncounted, opCommit, opUncounted, opReadA, opDone}, 3},
		{"two uncounted reads, no overlap", []step{opBegin, opUncounted, opUncounted, opReadA, opDone}, -1},
		{"commit before the first uncounted read", []step{opBegin, opCommit, opUncounted, opUncounted, opReadA, opDone}, -1},
		{"uncounted after a read and a commit", []step{opBegin, opReadA, opCommit, opUncounted, opDone}, 3},
		{"begin during commit, two uncounted reads", []step{opLockCommit, opBegin, opUncounted, opUnlockCommit, opUncounted, opDone}, 4},
		{"uncounted, commit, multi-read first", []step{opBegin, opUncounted, opCommit, opMulti, opReadA, opDone}, -1},
		// The check before a later uncounted read is not enough: a commit
		// may start after it and before the read.
		{"second uncounted read, commit after its check", []step{opBegin, opUncounted, opConfirm, opUncounted, opCommit, opConfirm, opReadA, opDone}, 5},
		{"two confirmed uncounted reads, no overlap", []step{opBegin, opUncounted, opConfirm, opUncounted, opConfirm, opReadA, opDone}, -1},
		{"first uncounted read confirmed across a commit", []step{opBegin, opUncounted, opCommit, opConfirm, opReadA, opDone}, -1},
		{"two uncounted reads within one commit", []step{opLockCommit, opBegin, opUncounted, opUncounted, opUnlockCommit, opDone}, 3},
		{"confirm after a counted read", []step{opBegin, opReadA, opCommit, opConfirm, opDone}, -1},
		{"hint after a read and a commit", []step{opBegin, opReadA, opCommit, opHint, opHint, opDone}, -1},
		{"hint does not count", []step{opBegin, opHint, opReadA, opCommit, opHint, opDone}, -1},
		{"locked session never stale", []step{opBeginLocked, opReadA, opReadB, opMulti, opDone}, -1},
	}
	for _, mode := range []Mode{Locked, Lockless} {
		for _, tc := range tests {
			t.Run(mode.String()+"/"+tc.name, func(t *testing.T) {
				g := New(mode)
				var s *Session
				failed := false
				for i, st := range tc.steps {
					var err error
					switch st {
					case opBegin:
						s = g.Begin()
					case opBeginLocked:
						s = g.BeginLocked()
					case opReadA:
						err = s.Read("ns", "a")
					case opReadB:
						err = s.Read("ns", "b")
					case opUncounted:
						err = s.ReadUncounted("_lifecycle", "seq")
					case opConfirm:
						err = s.ConfirmUncounted("_lifecycle", "seq")
					case opHint:
						err = s.ReadHint("ns", "a")
					case opMulti:
						err = s.MultiRead()
					case opCommit:
						if mode == Locked {
							continue // would deadlock: the session holds the read lock
						}
						g.LockCommit()
						g.UnlockCommit()
					case opLockCommit:
						if mode == Locked {
							continue
						}
						g.LockCommit()
					case opUnlockCommit:
						if mode == Locked {
							continue
						}
						g.UnlockCommit()
					case opDone:
						s.Done()
					}
					wantFail := mode == Lockless && i == tc.retryable
					switch {
					case wantFail && !IsRetryable(err):
						t.Fatalf("step %d: err = %v, want a retryable error", i, err)
					case wantFail && !strings.Contains(err.Error(), "retried"):
						t.Fatalf("step %d: error %q does not say to retry", i, err)
					case !wantFail && err != nil && !failed:
						t.Fatalf("step %d: unexpected error %v", i, err)
					case failed && st != opDone && st != opCommit && st != opLockCommit && st != opUnlockCommit && !IsRetryable(err):
						t.Fatalf("step %d after a stale read: err = %v, want the retryable error again", i, err)
					}
					if wantFail {
						failed = true
					}
				}
				if sessErr := s.Err(); failed != IsRetryable(sessErr) || (!failed && sessErr != nil) {
					t.Errorf("Err() after Done = %v, want retryable: %v", sessErr, failed)
				}
				// No read lock may be left behind.
				finishes(t, "LockCommit after the scenario", func() { g.LockCommit(); g.UnlockCommit() })
				wantRetries := uint64(0)
				if tc.retryable >= 0 && mode == Lockless {
					wantRetries = 1
				}
				if st := g.Stats(); st.Retries != wantRetries {
					t.Errorf("Stats().Retries = %d, want %d", st.Retries, wantRetries)
				}
			})
		}
	}
}

func TestReadAfterDone(t *testing.T) {
	for _, mode := range []Mode{Locked, Lockless} {
		for _, escalate := range []bool{false, true} {
			g := New(mode)
			s := g.Begin()
			if err := s.Read("ns", "a"); err != nil {
				t.Fatal(err)
			}
			if escalate {
				if err := s.Read("ns", "b"); err != nil {
					t.Fatal(err)
				}
			}
			s.Done()
			s.Done() // idempotent: must not unlock twice (that would be a fatal error)
			for name, call := range map[string]func() error{
				"Read":          func() error { return s.Read("ns", "c") },
				"ReadUncounted": func() error { return s.ReadUncounted("ns", "c") },
				"ReadHint":      func() error { return s.ReadHint("ns", "c") },
				"Confirm":       func() error { return s.ConfirmUncounted("ns", "c") },
				"MultiRead":     s.MultiRead,
			} {
				err := call()
				if !errors.Is(err, ErrSessionDone) || IsRetryable(err) {
					t.Errorf("%v escalate=%v: %s after Done = %v, want ErrSessionDone, not retryable", mode, escalate, name, err)
				}
			}
			s.Done()
			finishes(t, "LockCommit after Done", func() { g.LockCommit(); g.UnlockCommit() })
		}
	}
}

func TestDoneWithoutReads(t *testing.T) {
	for _, mode := range []Mode{Locked, Lockless} {
		g := New(mode)
		for i := 0; i < 3; i++ {
			g.Begin().Done()
			g.BeginLocked().Done()
		}
		finishes(t, "LockCommit", func() { g.LockCommit(); g.UnlockCommit() })
		if st := g.Stats(); st.Sessions != 6 || st.Commits != 1 || st.Escalations != 0 {
			t.Errorf("%v: Stats() = %v, want 6 sessions, 1 commit, 0 escalations", mode, st)
		}
	}
}

func TestUnlockCommitWithoutLock(t *testing.T) {
	g := New(Lockless)
	defer func() {
		if recover() == nil {
			t.Fatal("UnlockCommit without LockCommit did not panic")
		}
	}()
	g.UnlockCommit()
}

// TestSingleKeyDuringCommit holds a commit open and checks that single-key
// sessions are not held up by it while multi-key sessions wait for it and
// then fail as retryable.
func TestSingleKeyDuringCommit(t *testing.T) {
	g := New(Lockless)
	early := g.Begin() // began before the commit
	if err := early.Read("ns", "a"); err != nil {
		t.Fatal(err)
	}

	g.LockCommit()
	finishes(t, "single-key sessions during a commit", func() {
		for i := 0; i < 5; i++ {
			s := g.Begin()
			if err := s.Read("ns", fmt.Sprint("k", i)); err != nil {
				t.Errorf("single-key read during a commit: %v", err)
			}
			s.Done()
		}
	})
	var during *Session // began during the commit
	finishes(t, "first read of a session begun during a commit", func() {
		during = g.Begin()
		if err := during.Read("ns", "a"); err != nil {
			t.Errorf("first read during a commit: %v", err)
		}
	})

	type result struct {
		err          error
		afterRelease bool
	}
	var released atomic.Bool
	results := make(chan result, 2)
	for _, s := range []*Session{early, during} {
		go func() {
			err := s.Read("ns", "b")
			results <- result{err, released.Load()}
		}()
	}
	// Give a faulty escalation the chance to return before the commit
	// ends. A correct one cannot, however long this takes.
	time.Sleep(50 * time.Millisecond)
	released.Store(true)
	g.UnlockCommit()
	for i := 0; i < 2; i++ {
		select {
		case r := <-results:
			if !r.afterRelease {
				t.Errorf("escalation returned while the commit was in progress (err %v)", r.err)
			}
			if !IsRetryable(r.err) {
				t.Errorf("escalation across a commit: err = %v, want retryable", r.err)
			}
		case <-time.After(deadlockTimeout):
			t.Fatal("escalation still blocked after the commit ended (deadlock)")
		}
	}
	early.Done()
	during.Done()
	finishes(t, "LockCommit after the sessions", func() { g.LockCommit(); g.UnlockCommit() })
	if st := g.Stats(); st.Retries != 2 || st.Escalations != 2 || st.Commits != 2 || st.Sessions != 7 {
		t.Errorf("Stats() = %v, want sessions=7 escalations=2 retries=2 commits=2", st)
	}
}

// TestCommitDoesNotWaitForSingleKeySession checks that an open Lockless
// session that has read one key does not hold up a commit.
func TestCommitDoesNotWaitForSingleKeySession(t *testing.T) {
	g := New(Lockless)
	s := g.Begin()
	if err := s.Read("ns", "a"); err != nil {
		t.Fatal(err)
	}
	finishes(t, "commit while a single-key session is open", func() { g.LockCommit(); g.UnlockCommit() })
	s.Done()
}

// TestSessionsHoldingTheLockHoldOffCommits checks the RWMutex half of the
// contract: a commit waits for locked and escalated sessions.
func TestSessionsHoldingTheLockHoldOffCommits(t *testing.T) {
	tests := []struct {
		name  string
		mode  Mode
		reads []string
	}{
		{"locked, no read", Locked, nil},
		{"locked, one read", Locked, []string{"a"}},
		{"lockless, escalated", Lockless, []string{"a", "b"}},
		{"lockless, BeginLocked", Lockless, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := New(tc.mode)
			var s *Session
			if tc.name == "lockless, BeginLocked" {
				s = g.BeginLocked()
			} else {
				s = g.Begin()
			}
			for _, k := range tc.reads {
				if err := s.Read("ns", k); err != nil {
					t.Fatal(err)
				}
			}
			var sessionDone atomic.Bool
			committed := make(chan bool)
			go func() {
				g.LockCommit()
				committed <- sessionDone.Load()
				g.UnlockCommit()
			}()
			time.Sleep(50 * time.Millisecond) // let a faulty LockCommit return early
			sessionDone.Store(true)
			s.Done()
			select {
			case afterDone := <-committed:
				if !afterDone {
					t.Error("LockCommit returned while a session held the read lock")
				}
			case <-time.After(deadlockTimeout):
				t.Fatal("LockCommit still blocked after Done (deadlock)")
			}
		})
	}
}

// TestConcurrentDoneAndEscalation calls Done while another goroutine is
// escalating the same session, with commits going on, and checks that no
// read lock is leaked and none released twice.
func TestConcurrentDoneAndEscalation(t *testing.T) {
	g := New(Lockless)
	stop := make(chan struct{})
	committer := make(chan struct{})
	go func() {
		defer close(committer)
		for {
			select {
			case <-stop:
				return
			default:
				g.LockCommit()
				g.UnlockCommit()
			}
		}
	}()
	for i := 0; i < 300; i++ {
		s := g.Begin()
		if err := s.Read("ns", "a"); err != nil {
			t.Fatal(err)
		}
		readerDone := make(chan error, 1)
		go func() {
			err := s.Read("ns", "b")
			if err == nil || IsRetryable(err) {
				err = s.MultiRead()
			}
			readerDone <- err
		}()
		s.Done()
		err := <-readerDone
		if err != nil && !IsRetryable(err) && !errors.Is(err, ErrSessionDone) {
			t.Fatalf("unexpected error %v", err)
		}
		s.Done()
	}
	close(stop)
	<-committer
	finishes(t, "LockCommit after all sessions", func() { g.LockCommit(); g.UnlockCommit() })
}
