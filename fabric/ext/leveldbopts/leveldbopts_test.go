package leveldbopts

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	mrand "math/rand"
	"testing"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/opt"
	"github.com/syndtr/goleveldb/leveldb/util"
)

func TestTuningOptions(t *testing.T) {
	s := Stock.Options()
	if s.Filter != nil || s.WriteBuffer != 0 || s.BlockCacheCapacity != 0 || s.Compression != opt.DefaultCompression {
		t.Fatalf("stock options are not goleveldb's defaults: %+v", s)
	}
	o := Tuned.Options()
	if o.Filter == nil || o.Filter.Name() != "leveldb.BuiltinBloomFilter" {
		t.Fatalf("tuned filter %v, want the builtin bloom filter", o.Filter)
	}
	if o.WriteBuffer != 16*opt.MiB || o.BlockCacheCapacity != 32*opt.MiB || o.Compression != opt.NoCompression {
		t.Fatalf("tuned options %+v", o)
	}
	if Stock.Options() == Stock.Options() {
		t.Fatal("Options returns a shared value; every database must get its own")
	}
}

func TestParseSetting(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Tuning
		bad  bool
	}{
		{"", Stock, false}, {"stock", Stock, false}, {" tuned ", Tuned, false},
		{"TUNED", Tuned, false}, {"on", Stock, true}, {"bloom", Stock, true},
	} {
		got, err := parseSetting(tc.in)
		if got != tc.want || (err != nil) != tc.bad {
			t.Errorf("parseSetting(%q) = %v, %v; want %v, error %v", tc.in, got, err, tc.want, tc.bad)
		}
	}
	if Stock.String() != "stock" || Tuned.String() != "tuned" {
		t.Fatalf("names %q %q", Stock, Tuned)
	}
}

// op is one write of a replayable workload: a put, or a delete when value is nil.
type op struct {
	key   string
	value []byte
}

// workload is ballots (new keys with incompressible values), overwrites and
// deletes of some of them, and small compressible records, in batches.
func workload(seed int64, n int) [][]op {
	r := mrand.New(mrand.NewSource(seed))
	var batches [][]op
	var keys []string
	for len(keys) < n {
		var b []op
		for i := 0; i < 50 && len(keys) < n; i++ {
			k := fmt.Sprintf("ballot\x00%016x", r.Uint64())
			v := make([]byte, 2000+r.Intn(3000))
			r.Read(v)
			b = append(b, op{k, v})
			keys = append(keys, k)
			if r.Intn(10) == 0 {
				b = append(b, op{fmt.Sprintf("meta\x00%d", r.Intn(20)), bytes.Repeat([]byte("x"), 200)})
			}
			if r.Intn(20) == 0 {
				b = append(b, op{keys[r.Intn(len(keys))], nil})
			}
		}
		batches = append(batches, b)
	}
	return batches
}

func apply(t *testing.T, db *leveldb.DB, batches [][]op) {
	t.Helper()
	for _, ops := range batches {
		b := new(leveldb.Batch)
		for _, o := range ops {
			if o.value == nil {
				b.Delete([]byte(o.key))
			} else {
				b.Put([]byte(o.key), o.value)
			}
		}
		if err := db.Write(b, nil); err != nil {
			t.Fatal(err)
		}
	}
}

func contents(t *testing.T, db *leveldb.DB) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	it := db.NewIterator(nil, nil)
	defer it.Release()
	for it.Next() {
		out[string(it.Key())] = append([]byte(nil), it.Value()...)
	}
	if err := it.Error(); err != nil {
		t.Fatal(err)
	}
	return out
}

func open(t *testing.T, dir string, tuning Tuning) *leveldb.DB {
	t.Helper()
	db, err := leveldb.OpenFile(dir, tuning.Options())
	if err != nil {
		t.Fatalf("opening %s with %v: %v", dir, tuning, err)
	}
	return db
}

// The options change no content: the same writes give the same database
// under every setting, and a database written under one setting reads the
// same after a restart under the other, and takes more writes under it.
func TestSameContentsUnderEverySetting(t *testing.T) {
	first, second := workload(1, 3000), workload(2, 1000)
	var want map[string][]byte
	for _, tc := range []struct{ write, reopen Tuning }{
		{Stock, Stock}, {Tuned, Tuned}, {Stock, Tuned}, {Tuned, Stock},
	} {
		dir := t.TempDir()
		db := open(t, dir, tc.write)
		apply(t, db, first)
		if err := db.CompactRange(*new(util.Range)); err != nil {
			t.Fatal(err)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		db = open(t, dir, tc.reopen)
		apply(t, db, second)
		got := contents(t, db)
		db.Close()
		if want == nil {
			want = got
			continue
		}
		if len(got) != len(want) {
			t.Fatalf("written %v, reopened %v: %d keys, want %d", tc.write, tc.reopen, len(got), len(want))
		}
		for k, v := range want {
			if !bytes.Equal(got[k], v) {
				t.Fatalf("written %v, reopened %v: key %q differs", tc.write, tc.reopen, k)
			}
		}
	}
}

// variants are the settings BenchmarkBallots compares: stock, each option
// alone, and all of them.
var variants = []struct {
	name   string
	tuning Tuning
}{
	{"stock", Stock},
	{"bloom", Tuning{BloomBitsPerKey: 10}},
	{"nocompress", Tuning{NoCompression: true}},
	{"memtable16", Tuning{WriteBufferMiB: 16}},
	{"cache32", Tuning{BlockCacheMiB: 32}},
	{"tuned", Tuned},
}

// BenchmarkBallots is the state database's work for one ballot: read the
// voter's key (absent: a first ballot), then write it with a ciphertext-sized
// random value, in blocks of 500 writes as the ledger commits them. It
// reports the bytes the database wrote and read per byte of ballot data
// (write and read amplification) besides the time.
//
//	go test -run '^$' -bench Ballots -benchtime 40000x -count 5 ./fabric/ext/leveldbopts/
func BenchmarkBallots(b *testing.B) {
	for _, v := range variants {
		b.Run(v.name, func(b *testing.B) {
			db, err := leveldb.OpenFile(b.TempDir(), v.tuning.Options())
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			value := make([]byte, 4096)
			key := make([]byte, 16)
			batch := new(leveldb.Batch)
			var user uint64
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				rand.Read(key)
				k := []byte("ballot\x00" + hex.EncodeToString(key))
				if _, err := db.Get(k, nil); err != leveldb.ErrNotFound {
					b.Fatalf("Get of a new key: %v", err)
				}
				rand.Read(value)
				batch.Put(k, value)
				user += uint64(len(k) + len(value))
				if batch.Len() == 500 || i == b.N-1 {
					if err := db.Write(batch, nil); err != nil {
						b.Fatal(err)
					}
					batch.Reset()
				}
			}
			b.StopTimer()
			var st leveldb.DBStats
			if err := db.Stats(&st); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(st.IOWrite)/float64(user), "write-amp")
			b.ReportMetric(float64(st.IORead)/float64(user), "read-amp")
		})
	}
}
