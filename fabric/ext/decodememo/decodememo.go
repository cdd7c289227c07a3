// Package decodememo is the shared-decode memo of fabvote's Fabric fork
// (optimisation O-VI), selected at process start by an environment variable:
//
//	FABVOTE_DECODE_MEMO=off    every decode is computed (the default: stock
//	                           behaviour)
//	FABVOTE_DECODE_MEMO=on     the commit path decodes each transaction's
//	                           envelope, payload, transaction, action payload,
//	                           proposal response payload and chaincode action
//	                           once, and every later stage that asks for the
//	                           same bytes gets the same decoded message
//	FABVOTE_DECODE_MEMO=check  as on, and every answer from the memo is
//	                           compared with a fresh decode of its bytes: a
//	                           difference panics, naming the message's kind
//
// A peer committing a block decodes each transaction again at every stage:
// the structural check, the plugin dispatcher, the validation plugin, the
// key-level endorsement check, the private-data coordinator and the ledger's
// batch preparer each unmarshal the envelope and the messages nested in it,
// copying the ballot's bytes at every level. Decoding is a deterministic
// function of the bytes, so the second decode of the same bytes is the first.
//
// What the memo trusts, and only that: an earlier decode, in this process,
// of the same bytes (the same array, offset and length) into the same kind
// of message, which succeeded. A failed decode
// is never remembered: it is computed again and its error returned as
// computed. The callers that use the memo (the fork's commit path) read the
// messages they get and never write to them or to the bytes; check mode
// tests exactly that on the running peer.
//
// The memo is bounded: it holds the Capacity most recently added entries
// (first in, first out). The package imports only the standard library so
// that it can be copied unchanged into the patched Fabric tree; the caller
// supplies the decoder and, for check mode, the equality of two messages.
package decodememo

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
)

// EnvVar names the environment variable read at process start.
const EnvVar = "FABVOTE_DECODE_MEMO"

// Capacity is the number of decoded messages the process memo holds: six
// per transaction for a block of 500 transactions and some to spare, because
// a block's later stages (private data, the ledger) decode it after every
// transaction of the block has been validated, and a peer commits one block
// at a time. Each message holds a copy of most of its transaction's bytes,
// so for ballots of about 11 KB the memo keeps up to about 45 MB alive.
const Capacity = 1 << 12

// Kind names the message type that bytes are decoded into: the same bytes
// decoded as two kinds are two entries.
type Kind uint8

// Decoder decodes b into a fresh message of one kind. On error it returns
// what it returns (a partial message, say) and the error.
type Decoder func(b []byte) (any, error)

// Equal reports whether two messages of the same kind are equal; check mode
// uses it.
type Equal func(a, b any) bool

// Mode is the setting of the memo.
type Mode int

const (
	Off   Mode = iota // every decode is computed
	On                // repeated decodes of the same bytes are shared
	Check             // shared, and every shared answer is verified
)

func (m Mode) String() string {
	switch m {
	case On:
		return "on"
	case Check:
		return "check"
	default:
		return "off"
	}
}

// key identifies the bytes by where they are: holding the pointer keeps the
// array alive, so no other bytes can ever come to have this key.
type key struct {
	data *byte
	n    int
	kind Kind
}

// Memo is a bounded map from decoded bytes to their decoded message.
type Memo struct {
	mu       sync.Mutex
	entries  map[key]any
	order    []key // ring of the keys in the order they were added
	next     int   // the slot of order that the next add overwrites
	capacity int
	check    bool
	equal    Equal
	hits     atomic.Uint64
	misses   atomic.Uint64
}

// New returns an empty memo that holds at most capacity messages. With
// check, every answer from the memo is compared by equal with a fresh decode.
func New(capacity int, check bool, equal Equal) *Memo {
	if capacity < 1 {
		panic("decodememo: capacity must be positive")
	}
	if check && equal == nil {
		panic("decodememo: check mode needs an equality")
	}
	return &Memo{
		entries:  make(map[key]any, capacity),
		order:    make([]key, 0, capacity),
		capacity: capacity,
		check:    check,
		equal:    equal,
	}
}

