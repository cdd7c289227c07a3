// Package leveldbopts holds the LevelDB options of fabvote's Fabric fork
// (optimisation O-VII), selected at process start by an environment variable:
//
//	FABVOTE_LEVELDB=stock   goleveldb's defaults, as stock Fabric opens every
//	                        LevelDB (the default)
//	FABVOTE_LEVELDB=tuned   Tuned: a bloom filter, no compression, a larger
//	                        memtable and block cache
//
// Stock Fabric opens every database of leveldbhelper (a peer's state,
// history, block index, bookkeeping, private-data and transient stores, an
// orderer's block index) with an empty opt.Options: no bloom filter, a 4 MiB
// memtable, an 8 MiB block cache and Snappy compression. An election writes
// one new key per ballot, and the chaincode first reads that key to refuse a
// second ballot: almost every read at endorsement, and the MVCC check at
// commit, asks for a key that is not there, which without a filter costs a
// lookup in every level that may hold it. The values are Paillier
// ciphertexts and proofs, which no compressor shrinks, so Snappy only costs
// CPU.
//
// None of these options changes what a database holds: they decide how
// tables are laid out on disk and what is kept in memory, and goleveldb reads
// a table written under any of them (a table without a filter block is
// searched as before), so a peer can be restarted with the other setting.
// The package imports only the standard library and goleveldb so that it can
// be copied unchanged into the patched Fabric tree.
package leveldbopts

import (
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/syndtr/goleveldb/leveldb/filter"
	"github.com/syndtr/goleveldb/leveldb/opt"
)

// EnvVar names the environment variable read at process start.
const EnvVar = "FABVOTE_LEVELDB"

// Tuning is a set of LevelDB options; the zero Tuning is goleveldb's defaults.
type Tuning struct {
	BloomBitsPerKey int  // bits per key of a bloom filter; 0: no filter
	WriteBufferMiB  int  // memtable size; 0: goleveldb's 4 MiB
	BlockCacheMiB   int  // block cache size; 0: goleveldb's 8 MiB
	NoCompression   bool // store blocks uncompressed instead of Snappy
}

// Stock is the options stock Fabric opens every LevelDB with.
var Stock = Tuning{}

// Tuned is FABVOTE_LEVELDB=tuned. 10 bits per key gives a false-positive
// rate near 1 %. The memtable and cache sizes are per database; a peer opens
// about six.
var Tuned = Tuning{BloomBitsPerKey: 10, WriteBufferMiB: 16, BlockCacheMiB: 32, NoCompression: true}

// Options returns a new opt.Options with t's settings.
func (t Tuning) Options() *opt.Options {
	o := &opt.Options{}
	if t.BloomBitsPerKey > 0 {
		o.Filter = filter.NewBloomFilter(t.BloomBitsPerKey)
	}
	if t.WriteBufferMiB > 0 {
		o.WriteBuffer = t.WriteBufferMiB * opt.MiB
	}
	if t.BlockCacheMiB > 0 {
		o.BlockCacheCapacity = t.BlockCacheMiB * opt.MiB
	}
	if t.NoCompression {
		o.Compression = opt.NoCompression
	}
	return o
}

// String names the setting as FABVOTE_LEVELDB does, or lists its fields.
func (t Tuning) String() string {
	switch t {
	case Stock:
		return "stock"
	case Tuned:
		return "tuned"
	}
	return fmt.Sprintf("bloom %d bits/key, memtable %d MiB, block cache %d MiB, no compression %v",
		t.BloomBitsPerKey, t.WriteBufferMiB, t.BlockCacheMiB, t.NoCompression)
}

var (
	once      sync.Once
	active    Tuning
	configErr error
)

func settle() {
	once.Do(func() { active, configErr = parseSetting(os.Getenv(EnvVar)) })
}

func parseSetting(v string) (Tuning, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "stock":
		return Stock, nil
	case "tuned":
		return Tuned, nil
	default:
		return Stock, fmt.Errorf("%s=%q is not stock or tuned; using stock", EnvVar, v)
	}
}

// Active returns the setting FABVOTE_LEVELDB selected.
func Active() Tuning { settle(); return active }

// ConfigError returns why the environment variable's value was not used, or nil.
func ConfigError() error { settle(); return configErr }

// Options returns new options of the active setting for one database.
func Options() *opt.Options { return Active().Options() }
