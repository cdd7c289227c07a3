package ballotcheck

import (
	"sync"

	"github.com/fabvote/fabvote/election"
)

// ManifestCache returns a Manifests that reads each election's manifest
// with fetch (a committed-state read of its key, nil if absent) and keeps
// the prepared form. Manifests are write-once, so a cached one is never
// stale; a missing one is not cached, so an election opened later is found.
func ManifestCache(fetch func(key string) ([]byte, error)) Manifests {
	var cache sync.Map // electionID → *election.Prepared
	return func(id string) (*election.Prepared, error) {
		if p, ok := cache.Load(id); ok {
			return p.(*election.Prepared), nil
		}
		raw, err := fetch(election.LedgerKey(election.ObjManifest, id))
		if err != nil {
			return nil, &StateError{Err: err}
		}
		if raw == nil {
			return nil, election.Errorf(election.CodeNoElection, "no election %q on this channel", id)
		}
		m, err := election.ParseManifest(raw)
		if err != nil {
			return nil, &election.Error{Code: election.CodeInternal, Msg: "the stored manifest of " + id + " does not parse: " + err.Error(), Err: err}
		}
		p, err := election.Prepare(m)
		if err != nil {
			return nil, &election.Error{Code: election.CodeInternal, Msg: "the stored manifest of " + id + " is invalid: " + err.Error(), Err: err}
		}
		actual, _ := cache.LoadOrStore(id, p)
		return actual.(*election.Prepared), nil
	}
}

// StateError is a failure to read committed state. It says nothing about the
// transaction, so the plugin must not mark the transaction invalid for it:
// it fails the block's validation instead (the peer retries).
type StateError struct{ Err error }

func (e *StateError) Error() string {
	return "ballot validation: reading committed state: " + e.Err.Error()
}
func (e *StateError) Unwrap() error { return e.Err }
