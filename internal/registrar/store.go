package registrar

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
)

// The registration state is a bbolt database (etcd's embedded B+tree store):
// one file, copy-on-write pages, and a commit that fsyncs before it returns,
// so a registration is on disk before its answer goes out. bbolt takes an
// exclusive flock on the file, which is how a second `ea serve` on the same
// state is refused.
var (
	bucketMeta = []byte("meta")
	bucketRegs = []byte("registrations")

	keyFormat    = []byte("format")
	keyElection  = []byte("electionID")
	keyManifest  = []byte("manifestDigest")
	keyRoll      = []byte("rollDigest")
	keyMaxVoters = []byte("maxVoters")
	keyIssued    = []byte("issued")
)

// stateFormat versions the database layout.
const stateFormat = "fabvote/registrar/state/v1"

// lockTimeout is how long Open waits for another process's lock on the file.
const lockTimeout = 500 * time.Millisecond

// Binding is what a state file belongs to: one election (its id and the
// digest of its manifest) and one roll. A state opened with another binding is
// refused, so a moved, swapped or restored file cannot make used codes work.
type Binding struct {
	ElectionID     string
	ManifestDigest [32]byte
	RollDigest     [32]byte
	MaxVoters      uint64
}

// NewBinding binds an election manifest (its canonical bytes) and a roll. It
// refuses a roll with more voters than the manifest's maxVoters.
func NewBinding(electionID string, manifest []byte, maxVoters uint64, roll *Roll) (Binding, error) {
	if uint64(roll.Len()) > maxVoters {
		return Binding{}, fmt.Errorf("the roll has %d voters, more than the election's maxVoters %d", roll.Len(), maxVoters)
	}
	h := sha256.New()
	h.Write([]byte("fabvote/registrar/manifest/v1\x00"))
	h.Write(manifest)
	b := Binding{ElectionID: electionID, RollDigest: roll.Digest(), MaxVoters: maxVoters}
	h.Sum(b.ManifestDigest[:0])
	return b, nil
}

// Registration is one issued token, as stored.
type Registration struct {
	VoterID  string    `json:"voterID"`
	VoterPub []byte    `json:"voterPub"`
	Token    []byte    `json:"token"`
	Time     time.Time `json:"time"`
	// Replayed is true when the answer repeats an earlier registration (an
	// idempotent retry); it is not stored.
	Replayed bool `json:"-"`
}

// MintFunc makes the token for a voter's key (election.Minter.MintCancelable).
// The token format and the voter's pseudonym live with the caller; the store
// only keeps the bytes. cancel, if not nil, is called when the token is not
// stored after all (the commit failed) and so never handed out: a minter
// that counts tokens against maxVoters must not count it.
type MintFunc func(voterID string, voterPub []byte) (token []byte, cancel func(), err error)

var (
	// ErrUsed means the voter id's code was used already, for another key.
	ErrUsed = errors.New("the one-time code for this voter id has already been used")
	// ErrFull means maxVoters tokens were issued already.
	ErrFull = errors.New("the election's maxVoters tokens have all been issued")
	// ErrStateLocked means another process holds the state file.
	ErrStateLocked = errors.New("registration state is in use by another process")
)

// Store is the registration state: voter id -> registration, and the count of
// issued tokens, bound to one election and roll.
type Store struct {
	db      *bolt.DB
	binding Binding
}

// InitStore creates a new state file at path for b. It refuses if path exists:
// an existing state is never replaced. The file appears complete or not at all.
func InitStore(path string, b Binding) error {
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("registration state %s already exists; a new one is only made for a new election (move the old file away yourself if you mean to discard it)", path)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".init-*")
	if err != nil {
		return fmt.Errorf("registration state: %w", err)
	}
	tmpPath := tmp.Name()
	tmp.Close()
	defer os.Remove(tmpPath)
	if err := writeMeta(tmpPath, b); err != nil {
		return fmt.Errorf("registration state %s: %w", path, err)
	}
	// Link refuses an existing target, so a concurrent init cannot be overwritten.
	if err := os.Link(tmpPath, path); err != nil {
		return fmt.Errorf("registration state: %w", err)
	}
	return syncDir(filepath.Dir(path))
}

func writeMeta(path string, b Binding) error {
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: lockTimeout})
	if err != nil {
		return err
	}
	err = db.Update(func(tx *bolt.Tx) error {
		meta, err := tx.CreateBucket(bucketMeta)
		if err != nil {
			return err
		}
		if _, err := tx.CreateBucket(bucketRegs); err != nil {
			return err
		}
		for k, v := range metaValues(b) {
			if err := meta.Put([]byte(k), v); err != nil {
				return err
			}
		}
		return meta.Put(keyIssued, u64(0))
	})
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	return err
}

