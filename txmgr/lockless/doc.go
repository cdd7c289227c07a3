// Package lockless is the commit gate of fabvote's peer (optimisation O-III):
// it replaces commitRWLock, the sync.RWMutex with which Fabric's transaction
// manager (core/ledger/kvledger/txmgmt/txmgr) keeps simulations and commits
// of the state database apart.
//
// # The problem
//
// Stock Fabric read-locks the state database for the whole life of every
// simulation and query (NewTxSimulator / NewQueryExecutor* to Done), and a
// block commit write-locks it around ApplyPrivacyAwareUpdates. A commit
// therefore waits for the slowest simulation in progress, and because Go's
// RWMutex prefers a waiting writer, every simulation that begins meanwhile
// waits for that commit too: one 500 ms endorsement stalls the peer's whole
// pipeline (Paneru 2021, Table 6.1). The thesis removed the lock outright.
// That is sound only when a transaction reads a single key: a simulation
// that reads two keys while a commit rewrites both can see one before and
// one after the commit, a view no serial order produces, and Fabric's own
// _lifecycle chaincode reads several keys.
//
// # The protocol
//
// Mode Locked is exactly the RWMutex: Begin is RLock, Done is RUnlock,
// LockCommit/UnlockCommit are Lock/Unlock. Mode Lockless adds a sequence
// number, seqlock style. LockCommit takes the write lock and increments it
// (odd: updates may be half applied); UnlockCommit increments it again (even)
// and releases the lock. Begin takes no lock and records the sequence
// number. The first point read (Read) goes ahead without a lock. The next
// read of any key (the same key included) or any range or multi-key query
// (MultiRead) escalates: the session takes the read lock and compares the
// sequence number with the one recorded at Begin. If they differ a commit
// started or finished since Begin, the first read may belong to another
// snapshot than the reads to come, and the session fails with an error that
// wraps ErrStaleSnapshot (IsRetryable reports true); the caller discards the
// simulation and runs it again. Otherwise the session continues as a locked
// session. Either way the session keeps the read lock until Done, which is
// the one place that releases it, and is idempotent. Reads after Done fail.
//
// A session that reads one key never waits for a commit and never makes a
// commit wait. A session that escalates waits, like a locked one, for a
// commit in progress or waiting. If it had already read a key without the
// lock, that commit changed the sequence number, so it fails, and its retry
// begins after the commit; a session whose first access is MultiRead has
// nothing to invalidate and simply continues under the lock.
// BeginLocked starts a session that holds the read lock from the start in
// either mode: for callers that cannot retry, and for bounding retries.
// ReadUncounted marks a read the peer makes for itself and the chaincode never
// sees (the chaincode definition's sequence in _lifecycle, which the endorser
// and then the chaincode support read before the chaincode runs); it needs
// no lock and does not count as a key, its staleness against the chaincode's
// reads being caught by MVCC validation. Without it every chaincode
// invocation would read two keys and escalate. The peer compares the two
// reads of the sequence with its lifecycle cache, and the read set keeps
// only the last version read of a key, so MVCC cannot see that they
// differed: a second uncounted read after a commit overlapped the session
// fails with ErrStaleSnapshot, as stock Fabric fails such an invocation
// with "changed during invoke". ConfirmUncounted repeats that check once
// the second read has returned, so a commit that starts between the check
// and the read is caught too. ReadHint marks a read whose value reaches
// neither the chaincode nor the read set (the key-level endorsement policy
// of a written key, which only feeds the proposal's chaincode interest); it
// fails only for a stale or finished session.
//
// # Why every Lockless session has repeatable-read isolation
//
// All accesses to the sequence number are sync/atomic operations, which are
// sequentially consistent, and the state database synchronizes its own
// readers and writers, so "a read observed a write" implies "the write
// happened before the read" in the sense of the Go memory model.
//
// A session that makes one read sees one committed version of one key: the
// state database applies a commit's batch atomically per key (even mid-commit,
// a key is either old or new). That is a snapshot of everything the
// transaction read, and Fabric's MVCC validation at commit rejects the
// transaction if the version it read is no longer current. This is the
// thesis's argument and holds in any interleaving, including a session that
// began during a commit.
//
// A session that escalates successfully read the sequence number s at Begin
// and s again under the read lock. A commit increments the sequence number
// before it writes anything and again after, and the number never
// decreases, so no commit wrote between the Begin and the escalation: the
// lock-free read returned the state as of s. (Had it observed a write of a
// commit, that commit's first increment happened before the read, hence
// before the escalation, which would then have seen at least s+1.) From the
// escalation to Done the read lock excludes commits, so every later read
// also returns the state as of s. All reads of the session come from one
// snapshot, and re-reading a key returns the same version. A session that
// began during a commit recorded an odd s, and under the read lock the
// number is even, so its escalation always fails, as it must: its first read
// may have seen that commit half applied. Sessions that fail escalation
// return an error for every read and never complete a simulation.
//
// A re-read of the same key escalates too because Fabric's read-set builder
// keeps only the version of the last read of a key. If a lock-free re-read
// could see a newer version than the first read, MVCC validation would check
// only the newer one and a transaction computed from the older value could
// commit (a lost update).
//
// # Caveats for the caller
//
// A goroutine must not escalate a session (nor Begin one in Locked mode)
// while it holds another session's read lock: with a commit waiting, that
// is a recursive RLock and deadlocks, exactly as with the RWMutex.
// A simulation in a Lockless session can fail with ErrStaleSnapshot, so the
// endorser must retry it. The chaincode sees that error only as a failed
// read and may hide it, so the peer asks Session.Err before it uses the
// simulation results. Internal query executors whose callers do not retry
// should use BeginLocked. A read that fetches two records and compares them
// is a multi-key read: the patched transaction manager calls MultiRead, not
// Read, before GetPrivateData, which reads the private value and the version
// of its public hash. A simulation whose staleness no one checks (the callee
// of a cross-channel chaincode-to-chaincode call) should take the lock at
// once with MultiRead.
//
// The gate orders only the state database. Every other structure that a
// lock-free session reads and a commit writes must be safe for concurrent
// use by itself: NameSet is the copy-on-write set the patched ledger uses
// for its record of the namespaces that have key-level metadata. The state
// database must apply a commit atomically per key and write nothing back on
// a read; CheckStateDB refuses Lockless mode on any other than goleveldb.
//
// The package imports only the standard library so that it can be copied
// into the patched Fabric tree unchanged.
package lockless
