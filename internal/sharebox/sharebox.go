// Package sharebox keeps each trustee's key share encrypted to that
// trustee's own age key (filippo.io/age, X25519), so that the dealer never
// leaves a usable share on disk: `election create` seals share i to
// recipient i, and only trustee i's identity file opens it.
//
// A trustee makes its key pair with GenerateIdentity and hands the public
// recipient (age1…) to the authority; the identity file (AGE-SECRET-KEY-1…,
// mode 0600) never leaves the trustee. The files are age's own formats, so
// the age command can make or inspect them too.
package sharebox

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"filippo.io/age"

	"github.com/fabvote/fabvote/crypto/paillier/threshold"
	"github.com/fabvote/fabvote/internal/atomicfile"
)

// Files written by GenerateIdentity into a trustee's directory.
const (
	IdentityFile  = "identity.txt"  // the secret age identity, mode 0600
	RecipientFile = "recipient.txt" // the public age recipient, for the authority
)

// maxFile bounds what is read from an identity, recipients or share file.
const maxFile = 1 << 20

// ParseRecipients reads one age X25519 recipient per trustee, in trustee
// order (line i is trustee i); blank lines and lines starting with # are
// skipped. It refuses a list whose length is not want, and a recipient
// given twice: that trustee would hold two shares.
func ParseRecipients(r io.Reader, want int) ([]age.Recipient, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxFile))
	if err != nil {
		return nil, err
	}
	var out []age.Recipient
	seen := map[string]int{}
	for n, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		rcp, err := age.ParseX25519Recipient(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n+1, err)
		}
		if prev, dup := seen[rcp.String()]; dup {
			return nil, fmt.Errorf("line %d: the recipient of trustee %d again: one trustee would hold two shares", n+1, prev)
		}
		out = append(out, rcp)
		seen[rcp.String()] = len(out)
	}
	if len(out) != want {
		return nil, fmt.Errorf("%d recipients for %d trustees: want one per trustee", len(out), want)
	}
	return out, nil
}

// Seal encrypts ks to one recipient. The plaintext encoding is wiped.
func Seal(ks *threshold.KeyShare, to age.Recipient) ([]byte, error) {
	plain, err := ks.MarshalBinary()
	if err != nil {
		return nil, err
	}
	defer clear(plain)
	var buf bytes.Buffer
	w, err := age.Encrypt(&buf, to)
	if err != nil {
		return nil, fmt.Errorf("sealing trustee %d's share: %w", ks.Index, err)
	}
	if _, err := w.Write(plain); err != nil {
		return nil, fmt.Errorf("sealing trustee %d's share: %w", ks.Index, err)
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("sealing trustee %d's share: %w", ks.Index, err)
	}
	return buf.Bytes(), nil
}

// WriteSealed seals ks to one recipient and writes it to path atomically.
func WriteSealed(path string, ks *threshold.KeyShare, to age.Recipient) error {
	sealed, err := Seal(ks, to)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, sealed, 0o600)
}

// ErrNotYours: none of the identities opens the sealed share.
var ErrNotYours = errors.New("the share is not sealed to this identity")

// Open decrypts a sealed share with the trustee's identities.
func Open(sealed []byte, ids ...age.Identity) (*threshold.KeyShare, error) {
	r, err := age.Decrypt(bytes.NewReader(sealed), ids...)
	if err != nil {
		var nm *age.NoIdentityMatchError
		if errors.As(err, &nm) {
			return nil, ErrNotYours
		}
		return nil, fmt.Errorf("opening the sealed share: %w", err)
	}
	plain, err := io.ReadAll(io.LimitReader(r, maxFile))
	defer clear(plain)
	if err != nil {
		return nil, fmt.Errorf("opening the sealed share: %w", err)
	}
	return threshold.ParseKeyShare(plain)
}

// ReadSealedFile opens the sealed share in path.
func ReadSealedFile(path string, ids ...age.Identity) (*threshold.KeyShare, error) {
	b, err := readSmall(path)
	if err != nil {
		return nil, err
	}
	ks, err := Open(b, ids...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ks, nil
}

// ReadIdentityFile reads an age identity file. Like ssh with private keys,
// it refuses a file that group or others may read or write. The mode is
// that of the file opened, not of whatever the path names a moment before.
func ReadIdentityFile(path string) ([]age.Identity, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("identity file %s: not a regular file", path)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("identity file %s: mode %04o is accessible by group or others, want 0600", path, fi.Mode().Perm())
	}
	b, err := readLimited(path, f)
	if err != nil {
		return nil, err
	}
	defer clear(b)
	ids, err := age.ParseIdentities(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("identity file %s: %w", path, err)
	}
	return ids, nil
}

func readSmall(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readLimited(path, f)
}

func readLimited(path string, r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxFile {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, maxFile)
	}
	return b, nil
}

// GenerateIdentity makes a new age key pair in dir (created 0700): the
// identity in dir/identity.txt (0600) and the recipient in
// dir/recipient.txt. It refuses a dir that already holds an identity, so a
// trustee's key is never overwritten, not even by a second keygen running
// at the same moment. The identity is the last file to appear, complete
// (written aside, then linked into place): a keygen that fails leaves no
// identity, and running it again succeeds. It returns the recipient.
func GenerateIdentity(dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	idPath := filepath.Join(dir, IdentityFile)
	if _, err := os.Lstat(idPath); err == nil {
		return "", fmt.Errorf("%s already exists: a trustee keeps its identity; use another directory", idPath)
	}
	id, err := age.GenerateX25519Identity()
	if err != nil {
		return "", err
	}
	rcp := id.Recipient().String()
	if err := atomicfile.WriteFile(filepath.Join(dir, RecipientFile), []byte(rcp+"\n"), 0o644); err != nil {
		return "", err
	}
	secret := []byte(fmt.Sprintf("# fabvote trustee identity (age); recipient: %s\n%s\n", rcp, id))
	defer clear(secret)
	if err := atomicfile.WriteNew(idPath, secret, 0o600); err != nil {
		if errors.Is(err, os.ErrExist) {
			return "", fmt.Errorf("%s already exists: a trustee keeps its identity; use another directory", idPath)
		}
		return "", err
	}
	return rcp, nil
}