func metaValues(b Binding) map[string][]byte {
	return map[string][]byte{
		string(keyFormat):    []byte(stateFormat),
		string(keyElection):  []byte(b.ElectionID),
		string(keyManifest):  b.ManifestDigest[:],
		string(keyRoll):      b.RollDigest[:],
		string(keyMaxVoters): u64(b.MaxVoters),
	}
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

func u64(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }

// OpenStore opens an existing state file made for b. A missing file, a file
// held by another process, and a file of another election or roll are errors
// that name what is wrong.
func OpenStore(path string, b Binding) (*Store, error) {
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: lockTimeout, OpenFile: openFile})
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("registration state %s does not exist: a missing state would make every used code work again; if this is a new election, create it with `fabvote ea init-state` (or `ea serve --init-state`)", path)
	}
	if errors.Is(err, bolt.ErrTimeout) {
		return nil, fmt.Errorf("%w: %s is locked (is another `fabvote ea serve` running on it?)", ErrStateLocked, path)
	}
	if err != nil {
		return nil, fmt.Errorf("registration state %s: %w", path, err)
	}
	if err := db.View(func(tx *bolt.Tx) error { return checkMeta(tx, b) }); err != nil {
		db.Close()
		return nil, fmt.Errorf("registration state %s: %w", path, err)
	}
	return &Store{db: db, binding: b}, nil
}

// openFile opens the state file for bbolt. Tests substitute it to keep the
// file and make the disk fail under the store.
var openFile = openExisting

// openExisting is os.OpenFile without O_CREATE: opening never makes a state.
func openExisting(path string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(path, flag&^os.O_CREATE, perm)
}

func checkMeta(tx *bolt.Tx, b Binding) error {
	meta := tx.Bucket(bucketMeta)
	if meta == nil || tx.Bucket(bucketRegs) == nil {
		return errors.New("not a fabvote registration state (no meta bucket)")
	}
	if got := string(meta.Get(keyFormat)); got != stateFormat {
		return fmt.Errorf("format %q, want %q", got, stateFormat)
	}
	if got := string(meta.Get(keyElection)); got != b.ElectionID {
		return fmt.Errorf("belongs to election %q, not %q", got, b.ElectionID)
	}
	if got := meta.Get(keyManifest); !bytes.Equal(got, b.ManifestDigest[:]) {
		return fmt.Errorf("was made for another manifest of election %q (digest %s, this manifest %s)", b.ElectionID, short(got), short(b.ManifestDigest[:]))
	}
	if got := meta.Get(keyRoll); !bytes.Equal(got, b.RollDigest[:]) {
		return fmt.Errorf("was made for another voter roll (roll digest %s, this roll %s)", short(got), short(b.RollDigest[:]))
	}
	if got := meta.Get(keyMaxVoters); !bytes.Equal(got, u64(b.MaxVoters)) {
		return fmt.Errorf("was made for another maxVoters")
	}
	if len(meta.Get(keyIssued)) != 8 {
		return errors.New("token count is damaged")
	}
	return nil
}

func short(b []byte) string {
	if len(b) > 8 {
		b = b[:8]
	}
	return hex.EncodeToString(b)
}

// Close releases the file and its lock.
func (s *Store) Close() error { return s.db.Close() }

// Register returns id's registration. The first call for id stores a new
// one made by mint; a later call with the same key returns the stored token
// again (a retry after a lost answer); another key gets ErrUsed. The token
// count never passes maxVoters. It returns only after the commit is on disk,
// and cancels the minted token when the commit fails.
func (s *Store) Register(id string, voterPub []byte, mint MintFunc) (*Registration, error) {
	var reg *Registration
	var cancel func()
	err := s.db.Update(func(tx *bolt.Tx) error {
		regs, meta := tx.Bucket(bucketRegs), tx.Bucket(bucketMeta)
		if old := regs.Get([]byte(id)); old != nil {
			return replay(old, id, voterPub, &reg)
		}
		issued := binary.BigEndian.Uint64(meta.Get(keyIssued))
		if issued >= s.binding.MaxVoters {
			return ErrFull
		}
		tok, c, err := mint(id, voterPub)
		if err != nil {
			return fmt.Errorf("issuing token: %w", err)
		}
		cancel = c
		reg = &Registration{VoterID: id, VoterPub: bytes.Clone(voterPub), Token: tok, Time: time.Now().UTC()}
		val, err := json.Marshal(reg)
		if err != nil {
			return err
		}
		if err := regs.Put([]byte(id), val); err != nil {
			return err
		}
		return meta.Put(keyIssued, u64(issued+1))
	})
	if err != nil {
		if cancel != nil {
			cancel()
		}
		return nil, err
	}
	return reg, nil
}

func replay(stored []byte, id string, voterPub []byte, out **Registration) error {
	var old Registration
	if err := json.Unmarshal(stored, &old); err != nil {
		return fmt.Errorf("stored registration of %q: %w", id, err)
	}
	if !bytes.Equal(old.VoterPub, voterPub) {
		return ErrUsed
	}
	old.Replayed = true
	*out = &old
	return nil
}

// Lookup returns id's stored registration, or nil.
func (s *Store) Lookup(id string) (*Registration, error) {
	var reg *Registration
	err := s.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketRegs).Get([]byte(id))
		if v == nil {
			return nil
		}
		reg = new(Registration)
		return json.Unmarshal(v, reg)
	})
	return reg, err
}

// Count returns how many tokens were issued.
func (s *Store) Count() (n uint64) {
	s.db.View(func(tx *bolt.Tx) error {
		n = binary.BigEndian.Uint64(tx.Bucket(bucketMeta).Get(keyIssued))
		return nil
	})
	return n
}
