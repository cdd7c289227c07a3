// Package sigmemo is the verified-signature memo of fabvote's Fabric fork
// (optimisation O-V), selected at process start by an environment variable:
//
//	FABVOTE_SIG_MEMO=off   every ECDSA verification is computed (the default:
//	                       stock behaviour)
//	FABVOTE_SIG_MEMO=on    a verification that this process has already
//	                       computed, and found valid, for exactly the same
//	                       public key, digest and signature bytes is a lookup
//
// A peer verifies the same signature more than once: the endorser checks a
// proposal's signature when it validates the message and again when the ACL
// check evaluates the channel's Writers policy over the same signed data.
// ECDSA verification is a deterministic function of (public key, digest,
// signature), so the second answer is the first one.
//
// What the memo trusts, and only that: an earlier call of the verification
// function in this same process that returned true for the same key, digest
// and signature. Nothing is ever added from outside a verification: not a
// signature this process made (a faulty signature would then be accepted
// here and refused by every other peer), not a failed verification (a
// refusal is recomputed, so a memo can only ever turn a recomputation into
// the same "true"). The entry is a SHA-256 over a versioned, domain-separated
// encoding of the curve, both coordinates, the digest and the exact
// signature bytes; a different encoding of the same (r, s) is another entry.
//
// The memo is bounded: it holds the Capacity most recently added entries
// (first in, first out). The fork's patch consults it in bccsp/sw's
// verifyECDSA after Fabric's own DER parsing and low-S check, so the errors
// and their texts are stock Fabric's. The package imports only the standard
// library so that it can be copied unchanged into the patched Fabric tree.
package sigmemo

import (
	"crypto/ecdsa"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/big"
	"os"
	"strings"
	"sync"
	"sync/atomic"
)

// EnvVar names the environment variable read at process start.
const EnvVar = "FABVOTE_SIG_MEMO"

// Capacity is the number of verified signatures the process memo holds:
// enough for every signature of several blocks of 500 transactions, while a
// proposal's second verification follows its first within milliseconds.
const Capacity = 1 << 14

// domain separates the memo's hash from every other SHA-256 in the peer.
const domain = "fabvote/sigmemo/v1"

// Key identifies one (public key, digest, signature) triple.
type Key [sha256.Size]byte

// KeyOf returns the memo key of a verification of sig over digest by pub,
// and false for a key it cannot encode exactly (no curve, or a coordinate
// that is negative or wider than the curve): such a verification is never
// memoised. Every variable-length field is length-prefixed and the
// coordinates are written at the curve's fixed width, so distinct triples
// never share an encoding.
func KeyOf(pub *ecdsa.PublicKey, digest, sig []byte) (Key, bool) {
	if pub == nil || pub.Curve == nil || pub.X == nil || pub.Y == nil {
		return Key{}, false
	}
	params := pub.Curve.Params()
	width := (params.BitSize + 7) / 8
	if !fits(pub.X, width) || !fits(pub.Y, width) {
		return Key{}, false
	}
	buf := make([]byte, 0, 6*8+len(domain)+len(params.Name)+2*width+len(digest)+len(sig))
	buf = appendField(buf, []byte(domain))
	buf = appendField(buf, []byte(params.Name))
	buf = appendField(buf, pub.X.FillBytes(make([]byte, width)))
	buf = appendField(buf, pub.Y.FillBytes(make([]byte, width)))
	buf = appendField(buf, digest)
	buf = appendField(buf, sig)
	return Key(sha256.Sum256(buf)), true
}

func fits(v *big.Int, width int) bool { return v.Sign() >= 0 && v.BitLen() <= 8*width }

// appendField appends b to buf after its length as 8 big-endian bytes.
func appendField(buf, b []byte) []byte {
	buf = binary.BigEndian.AppendUint64(buf, uint64(len(b)))
	return append(buf, b...)
}

// Memo is a bounded set of keys of verifications that returned true.
type Memo struct {
	mu      sync.Mutex
	set     map[Key]struct{}
	order   []Key // ring of the keys in the order they were added
	next    int   // the slot of order that the next Add overwrites
	hits    atomic.Uint64
	misses  atomic.Uint64
	maxSize int
}

// New returns an empty memo that holds at most capacity keys.
func New(capacity int) *Memo {
	if capacity < 1 {
		panic("sigmemo: capacity must be positive")
	}
	return &Memo{set: make(map[Key]struct{}, capacity), order: make([]Key, 0, capacity), maxSize: capacity}
}

// Verify returns verify's answer for the triple that k identifies. It calls
// verify unless an earlier Verify with the same key returned true, and
// remembers a true answer.
func (m *Memo) Verify(k Key, verify func() bool) bool {
	if m.contains(k) {
		m.hits.Add(1)
		return true
	}
	m.misses.Add(1)
	if !verify() {
		return false
	}
	m.add(k)
	return true
}

func (m *Memo) contains(k Key) bool {
	m.mu.Lock()
	_, ok := m.set[k]
	m.mu.Unlock()
	return ok
}

// add inserts k, evicting the oldest key when the memo is full.
func (m *Memo) add(k Key) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.set[k]; ok {
		return
	}
	if len(m.order) < m.maxSize {
		m.order = append(m.order, k)
	} else {
		delete(m.set, m.order[m.next])
		m.order[m.next] = k
		m.next = (m.next + 1) % m.maxSize
	}
	m.set[k] = struct{}{}
}

// Len returns the number of keys held.
func (m *Memo) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.set)
}

// Stats returns how many Verify calls were answered from the memo (hits)
// and how many called the verification function (misses).
func (m *Memo) Stats() (hits, misses uint64) { return m.hits.Load(), m.misses.Load() }

// The process-wide switch and memo, settled on first use.
var (
	once      sync.Once
	enabled   bool
	configErr error
	process   *Memo
)

func settle() {
	once.Do(func() {
		enabled, configErr = parseSetting(os.Getenv(EnvVar))
		if enabled {
			process = New(Capacity)
		}
	})
}

func parseSetting(v string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "off":
		return false, nil
	case "on":
		return true, nil
	default:
		return false, fmt.Errorf("%s=%q is not off or on; the memo is off", EnvVar, v)
	}
}

// Enabled reports whether FABVOTE_SIG_MEMO turned the memo on.
func Enabled() bool { settle(); return enabled }

// ConfigError returns why the environment variable's value was not used, or nil.
func ConfigError() error { settle(); return configErr }

// Process returns the process-wide memo, or nil when the memo is off.
func Process() *Memo { settle(); return process }

// VerifyECDSA returns verify's answer for sig over digest by pub, through the
// process-wide memo when it is on.
func VerifyECDSA(pub *ecdsa.PublicKey, digest, sig []byte, verify func() bool) bool {
	m := Process()
	if m == nil {
		return verify()
	}
	k, ok := KeyOf(pub, digest, sig)
	if !ok {
		return verify()
	}
	return m.Verify(k, verify)
}
