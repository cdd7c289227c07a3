package registrar

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/fabvote/fabvote/election"
	bolt "go.etcd.io/bbolt"
)

// The issued-pseudonym store: the one bound of maxVoters for an election,
// whatever roll, command or process issues its tokens. It is a bbolt file
// beside the authority's pseudonym key, which every issuing command reads,
// so that they all find the same file. A process opens it only for the
// moment it admits pseudonyms: bbolt's exclusive flock then makes the
// issuers take turns instead of refusing one another.
var (
	bucketPseudonyms = []byte("pseudonyms")
	keyCommitment    = []byte("pseudonymKeyCommitment")
	keyCount         = []byte("count")
)

// issuedFormat versions the file's layout.
const issuedFormat = "fabvote/registrar/issued/v1"

// issuedLockTimeout is how long Admit waits for another issuer's turn.
const issuedLockTimeout = 30 * time.Second

// IssuedLog is election.IssuedPseudonyms on a file.
type IssuedLog struct {
	Path       string
	ElectionID string
	// Commitment is the manifest's pseudonymKeyCommitment: a file made for
	// another election of the same id is refused, not shared.
	Commitment []byte
}

// IssuedLogPath is the store of election electionID's issued pseudonyms
// for the pseudonym key at pseudKeyPath.
func IssuedLogPath(pseudKeyPath, electionID string) string {
	return filepath.Join(filepath.Dir(pseudKeyPath), "issued-"+electionID+".db")
}

// Admit implements election.IssuedPseudonyms. It returns once the
// pseudonyms are on disk (bbolt's commit fsyncs).
func (l *IssuedLog) Admit(pseuds [][election.PseudonymLen]byte, max uint64) error {
	db, err := bolt.Open(l.Path, 0o600, &bolt.Options{Timeout: issuedLockTimeout})
	if errors.Is(err, bolt.ErrTimeout) {
		return fmt.Errorf("issued pseudonyms %s: still locked by another issuer after %v", l.Path, issuedLockTimeout)
	}
	if err != nil {
		return fmt.Errorf("issued pseudonyms %s: %w", l.Path, err)
	}
	err = db.Update(func(tx *bolt.Tx) error { return l.admit(tx, pseuds, max) })
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	return err
}

func (l *IssuedLog) admit(tx *bolt.Tx, pseuds [][election.PseudonymLen]byte, max uint64) error {
	meta, set, err := l.buckets(tx)
	if err != nil {
		return fmt.Errorf("issued pseudonyms %s: %w", l.Path, err)
	}
	count := binary.BigEndian.Uint64(meta.Get(keyCount))
	var fresh [][]byte
	seen := make(map[[election.PseudonymLen]byte]bool, len(pseuds))
	for _, ps := range pseuds {
		if !seen[ps] && set.Get(ps[:]) == nil {
			fresh = append(fresh, bytes.Clone(ps[:]))
		}
		seen[ps] = true
	}
	if count+uint64(len(fresh)) > max {
		return fmt.Errorf("%w: %d voters hold tokens of election %q already (%s), %d more would pass maxVoters = %d",
			election.ErrRollFull, count, l.ElectionID, l.Path, len(fresh), max)
	}
	for _, ps := range fresh {
		if err := set.Put(ps, []byte{1}); err != nil {
			return err
		}
	}
	return meta.Put(keyCount, u64(count+uint64(len(fresh))))
}

// buckets returns the file's buckets, making them in a new file, and
// refuses a file of another election.
func (l *IssuedLog) buckets(tx *bolt.Tx) (meta, set *bolt.Bucket, err error) {
	meta = tx.Bucket(bucketMeta)
	if meta == nil {
		if meta, err = tx.CreateBucket(bucketMeta); err != nil {
			return nil, nil, err
		}
		for k, v := range map[string][]byte{string(keyFormat): []byte(issuedFormat), string(keyElection): []byte(l.ElectionID),
			string(keyCommitment): l.Commitment, string(keyCount): u64(0)} {
			if err := meta.Put([]byte(k), v); err != nil {
				return nil, nil, err
			}
		}
		if _, err := tx.CreateBucket(bucketPseudonyms); err != nil {
			return nil, nil, err
		}
	}
	switch set = tx.Bucket(bucketPseudonyms); {
	case set == nil || string(meta.Get(keyFormat)) != issuedFormat || len(meta.Get(keyCount)) != 8:
		return nil, nil, fmt.Errorf("not a store of issued pseudonyms (format %q)", meta.Get(keyFormat))
	case string(meta.Get(keyElection)) != l.ElectionID:
		return nil, nil, fmt.Errorf("belongs to election %q, not %q", meta.Get(keyElection), l.ElectionID)
	case !bytes.Equal(meta.Get(keyCommitment), l.Commitment):
		return nil, nil, fmt.Errorf("was made for another election %q (another pseudonym key commitment): move it away if that election is over", l.ElectionID)
	}
	return meta, set, nil
}
