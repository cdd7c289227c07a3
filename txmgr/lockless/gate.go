package lockless

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
)

// ErrStaleSnapshot is wrapped by the error a Lockless session returns when a
// ledger commit overlapped the part of the simulation that ran without a
// lock. The simulation must be discarded and run again in a new session.
var ErrStaleSnapshot = errors.New("lockless: the simulation overlapped a ledger commit and must be retried")

// ErrSessionDone is wrapped by the error a session returns when it is used
// after Done. It is a caller bug, not a reason to retry.
var ErrSessionDone = errors.New("lockless: session used after Done")

// IsRetryable reports whether err (or an error it wraps) is ErrStaleSnapshot,
// that is whether running the same simulation again in a new session may
// succeed.
func IsRetryable(err error) bool { return errors.Is(err, ErrStaleSnapshot) }

// Stats are the counters of a Gate since New. They only grow.
type Stats struct {
	Sessions    uint64 // Begin and BeginLocked calls
	Escalations uint64 // Lockless sessions that took the read lock to read more
	Retries     uint64 // escalations that returned ErrStaleSnapshot
	Commits     uint64 // completed LockCommit/UnlockCommit pairs
}

func (s Stats) String() string {
	return fmt.Sprintf("sessions=%d escalations=%d retries=%d commits=%d",
		s.Sessions, s.Escalations, s.Retries, s.Commits)
}

// Gate orders simulations (sessions) against commits of one ledger's state
// database. The zero value is not usable; call New.
type Gate struct {
	mode Mode
	rw   sync.RWMutex
	// seq is odd while a commit is applying updates and grows by two per
	// commit. It is written only by the holder of rw's write lock.
	seq atomic.Uint64

	sessions, escalations, retries, commits atomic.Uint64
}

// New returns a gate in mode m. It panics if m is neither Locked nor
// Lockless; ParseMode and ModeFromEnv only return those.
func New(m Mode) *Gate {
	if m != Locked && m != Lockless {
		panic(fmt.Sprintf("lockless: New called with invalid mode %d", uint8(m)))
	}
	return &Gate{mode: m}
}

// Mode returns the mode the gate was created with.
func (g *Gate) Mode() Mode { return g.mode }

// Stats returns the gate's counters. Each counter is read atomically; the
// four together are not one snapshot.
func (g *Gate) Stats() Stats {
	return Stats{
		Sessions:    g.sessions.Load(),
		Escalations: g.escalations.Load(),
		Retries:     g.retries.Load(),
		Commits:     g.commits.Load(),
	}
}

// LockCommit waits until no session holds the read lock, then excludes
// sessions from taking it until UnlockCommit. Call it right before applying
// a batch of updates to the state database, in every mode.
func (g *Gate) LockCommit() {
	g.rw.Lock()
	g.seq.Add(1) // odd: updates may be half applied from here on
}

// UnlockCommit ends the commit LockCommit began. It panics if no commit is
// in progress.
func (g *Gate) UnlockCommit() {
	if g.seq.Load()&1 == 0 {
		panic("lockless: UnlockCommit called without LockCommit")
	}
	g.seq.Add(1) // even again: every update of this commit is visible
	g.commits.Add(1)
	g.rw.Unlock()
}

type state uint8

const (
	fresh  state = iota // Lockless, nothing read yet
	oneKey              // Lockless, one point read made without a lock
	locked              // holds the read lock, every read so far is from one snapshot
	stale               // a commit overlapped the session: every read fails
	done                // Done was called; holds nothing
)

// Session is one simulation or query against the state database. Its
// methods may be called from several goroutines (Fabric may call Done from
// the endorser while a chaincode handler still reads); they are serialized
// by the session's own mutex, which is never shared with other sessions.
type Session struct {
	g       *Gate
	mu      sync.Mutex
	st      state
	rlocked bool   // the session holds g.rw's read lock (released by Done)
	start   uint64 // g.seq when a Lockless session began (or made its first uncounted read)
	peer    bool   // an uncounted read was made without the lock
	confirm bool   // a later uncounted read was allowed: ConfirmUncounted checks it
	err     error  // the ErrStaleSnapshot error, repeated by every later read
}

