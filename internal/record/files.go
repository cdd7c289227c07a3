package record

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
)

// maxBlockSize bounds a decompressed block: Fabric's default absolute
// maximum is 10 MB, and a gzip bomb must not exhaust a verifier's memory.
const maxBlockSize = 100 << 20

// maxBlockFileSize bounds a block file itself (RECORD.md 5): gzip's empty
// members make a file of any size that decompresses to little, and a
// verifier must not read without bound.
const maxBlockFileSize = 256 << 20

// BlockFile is block n's path inside a record, relative to the record:
// ten decimal digits, zero-padded (RECORD.md section 5).
func BlockFile(n uint64) string {
	return filepath.Join(BlocksDir, fmt.Sprintf("%010d.block.gz", n))
}

var blockFileName = regexp.MustCompile(`^[0-9]{10}\.block\.gz$`)

// gzipBytes compresses b as one gzip member with no name and a zero
// modification time, so that the same block always gives the same file.
func gzipBytes(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(b); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// gunzip decompresses one gzip file, bounded by maxBlockSize.
func gunzip(b []byte) ([]byte, error) { return gunzipFrom(bytes.NewReader(b)) }

// gunzipFrom decompresses r as it reads it: a huge file costs time, not
// memory.
func gunzipFrom(r io.Reader) ([]byte, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, err
	}
	out, err := io.ReadAll(io.LimitReader(zr, maxBlockSize+1))
	if err != nil {
		return nil, err
	}
	if len(out) > maxBlockSize {
		return nil, fmt.Errorf("decompresses to more than %d bytes", maxBlockSize)
	}
	return out, zr.Close()
}

// Dir is a chain.Reader over a record directory's blocks: what the audit's
// commit order and the ballot reads take, in place of a peer's qscc.
//
// The verifier reads the blocks in order, forward (the chain, the ballots)
// or back (the commit order), and decompressing a block costs about as
// much as decoding it; so while the caller decodes block n, Dir already
// decompresses the next block in the same direction on another core.
type Dir struct {
	Path      string
	LastBlock uint64 // record.json's lastBlock

	mu      sync.Mutex
	prev    uint64 // the block asked for last, if asked
	asked   bool
	pending map[uint64]chan readResult // blocks being read ahead
}

type readResult struct {
	raw []byte
	err error
}

// Height implements chain.Reader: the blocks are 0 … LastBlock.
func (d *Dir) Height(context.Context) (uint64, error) { return d.LastBlock + 1, nil }

// Block implements chain.Reader: block n's file, decompressed.
func (d *Dir) Block(_ context.Context, n uint64) ([]byte, error) {
	if n > d.LastBlock {
		return nil, fmt.Errorf("the record ends at block %d, block %d asked for", d.LastBlock, n)
	}
	if ch := d.readAhead(n); ch != nil {
		r := <-ch
		return r.raw, r.err
	}
	return d.read(n)
}

// readAhead returns the read of n already under way, if any, and starts
// reading the block after n in the direction of the last two requests. At
// most two reads are pending, so a caller that jumps about costs at most
// two blocks of memory.
func (d *Dir) readAhead(n uint64) chan readResult {
	d.mu.Lock()
	defer d.mu.Unlock()
	ch := d.pending[n]
	delete(d.pending, n)
	next, ok := n+1, n < d.LastBlock
	if d.asked && d.prev == n+1 {
		next, ok = n-1, n > 0
	}
	d.prev, d.asked = n, true
	if _, busy := d.pending[next]; ok && !busy && len(d.pending) < 2 {
		if d.pending == nil {
			d.pending = make(map[uint64]chan readResult)
		}
		ahead := make(chan readResult, 1)
		d.pending[next] = ahead
		go func() {
			raw, err := d.read(next)
			ahead <- readResult{raw, err}
		}()
	}
	return ch
}

// read reads and decompresses block n's file.
func (d *Dir) read(n uint64) ([]byte, error) {
	f, err := os.Open(filepath.Join(d.Path, BlockFile(n)))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return nil, err
	} else if fi.Size() > maxBlockFileSize {
		return nil, fmt.Errorf("%s: %d bytes, more than the %d MiB a block file may have", BlockFile(n), fi.Size(), maxBlockFileSize>>20)
	}
	raw, err := gunzipFrom(bufio.NewReader(f))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", BlockFile(n), err)
	}
	return raw, nil
}

// checkFiles reports the first file of dir that RECORD.md section 1 does
// not name and the first block file of 0 … lastBlock that is missing: a
// record is exactly its files.
func checkFiles(dir string, lastBlock uint64) error {
	top, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	// The value says whether the file may be absent: result.json is,
	// when no result is published.
	known := map[string]bool{RecordFile: false, ManifestFile: false, ResultFile: true, BallotsFile: false, BlocksDir: false}
	for _, e := range top {
		if _, ok := known[e.Name()]; !ok {
			return fmt.Errorf("unknown file %q in the record", e.Name())
		}
		wantDir := e.Name() == BlocksDir
		if wantDir && !e.IsDir() || !wantDir && !e.Type().IsRegular() {
			return fmt.Errorf("%q in the record is not a regular file or, for %s, a directory", e.Name(), BlocksDir)
		}
		delete(known, e.Name())
	}
	for name, optional := range known {
		if !optional {
			return fmt.Errorf("the record has no %s", name)
		}
	}
	return checkBlockFiles(filepath.Join(dir, BlocksDir), lastBlock)
}

// checkBlockFiles requires blocks/ to hold exactly 0 … lastBlock.
func checkBlockFiles(dir string, lastBlock uint64) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	seen := make(map[uint64]bool, len(entries))
	for _, e := range entries {
		if !blockFileName.MatchString(e.Name()) || !e.Type().IsRegular() {
			return fmt.Errorf("unknown file %q in %s/", e.Name(), BlocksDir)
		}
		n, _ := strconv.ParseUint(e.Name()[:10], 10, 64)
		if n > lastBlock {
			return fmt.Errorf("%s/%s is after lastBlock %d", BlocksDir, e.Name(), lastBlock)
		}
		seen[n] = true
	}
	// lastBlock+1 wraps to 0 for the largest uint64: no directory holds
	// that many files, and the loop below then names block 0 missing.
	if uint64(len(seen)) != lastBlock+1 || lastBlock == math.MaxUint64 {
		for n := uint64(0); n <= lastBlock; n++ {
			if !seen[n] {
				return fmt.Errorf("block %d is missing: %s does not exist", n, BlockFile(n))
			}
		}
	}
	return nil
}

// WriteBlockFile writes raw as block n's file of the record in dir, as
// Export does (tests use it to tamper with a record).
func WriteBlockFile(dir string, n uint64, raw []byte) error {
	gz, err := gzipBytes(raw)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, BlockFile(n)), gz, 0o644)
}
