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
// timing side channel cannot leak them) and, in an election of several
// ballot styles, to their styles.
type Roll struct {
	ids    []string
	codes  map[string][32]byte
	styles map[string]string // voter id -> ballot style id; absent: none given
}

var voterIDRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._@-]{0,127}$`)

// CheckVoterID rejects ids that could confuse the CSV or the logs.
func CheckVoterID(id string) error {
	if !voterIDRE.MatchString(id) {
		return fmt.Errorf("voter id %q must be 1..128 characters of [A-Za-z0-9._@-] starting with a letter or digit", id)
	}
	return nil
}

// ParseRoll reads "voter_id,code" or "voter_id,code,style" lines, style
// being the id of the voter's ballot style. A first line "voter_id,code"
// or "voter_id,code,style" is a header; blank lines and lines starting
// with '#' are ignored. name labels errors.
func ParseRoll(r io.Reader, name string) (*Roll, error) {
	roll := &Roll{codes: map[string][32]byte{}, styles: map[string]string{}}
	seen := map[[32]byte]string{}
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") || (line == 1 && isRollHeader(text)) {
			continue
		}
		id, code, style, err := splitRollLine(text)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if style != "" {
			roll.styles[id] = style
		}
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

func isRollHeader(line string) bool { return line == "voter_id,code" || line == "voter_id,code,style" }

// splitRollLine splits "voter_id,code[,style]", fields trimmed.
func splitRollLine(line string) (id, code, style string, err error) {
	f := strings.Split(line, ",")
	if len(f) < 2 || len(f) > 3 {
		return "", "", "", fmt.Errorf("want \"voter_id,code\" or \"voter_id,code,style\"")
	}
	for i := range f {
		f[i] = strings.TrimSpace(f[i])
	}
	if len(f) == 3 {
		if style = f[2]; style == "" {
			return "", "", "", fmt.Errorf("the style of %q is empty", f[0])
		}
	}
	return f[0], f[1], style, nil
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

// Styles is the ballot style of every voter the roll gives one.
func (r *Roll) Styles() map[string]string {
	out := make(map[string]string, len(r.styles))
	for id, s := range r.styles {
		out[id] = s
	}
	return out
}

// Has reports whether id is on the roll.
func (r *Roll) Has(id string) bool { _, ok := r.codes[id]; return ok }

// Digest identifies the roll: SHA-256 over its ids in sorted order, each with
// its code's digest and its style, under a versioned tag. The registration
// state stores it, so a state is only ever used with the roll it was made
// for.
func (r *Roll) Digest() [32]byte {
	ids := r.IDs()
	sort.Strings(ids)
	h := sha256.New()
	h.Write([]byte("fabvote/registrar/roll/v2\x00"))
	var n [8]byte
	for _, id := range ids {
		for _, field := range []string{id, r.styles[id]} {
			binary.BigEndian.PutUint64(n[:], uint64(len(field)))
			h.Write(n[:])
			h.Write([]byte(field))
		}
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
// hands each voter their line out of band. With styles, voter i gets
// styles[(i−1) mod len(styles)].
func WriteNewRoll(path string, n int, prefix string, styles []string) error {
	if n <= 0 {
		return fmt.Errorf("roll size %d: want at least 1", n)
	}
	return atomicfile.WriteWith(path, 0o600, func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		if len(styles) == 0 {
			fmt.Fprintln(bw, "voter_id,code")
		} else {
			fmt.Fprintln(bw, "voter_id,code,style")
		}
		for i := 1; i <= n; i++ {
			code, err := NewCode()
			if err != nil {
				return err
			}
			fmt.Fprintf(bw, "%s%06d,%s", prefix, i, code)
			if len(styles) > 0 {
				fmt.Fprintf(bw, ",%s", StyleInTurn(styles, i-1))
			}
			fmt.Fprintln(bw)
		}
		return bw.Flush()
	})
}

// StyleInTurn is the style of the i-th voter (0-based) of a roll or an
// offline registration whose voters get styles in turn.
func StyleInTurn(styles []string, i int) string { return styles[i%len(styles)] }

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
		if l == "" || strings.HasPrefix(l, "#") || (i == 0 && isRollHeader(l)) {
			continue
		}
		id, code, _, err := splitRollLine(l)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, i+1, err)
		}
		out = append(out, [2]string{id, code})
	}
	return out, nil
}