// Begin starts a session. In Locked mode it takes the read lock (and so
// waits for a commit in progress or already waiting); in Lockless mode it
// takes no lock and never waits.
func (g *Gate) Begin() *Session {
	g.sessions.Add(1)
	if g.mode == Locked {
		g.rw.RLock()
		return &Session{g: g, st: locked, rlocked: true}
	}
	return &Session{g: g, st: fresh, start: g.seq.Load()}
}

// BeginLocked starts a session that holds the read lock from the start, in
// either mode, and therefore never returns ErrStaleSnapshot. Use it where
// the caller cannot retry (the peer's internal query executors), and for the
// retry of a simulation that failed with ErrStaleSnapshot, so that a long
// simulation cannot be retried forever while commits keep overlapping it.
func (g *Gate) BeginLocked() *Session {
	g.sessions.Add(1)
	g.rw.RLock()
	return &Session{g: g, st: locked, rlocked: true}
}

// Read must be called before every point read of (ns, key) from the state
// database. In a Lockless session the first read needs no lock; any further
// read, of another key or of the same key again, first takes the read lock
// and fails with an ErrStaleSnapshot error if a commit started or ended
// since Begin. Same-key re-reads count because Fabric's read set keeps only
// the version of the last read of a key: a re-read that saw a newer version
// than the first would hide the first from MVCC validation.
func (s *Session) Read(ns, key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch s.st {
	case fresh:
		s.st = oneKey
		return nil
	case oneKey:
		return s.escalate(func() string { return fmt.Sprintf("read of %q in namespace %q", key, ns) })
	case locked:
		return nil
	case stale:
		return s.err
	default:
		return fmt.Errorf("%w (read of %q in namespace %q)", ErrSessionDone, key, ns)
	}
}

// ReadUncounted must be called instead of Read before a peer-only read: a
// point read whose value the simulated chaincode never sees and whose
// version goes into the read set, so that MVCC validation at commit rejects
// the transaction if it was stale. In Fabric 2.5 these are the chaincode
// definition's sequence in _lifecycle, read by the endorser and again by
// the chaincode support before the chaincode runs, and the chaincode's
// 'initialized' key. Such a read takes no lock and does not make a later
// Read escalate; without it every chaincode invocation reads two keys.
//
// The session's first read may be uncounted. Any later uncounted read fails
// with an ErrStaleSnapshot error if a commit started or ended since the
// first: the peer compares the values it reads twice (the definition's
// sequence, against its lifecycle cache), and because the read set keeps
// only the last version read of a key, two reads from different snapshots
// could pair an old definition with a new package without MVCC noticing.
// Stock Fabric fails such an invocation ("changed during invoke"); the
// retry of a stale session runs locked and sees one snapshot. A later
// uncounted read must be followed by ConfirmUncounted once the value is
// read, since a commit may also start between this check and that read.
func (s *Session) ReadUncounted(ns, key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch s.st {
	case fresh, oneKey:
		if s.st == fresh && !s.peer {
			// Nothing read yet: the snapshot starts now.
			s.start, s.peer = s.g.seq.Load(), true
			return nil
		}
		if err := s.checkPeerSnapshot(ns, key); err != nil {
			return err
		}
		s.confirm = true
		return nil
	case locked:
		return nil
	case stale:
		return s.err
	default:
		return fmt.Errorf("%w (read of %q in namespace %q)", ErrSessionDone, key, ns)
	}
}

// ConfirmUncounted must be called after the state database read that a
// ReadUncounted allowed, before its value is used. After a later uncounted
// read it fails with an ErrStaleSnapshot error if a commit started or ended
// since the session's first uncounted read: only a check after the read
// shows that both reads saw one snapshot (a seqlock's second check). After
// the first uncounted read, a locked read or a counted one it does nothing.
func (s *Session) ConfirmUncounted(ns, key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch s.st {
	case fresh, oneKey:
		if !s.confirm {
			return nil
		}
		s.confirm = false
		return s.checkPeerSnapshot(ns, key)
	case locked:
		return nil
	case stale:
		return s.err
	default:
		return fmt.Errorf("%w (read of %q in namespace %q)", ErrSessionDone, key, ns)
	}
}

