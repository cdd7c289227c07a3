package lockless

import "fmt"

// StateDBKind says whether a state database is one the Lockless mode is
// proven safe for.
type StateDBKind uint8

const (
	// EmbeddedLevelDB is Fabric's goleveldb state database: a commit is one
	// write batch, which goleveldb makes visible to readers at once, and no
	// read writes anything back. Both modes are safe.
	EmbeddedLevelDB StateDBKind = iota
	// OtherStateDB is any other state database. Fabric's CouchDB state
	// database writes what a read fetched into a value cache without any
	// check against a concurrent commit (a lock-free read that misses the
	// cache can put back the value a commit just replaced, and validation
	// then takes that stale version as the committed one), and commits
	// several HTTP batches, so a lock-free reader can see it half applied.
	OtherStateDB
)

// CheckStateDB returns an error if mode m may not run on a state database
// of kind k: Lockless runs only on EmbeddedLevelDB. name is the configured
// database name (core.yaml ledger.state.stateDatabase), for the message.
// The peer calls it before it opens any ledger, so that it refuses to start
// rather than run a lock-free gate over a database that is not safe for it.
func CheckStateDB(m Mode, k StateDBKind, name string) error {
	if m != Lockless || k == EmbeddedLevelDB {
		return nil
	}
	return fmt.Errorf("lockless: %s=%s cannot be used with the state database %q: "+
		"lock-free simulations are safe only on goleveldb; set %s=%s or ledger.state.stateDatabase: goleveldb",
		EnvVar, Lockless, name, EnvVar, Locked)
}
