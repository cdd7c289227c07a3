// Package registrar is the election authority's voter registration: a voter
// roll of (voter id, one-time code) pairs, an HTTPS service that checks a pair
// and returns the authority's token over the voter's public key, its client,
// and the record of used codes (persisted atomically, so a code works once
// even across restarts).
//
// It is deliberately the demo's eligibility check, not a real identity proof:
// whoever holds a roll entry's code may register one key for that voter id.
package registrar

import (
	"bufio"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/fabvote/fabvote/internal/atomicfile"
)

// Roll maps voter ids to their one-time codes (kept as SHA-256 digests so a
// timing side channel cannot leak them).
type Roll struct {
	ids   []string
	codes map[string][32]byte
}

var voterIDRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._@-]{0,127}$`)

// CheckVoterID rejects ids that could confuse the CSV or the logs.
func CheckVoterID(id string) error {
	if !voterIDRE.MatchString(id) {
		return fmt.Errorf("voter id %q must be 1..128 characters of [A-Za-z0-9._@-] starting with a letter or digit", id)
	}
	return nil
}

// ParseRoll reads "voter_id,code" lines. A first line "voter_id,code" is a
// header; blank lines and lines starting with '#' are ignored. name labels errors.
func ParseRoll(r io.Reader, name string) (*Roll, error) {
	roll := &Roll{codes: map[string][32]byte{}}
	seen := map[[32]byte]string{}
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") || (line == 1 && text == "voter_id,code") {
			continue
		}
		id, code, ok := strings.Cut(text, ",")
		if !ok {
			return nil, fmt.Errorf("%s:%d: want \"voter_id,code\"", name, line)
		}
		id, code = strings.TrimSpace(id), strings.TrimSpace(code)
		if err := CheckVoterID(id); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if err := CheckCodeStrength(code); err != nil {
			return nil, fmt.Errorf("%s:%d: code for %q: %w", name, line, id, err)
		}
		if _, dup := roll.codes[id]; dup {
			return nil, fmt.Errorf("%s:%d: voter id %q appears twice", name, line, id)
		}
		digest := sha256.Sum256([]byte(code))
		if other, dup := seen[digest]; dup {
			return nil, fmt.Errorf("%s:%d: voter %q has the same code as %q: codes must be drawn at random for each voter", name, line, id, other)
		}
		seen[digest] = id
		roll.ids = append(roll.ids, id)
		roll.codes[id] = digest
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(roll.ids) == 0 {
		return nil, fmt.Errorf("%s: the roll has no voters", name)
	}
	return roll, nil
}

// LoadRoll reads a roll file.
func LoadRoll(path string) (*Roll, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("voter roll: %w", err)
	}
	defer f.Close()
	return ParseRoll(f, path)
}

// Len is the number of voters on the roll.
func (r *Roll) Len() int { return len(r.ids) }

// IDs returns the voter ids in file order.
func (r *Roll) IDs() []string { return append([]string(nil), r.ids...) }

// Has reports whether id is on the roll.
func (r *Roll) Has(id string) bool { _, ok := r.codes[id]; return ok }

// Digest identifies the roll: SHA-256 over its ids in sorted order, each with
// its code's digest, under a versioned tag. The registration state stores it,
// so a state is only ever used with the roll it was made for.
func (r *Roll) Digest() [32]byte {
	ids := r.IDs()
	sort.Strings(ids)
	h := sha256.New()
	h.Write([]byte("fabvote/registrar/roll/v1\x00"))
	var n [8]byte
	for _, id := range ids {
		binary.BigEndian.PutUint64(n[:], uint64(len(id)))
		h.Write(n[:])
		h.Write([]byte(id))
		c := r.codes[id]
		h.Write(c[:])
	}
	var d [32]byte
	h.Sum(d[:0])
	return d
}

// Check reports whether code is id's code, in constant time.
func (r *Roll) Check(id, code string) bool {
	want, ok := r.codes[id]
	got := sha256.Sum256([]byte(code))
	return ok && subtle.ConstantTimeCompare(want[:], got[:]) == 1
}

// NewCode returns a random one-time code (20 base32 characters, 100 bits).
func NewCode() (string, error) {
	var b [13]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:])[:20], nil
}

// WriteNewRoll writes a roll of n voters "voter-000001".. with fresh codes to
// path (mode 0600: the codes are secrets) and returns nothing else; the EA
// hands each voter their line out of band.
func WriteNewRoll(path string, n int, prefix string) error {
	if n <= 0 {
		return fmt.Errorf("roll size %d: want at least 1", n)
	}
	return atomicfile.WriteWith(path, 0o600, func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		fmt.Fprintln(bw, "voter_id,code")
		for i := 1; i <= n; i++ {
			code, err := NewCode()
			if err != nil {
				return err
			}
			fmt.Fprintf(bw, "%s%06d,%s\n", prefix, i, code)
		}
		return bw.Flush()
	})
}

// ReadRollCodes returns the plain (id, code) pairs of a roll file; used by the
// demo and tests, which play the voters.
func ReadRollCodes(path string) ([][2]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out [][2]string
	for i, l := range strings.Split(string(data), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") || (i == 0 && l == "voter_id,code") {
			continue
		}
		id, code, ok := strings.Cut(l, ",")
		if !ok {
			return nil, fmt.Errorf("%s:%d: want \"voter_id,code\"", path, i+1)
		}
		out = append(out, [2]string{strings.TrimSpace(id), strings.TrimSpace(code)})
	}
	return out, nil
}
