package record

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// DigestTag is the record digest's domain tag (RECORD.md section 7.1).
const DigestTag = "fabvote/record-digest/v1\n"

// Digest is the record digest of the record in dir (RECORD.md 7.1):
// SHA-256 of DigestTag and, for every file of the record in its order
// (record.json, manifest.json, result.json when present, ballots.json,
// blocks 0 … lastBlock), the file's path in the record, a newline, the
// lower-case hex SHA-256 of its bytes and a newline. Two reports with the
// same digest are of the same files, byte for byte.
func Digest(dir string, lastBlock uint64) ([]byte, error) {
	names := []string{RecordFile, ManifestFile, ResultFile, BallotsFile}
	h := sha256.New()
	io.WriteString(h, DigestTag)
	add := func(name string) error {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		defer f.Close()
		fh := sha256.New()
		if _, err := io.Copy(fh, f); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		fmt.Fprintf(h, "%s\n%x\n", filepath.ToSlash(name), fh.Sum(nil))
		return nil
	}
	for _, name := range names {
		if err := add(name); errors.Is(err, fs.ErrNotExist) && name == ResultFile {
			continue
		} else if err != nil {
			return nil, err
		}
	}
	for n := uint64(0); n <= lastBlock; n++ {
		if fi, err := os.Stat(filepath.Join(dir, BlockFile(n))); err == nil && fi.Size() > maxBlockFileSize {
			return nil, nil
		}
		if err := add(BlockFile(n)); err != nil {
			return nil, err
		}
	}
	return h.Sum(nil), nil
}
