package decodememo

import (
	"bytes"
	"fmt"
	"sync"
	"sync/atomic"
)

// Definitions is the second half of O-VI: a channel's memo of each
// namespace's validation plugin and policy (its chaincode definition) for
// the block being validated.
//
// The plugin dispatcher reads a transaction's chaincode definition from the
// committed state (the _lifecycle namespace) once for every namespace the
// transaction writes, which is once per ballot. While a peer validates block
// n, the committed state is that of blocks 0..n-1: a channel's blocks are
// validated and committed one at a time, and no commit happens during a
// block's validation. So every transaction of block n reads the same
// definition, and the first read of the block serves the rest.
//
// What the memo trusts, and only that: a successful read, by this channel's
// dispatcher, for the same block number and namespace, of a transaction that
// names this channel (the caller reads a transaction naming another channel
// without the memo, as stock does). A read that fails is
// never remembered. When a block with another number arrives, everything
// held is dropped. In check mode every answer from the memo is compared with
// a fresh read, and a difference panics.
type Definitions struct {
	mu      sync.Mutex
	block   uint64
	entries map[string]Definition // by namespace, for block
	check   bool
	hits    atomic.Uint64
	misses  atomic.Uint64
}

// Definition is what the dispatcher reads for a namespace: the name of its
// validation plugin and the plugin's argument (the endorsement policy).
type Definition struct {
	Plugin string
	Args   []byte
}

// DefinitionReader reads a namespace's definition from the committed state.
type DefinitionReader func() (plugin string, args []byte, err error)

// NewDefinitions returns an empty memo; with check, every answer from it is
// compared with a fresh read.
func NewDefinitions(check bool) *Definitions {
	return &Definitions{entries: map[string]Definition{}, check: check}
}

// ProcessDefinitions returns a new per-channel memo in the process's mode
// (FABVOTE_DECODE_MEMO), or nil when the memo is off.
func ProcessDefinitions() *Definitions {
	switch Setting() {
	case On:
		return NewDefinitions(false)
	case Check:
		return NewDefinitions(true)
	default:
		return nil
	}
}

// Get returns read(), or the definition that an earlier successful Get for
// the same block and namespace returned. Callers must not modify the
// returned args.
func (d *Definitions) Get(block uint64, namespace string, read DefinitionReader) (string, []byte, error) {
	if def, ok := d.lookup(block, namespace); ok {
		d.hits.Add(1)
		if d.check {
			verifyDefinition(block, namespace, def, read)
		}
		return def.Plugin, def.Args, nil
	}
	d.misses.Add(1)
	plugin, args, err := read()
	if err != nil {
		return plugin, args, err
	}
	d.add(block, namespace, Definition{Plugin: plugin, Args: args})
	return plugin, args, nil
}

func (d *Definitions) lookup(block uint64, namespace string) (Definition, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if block != d.block {
		return Definition{}, false
	}
	def, ok := d.entries[namespace]
	return def, ok
}

// add remembers def for block, first dropping what another block left.
// Two transactions of a block may both miss and both read; in check mode the
// second read must then equal the first.
func (d *Definitions) add(block uint64, namespace string, def Definition) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if block != d.block {
		d.block = block
		d.entries = map[string]Definition{}
	}
	if held, ok := d.entries[namespace]; ok && d.check && !sameDefinition(held, def) {
		panic(fmt.Sprintf("decodememo: block %d, namespace %q: two reads within the block differ", block, namespace))
	}
	d.entries[namespace] = def
}

func sameDefinition(a, b Definition) bool {
	return a.Plugin == b.Plugin && bytes.Equal(a.Args, b.Args)
}

// verifyDefinition panics unless a fresh read gives def: in check mode a
// difference means that the state changed during a block's validation, or
// that a caller wrote to the shared policy bytes.
func verifyDefinition(block uint64, namespace string, def Definition, read DefinitionReader) {
	plugin, args, err := read()
	if err != nil {
		panic(fmt.Sprintf("decodememo: block %d, namespace %q: the memo holds a definition that no longer reads: %v", block, namespace, err))
	}
	if !sameDefinition(def, Definition{Plugin: plugin, Args: args}) {
		panic(fmt.Sprintf("decodememo: block %d, namespace %q: the remembered definition differs from a fresh read", block, namespace))
	}
}

// Stats returns how many Get calls were answered from the memo (hits) and
// how many read the state (misses).
func (d *Definitions) Stats() (hits, misses uint64) { return d.hits.Load(), d.misses.Load() }
