package ballotcheck

import (
	"bytes"
	"sync"

	"github.com/fabvote/fabvote/election"
)

// ManifestCache returns a Manifests that reads each election's manifest
// with fetch (a committed-state read of its key, nil if absent) on every
// lookup (CheckBlock looks each election up once per block) and keeps the
// prepared form of the bytes it last read, so the expensive part (parsing
// keys, precomputing messages) is done once per manifest. The contract
// writes a manifest once, but colluding endorsers could forge a rewrite; a verdict must then follow the committed state,
// which every honest peer at the same height shares, not what one peer
// happened to cache before (a restarted peer has no cache). A missing
// manifest is not cached, so an election opened later is found.
func ManifestCache(fetch func(key string) ([]byte, error)) Manifests {
	type prepared struct {
		raw []byte
		p   *election.Prepared
	}
	var cache sync.Map // electionID → *prepared
	return func(id string) (*election.Prepared, error) {
		raw, err := fetch(election.LedgerKey(election.ObjManifest, id))
		if err != nil {
			return nil, &StateError{Err: err}
		}
		if raw == nil {
			return nil, election.Errorf(election.CodeNoElection, "no election %q on this channel", id)
		}
		if c, ok := cache.Load(id); ok && bytes.Equal(c.(*prepared).raw, raw) {
			return c.(*prepared).p, nil
		}
		p, err := prepareStored(id, raw)
		if err != nil {
			return nil, err
		}
		cache.Store(id, &prepared{raw: bytes.Clone(raw), p: p})
		return p, nil
	}
}

// prepareStored parses and prepares the manifest stored for election id.
func prepareStored(id string, raw []byte) (*election.Prepared, error) {
	m, err := election.ParseManifest(raw)
	if err != nil {
		return nil, &election.Error{Code: election.CodeInternal, Msg: "the stored manifest of " + id + " does not parse: " + err.Error(), Err: err}
	}
	p, err := election.Prepare(m)
	if err != nil {
		return nil, &election.Error{Code: election.CodeInternal, Msg: "the stored manifest of " + id + " is invalid: " + err.Error(), Err: err}
	}
	return p, nil
}

// StateError is a failure to read committed state. It says nothing about the
// transaction, so the plugin must not mark the transaction invalid for it:
// it fails the block's validation instead (the peer retries).
type StateError struct{ Err error }

func (e *StateError) Error() string {
	return "ballot validation: reading committed state: " + e.Err.Error()
}
func (e *StateError) Unwrap() error { return e.Err }
