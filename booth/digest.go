package booth

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// DigestDomain separates the booth's digest from every other SHA-256 of
// the project.
const DigestDomain = "fabvote/booth-digest/v1"

// Files are the booth's files by path (slash-separated, relative to the
// booth's directory): what a server serves and what the digest covers.
type Files map[string][]byte

// ReadFiles reads every regular file under dir. Anything else (a symbolic
// link, a device) is refused: it could serve other bytes than the digest
// covers.
func ReadFiles(dir string) (Files, error) {
	files := Files{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("booth: %s is not a regular file", path)
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(rel)] = b
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("booth: %s holds no file", dir)
	}
	return files, nil
}

// Digest is "sha256:" and the hex SHA-256 of DigestDomain followed by,
// for each file in the order of its path, the path's length (8 bytes, big
// endian), the path and the SHA-256 of the file's content: one value that
// names the booth a manifest commits to (its boothDigest).
func (f Files) Digest() string {
	paths := make([]string, 0, len(f))
	for p := range f {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	h := sha256.New()
	h.Write([]byte(DigestDomain))
	for _, p := range paths {
		h.Write(binary.BigEndian.AppendUint64(nil, uint64(len(p))))
		h.Write([]byte(p))
		sum := sha256.Sum256(f[p])
		h.Write(sum[:])
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// Digest is the digest of the booth's files in dir (Files.Digest).
func Digest(dir string) (string, error) {
	f, err := ReadFiles(dir)
	if err != nil {
		return "", err
	}
	return f.Digest(), nil
}
