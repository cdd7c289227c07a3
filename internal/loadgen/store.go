package loadgen

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/fabvote/fabvote/internal/ballotstream"
	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/opt"
	"github.com/syndtr/goleveldb/leveldb/util"
)

// Store keeps endorsed transactions (the gateway's PreparedTransaction
// bytes) between the setup phase of a skip-endorsement run and its replays,
// in LevelDB as the thesis's Caliper extension did. Keys: "meta" (StoreMeta
// as JSON) and "tx/" + 8-byte big-endian workload index.
type Store struct {
	db *leveldb.DB
}

// StoreMeta says what a store holds and for which network instance.
type StoreMeta struct {
	Fingerprint string    `json:"fingerprint"` // Conn.Fingerprint at endorsement
	Fn          string    `json:"fn"`
	Source      string    `json:"source"` // the ballot file
	Offset      int       `json:"offset"` // ballots skipped before the first
	Count       int       `json:"count"`  // transactions stored
	Created     time.Time `json:"created"`
	Replayed    bool      `json:"replayed"` // spent: its ballots are on the ledger
}

var (
	metaKey  = []byte("meta")
	txPrefix = []byte("tx/")
)

// OpenStore opens (creating) a store in dir.
func OpenStore(dir string) (*Store, error) {
	db, err := leveldb.OpenFile(dir, nil)
	if err != nil {
		return nil, fmt.Errorf("prepared-transaction store %s: %w", dir, err)
	}
	return &Store{db: db}, nil
}

// CreateStore removes whatever is in dir and opens an empty store there.
func CreateStore(dir string) (*Store, error) {
	if err := os.RemoveAll(dir); err != nil {
		return nil, fmt.Errorf("clearing store %s: %w", dir, err)
	}
	return OpenStore(dir)
}

// Close closes the store.
func (s *Store) Close() error { return s.db.Close() }

func txKey(i int) []byte {
	k := make([]byte, len(txPrefix)+8)
	copy(k, txPrefix)
	binary.BigEndian.PutUint64(k[len(txPrefix):], uint64(i))
	return k
}

// Put stores transaction i.
func (s *Store) Put(i int, tx []byte) error { return s.db.Put(txKey(i), tx, nil) }

// SetMeta records what the store holds; write it last, after every Put, so
// a store without meta is known to be incomplete.
func (s *Store) SetMeta(m StoreMeta) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return s.db.Put(metaKey, b, &opt.WriteOptions{Sync: true})
}

// Meta reads the store's description.
func (s *Store) Meta() (StoreMeta, error) {
	var m StoreMeta
	b, err := s.db.Get(metaKey, nil)
	if errors.Is(err, leveldb.ErrNotFound) {
		return m, errors.New("the store has no meta record: its setup phase did not finish (run --prepare again)")
	}
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("store meta record: %w", err)
	}
	return m, nil
}

// Source returns the stored transactions in index order.
func (s *Store) Source() *StoreSource {
	return &StoreSource{it: s.db.NewIterator(util.BytesPrefix(txPrefix), nil)}
}

// StoreSource iterates a store's transactions; Close releases it.
type StoreSource struct {
	it interface {
		Next() bool
		Value() []byte
		Error() error
		Release()
	}
}

// Next implements Source.
func (ss *StoreSource) Next() ([]byte, error) {
	if !ss.it.Next() {
		if err := ss.it.Error(); err != nil {
			return nil, err
		}
		return nil, io.EOF
	}
	return append([]byte(nil), ss.it.Value()...), nil
}

// Close releases the iterator.
func (ss *StoreSource) Close() { ss.it.Release() }

// BallotFile is a Source over a ballot stream file (internal/ballotstream).
type BallotFile struct {
	f *os.File
	r *ballotstream.Reader
}

// OpenBallots opens a ballot stream.
func OpenBallots(path string) (*BallotFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--ballots: %w", err)
	}
	r, err := ballotstream.NewReader(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("--ballots %s: %w", path, err)
	}
	return &BallotFile{f: f, r: r}, nil
}

// Next implements Source.
func (b *BallotFile) Next() ([]byte, error) { return b.r.Next() }

// Skip discards the next n records.
func (b *BallotFile) Skip(n int) error {
	for i := 0; i < n; i++ {
		if _, err := b.r.Next(); err != nil {
			if errors.Is(err, io.EOF) {
				return fmt.Errorf("--offset %d: the ballot file has only %d ballots", n, i)
			}
			return err
		}
	}
	return nil
}

// Close closes the file.
func (b *BallotFile) Close() error { return b.f.Close() }
