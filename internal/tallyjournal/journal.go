// Package tallyjournal is a trustee's record, in its own directory, of the
// one tally product it has decrypted for each election. Two partial
// decryptions of two tallies that differ by one ballot would reveal that
// ballot's vote, so trustee.Tally.PartialDecrypt records the tally here,
// durably and under a lock on the directory, before it computes a partial,
// and a different product for the same election is refused (ErrOtherTally).
//
// The journal is file handling only; the check that uses it lives with the
// tally recomputation in internal/trustee.
package tallyjournal

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"os"
	"path/filepath"
	"syscall"

	"github.com/fabvote/fabvote/internal/atomicfile"
)

// File is the journal's name in the trustee's directory, next to its age
// identity: the two are backed up and moved together.
const File = "decrypted.json"

// journalVersion is the version of the journal's format.
const journalVersion = 1

// Domain tags of the journal's hashes.
const (
	productTag  = "fabvote/trustee/tally-product/v1"
	manifestTag = "fabvote/trustee/manifest/v1"
)

// ErrOtherTally: the trustee already decrypted another tally of the
// election. Two partials of two tallies that differ by one ballot would
// reveal that ballot's vote.
var ErrOtherTally = errors.New("this trustee already decrypted another tally of the election")

// Journal records, in a trustee's own directory, the one tally product it
// has decrypted for each election. trustee.Tally.PartialDecrypt writes the
// record, durably, before it computes the partial, and refuses any other
// product for the same election.
type Journal struct {
	dir string
}

// journalEntry is what the journal keeps per election.
type journalEntry struct {
	ElectionID string `json:"electionID"`
	Product    string `json:"productSHA256"` // hex of productHash
	Ballots    int    `json:"ballots"`       // valid ballots multiplied in
}

// journalDoc keys elections by the hash of their whole manifest (ManifestKey),
// window included: an election is its manifest on its channel, and the
// chaincode opens an id only once per channel. The same id opened again on
// a new network (a new channel or window) is another election.
type journalDoc struct {
	Version   int                     `json:"version"`
	Elections map[string]journalEntry `json:"elections"`
}

// Open is the journal in dir, the trustee's directory (the one holding its
// age identity). dir must exist; the journal file need not.
func Open(dir string) (*Journal, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("trustee journal: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("trustee journal: %s is not a directory", dir)
	}
	return &Journal{dir: dir}, nil
}

// Path is the journal file.
func (j *Journal) Path() string { return filepath.Join(j.dir, File) }

// Record notes that the trustee decrypts product (of ballots valid
// ballots) for the election whose ManifestKey is manifest, or refuses if it
// decrypted another product before (ErrOtherTally). width is the length in
// bytes of N², so that the product hashes in a fixed-width form. The
// directory is locked meanwhile, so two processes of one trustee cannot
// both pass.
func (j *Journal) Record(manifest string, electionID string, product *big.Int, width, ballots int) error {
	unlock, err := lockDir(j.dir)
	if err != nil {
		return err
	}
	defer unlock()
	doc, err := j.read()
	if err != nil {
		return err
	}
	e := journalEntry{ElectionID: electionID, Product: productHash(product, width), Ballots: ballots}
	if prev, ok := doc.Elections[manifest]; ok {
		if prev == e {
			return nil // the same tally again: the same partial adds nothing
		}
		return fmt.Errorf("election %q: %w (journal %s): product %s of %d ballots then, product %s of %d ballots now",
			electionID, ErrOtherTally, j.Path(), prev.Product, prev.Ballots, e.Product, e.Ballots)
	}
	doc.Elections[manifest] = e
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(j.Path(), append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("trustee journal: %w", err)
	}
	return syncDir(j.dir)
}

func (j *Journal) read() (*journalDoc, error) {
	doc := &journalDoc{Version: journalVersion, Elections: map[string]journalEntry{}}
	b, err := os.ReadFile(j.Path())
	if errors.Is(err, fs.ErrNotExist) {
		return doc, nil
	}
	if err != nil {
		return nil, fmt.Errorf("trustee journal: %w", err)
	}
	doc = &journalDoc{}
	if err := json.Unmarshal(b, doc); err != nil || doc.Version != journalVersion || doc.Elections == nil {
		return nil, fmt.Errorf("trustee journal %s: not a version-%d journal (restore it from the backup of this trustee's directory)", j.Path(), journalVersion)
	}
	return doc, nil
}

// productHash is SHA-256(productTag ‖ product), the product in fixed-width
// big-endian form of width bytes (the length of N²).
func productHash(product *big.Int, width int) string {
	h := sha256.New()
	h.Write([]byte(productTag))
	h.Write(product.FillBytes(make([]byte, width)))
	return hex.EncodeToString(h.Sum(nil))
}

// ManifestKey is SHA-256(manifestTag ‖ manifest), hex: the journal's key
// for the election of manifest (its canonical bytes).
func ManifestKey(manifest []byte) string {
	h := sha256.Sum256(append([]byte(manifestTag), manifest...))
	return hex.EncodeToString(h[:])
}

// lockDir takes an exclusive advisory lock on dir until unlock.
func lockDir(dir string) (unlock func(), err error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("trustee journal: %w", err)
	}
	if err := syscall.Flock(int(d.Fd()), syscall.LOCK_EX); err != nil {
		d.Close()
		return nil, fmt.Errorf("trustee journal: locking %s: %w", dir, err)
	}
	return func() { d.Close() }, nil
}

// syncDir makes the journal's rename durable before any partial goes out.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("trustee journal: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("trustee journal: syncing %s: %w", dir, err)
	}
	return nil
}