// checkPeerSnapshot makes the session stale unless every uncounted read so
// far comes from one snapshot: the sequence is unchanged since the first,
// and that one was not made during a commit (an odd start could see the
// commit's batch before or after it was applied). s.mu is held.
func (s *Session) checkPeerSnapshot(ns, key string) error {
	what := func() string { return fmt.Sprintf("peer-only read of %q in namespace %q", key, ns) }
	if s.start&1 == 1 {
		s.st = stale
		s.g.retries.Add(1)
		s.err = fmt.Errorf("%w (%s: the first peer-only read was made during a commit)", ErrStaleSnapshot, what())
		return s.err
	}
	return s.checkUnlocked(what)
}

// ReadHint must be called before a read whose value neither reaches the
// chaincode nor enters the read set: in Fabric 2.5 the key-level
// endorsement policy that SetState, SetStateMetadata and SetPrivateData
// look up for the written key, which only feeds the proposal's chaincode
// interest (the endorsers a client gateway asks). It neither needs a lock
// nor counts as a read; it fails only if the session is stale or done.
func (s *Session) ReadHint(ns, key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch s.st {
	case stale:
		return s.err
	case done:
		return fmt.Errorf("%w (read of %q in namespace %q)", ErrSessionDone, key, ns)
	default:
		return nil
	}
}

// MultiRead must be called before a range query, rich query, multi-key read
// or anything else that reads more than one key or record at once. It makes
// a Lockless session take the read lock, failing with an ErrStaleSnapshot
// error if a point read was already made and a commit has overlapped it.
func (s *Session) MultiRead() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch s.st {
	case fresh, oneKey:
		return s.escalate(func() string { return "range or multi-key query" })
	case locked:
		return nil
	case stale:
		return s.err
	default:
		return fmt.Errorf("%w (range or multi-key query)", ErrSessionDone)
	}
}

// escalate takes the read lock for a Lockless session. s.mu is held; it
// stays held while the read lock is awaited, so a concurrent Done waits for
// the outcome instead of racing with it.
func (s *Session) escalate(what func() string) error {
	s.g.escalations.Add(1)
	s.g.rw.RLock()
	s.rlocked = true
	if s.st == fresh {
		// The chaincode read nothing without the lock: its snapshot starts
		// now. (Peer-only reads before it are covered by MVCC validation,
		// as they are before a first lock-free Read.)
		s.st = locked
		return nil
	}
	// While the read lock is held no commit is in progress, so now is even,
	// and a session that began during a commit (odd start) always fails.
	if err := s.checkUnlocked(what); err != nil {
		return err
	}
	s.st = locked
	return nil
}

// checkUnlocked makes the session stale if a commit started or ended since
// its snapshot began. s.mu is held.
func (s *Session) checkUnlocked(what func() string) error {
	if now := s.g.seq.Load(); now != s.start {
		s.st = stale
		s.g.retries.Add(1)
		s.err = fmt.Errorf("%w (%s: commit sequence was %d when the simulation began, %d now)",
			ErrStaleSnapshot, what(), s.start, now)
		return s.err
	}
	return nil
}

// Err returns the ErrStaleSnapshot error the session failed with, or nil,
// also after Done. The chaincode sees a gate error only as a failed read
// and may swallow it or turn it into a chaincode error message, so the
// peer must ask the session itself before it uses the simulation results
// (in TxSimulator.GetTxSimulationResults) and retry if IsRetryable(Err()).
func (s *Session) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Done ends the session and releases the read lock if the session holds
// it. It is idempotent; every read after it fails with ErrSessionDone.
func (s *Session) Done() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rlocked {
		s.g.rw.RUnlock()
		s.rlocked = false
	}
	s.st = done
}