// Decode returns decode(b), or the message that an earlier successful Decode
// of the same bytes into the same kind returned. Callers must not modify the
// message or b.
func (m *Memo) Decode(kind Kind, b []byte, decode Decoder) (any, error) {
	if len(b) == 0 {
		return decode(b) // no array to key on, and nothing to save
	}
	k := key{data: unsafe.SliceData(b), n: len(b), kind: kind}
	if msg, ok := m.lookup(k); ok {
		m.hits.Add(1)
		if m.check {
			m.verify(kind, b, msg, decode)
		}
		return msg, nil
	}
	m.misses.Add(1)
	msg, err := decode(b)
	if err != nil {
		return msg, err
	}
	m.add(k, msg)
	return msg, nil
}

// lookup needs no comparison of contents: a key names one array, offset and
// length, and the key's pointer keeps that array alive.
func (m *Memo) lookup(k key) (any, bool) {
	m.mu.Lock()
	msg, ok := m.entries[k]
	m.mu.Unlock()
	return msg, ok
}

// verify panics unless msg equals a fresh decode of b: in check mode a
// difference means that a caller wrote to a shared message or to its bytes.
func (m *Memo) verify(kind Kind, b []byte, msg any, decode Decoder) {
	fresh, err := decode(b)
	if err != nil {
		panic(fmt.Sprintf("decodememo: kind %d: the memo holds a message for bytes that no longer decode: %v", kind, err))
	}
	if !m.equal(fresh, msg) {
		panic(fmt.Sprintf("decodememo: kind %d: a shared message differs from a fresh decode of its bytes (a caller modified it)", kind))
	}
}

// add inserts k, evicting the oldest entry when the memo is full.
func (m *Memo) add(k key, msg any) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.entries[k]; ok {
		return
	}
	if len(m.order) < m.capacity {
		m.order = append(m.order, k)
	} else {
		delete(m.entries, m.order[m.next])
		m.order[m.next] = k
		m.next = (m.next + 1) % m.capacity
	}
	m.entries[k] = msg
}

// Len returns the number of messages held.
func (m *Memo) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.entries)
}

// Stats returns how many Decode calls were answered from the memo (hits) and
// how many called the decoder (misses).
func (m *Memo) Stats() (hits, misses uint64) { return m.hits.Load(), m.misses.Load() }

// The process-wide setting and memo, settled on first use. This follows
// sigmemo's and leveldbopts's settle and parse: the fork's packages are
// copied into the tree one by one and may not import each other.
var (
	once      sync.Once
	mode      Mode
	configErr error
	process   *Memo
	equalFn   Equal
)

// SetEqual gives the process memo its equality for check mode. It must be
// called before the first Process, Setting or Decode call (the fork's
// protoutil does it in an init function).
func SetEqual(eq Equal) { equalFn = eq }

func settle() {
	once.Do(func() {
		mode, configErr = ParseSetting(os.Getenv(EnvVar))
		if mode == Check && equalFn == nil {
			mode, configErr = On, fmt.Errorf("%s=check but no equality was set; the memo is on without checks", EnvVar)
		}
		if mode != Off {
			process = New(Capacity, mode == Check, equalFn)
		}
	})
}

// ParseSetting parses the environment variable's value; an invalid value is
// an error and means Off.
func ParseSetting(v string) (Mode, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "off":
		return Off, nil
	case "on":
		return On, nil
	case "check":
		return Check, nil
	default:
		return Off, fmt.Errorf("%s=%q is not off, on or check; the memo is off", EnvVar, v)
	}
}

// Setting returns the process's mode.
func Setting() Mode { settle(); return mode }

// ConfigError returns why the environment variable's value was not used, or nil.
func ConfigError() error { settle(); return configErr }

// Process returns the process-wide memo, or nil when the memo is off.
func Process() *Memo { settle(); return process }

// Shared returns decode(b) through the process-wide memo when it is on.
func Shared(kind Kind, b []byte, decode Decoder) (any, error) {
	m := Process()
	if m == nil {
		return decode(b)
	}
	return m.Decode(kind, b, decode)
}
