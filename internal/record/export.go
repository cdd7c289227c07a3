package record

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/fabvote/fabvote/internal/chain"
)

// Source is what Export reads: the channel's blocks and the election's
// ledger values.
type Source struct {
	Blocks     chain.Reader // a peer's blocks (qscc), from 0 to its tip
	Channel    string
	Chaincode  string // the ballot contract's chaincode name
	ElectionID string
	Manifest   []byte // GetManifest, exactly
	Result     []byte // GetResult, exactly; nil when none is published
}

// Summary is what Export wrote.
type Summary struct {
	LastBlock   uint64
	GenesisHash []byte // block 0's header hash: the record's root of trust
	Ballots     int    // entries of ballots.json
	Bytes       int64  // the files' total size
}

// Export writes the record of src to dir (RECORD.md sections 1–5). dir
// must not exist or be empty. The record is written in a temporary sibling
// directory that takes dir's name only when complete, so a failed export
// leaves nothing behind. Read the manifest and the result before calling
// Export: the blocks then reach at least as far as their writes.
func Export(ctx context.Context, src Source, dir string) (*Summary, error) {
	if len(src.Manifest) == 0 || src.ElectionID == "" || src.Channel == "" || src.Chaincode == "" {
		return nil, errors.New("an export needs the election id, the channel, the chaincode and the manifest")
	}
	if err := emptyOrAbsent(dir); err != nil {
		return nil, err
	}
	parent, base := filepath.Dir(filepath.Clean(dir)), filepath.Base(dir)
	tmp, err := os.MkdirTemp(parent, "."+base+".partial-")
	if err != nil {
		return nil, err
	}
	sum, err := write(ctx, src, tmp)
	if err == nil {
		err = os.Chmod(tmp, 0o755)
	}
	if err == nil {
		// Rename does not replace a directory, even an empty one.
		if err = os.Remove(dir); errors.Is(err, fs.ErrNotExist) {
			err = nil
		}
	}
	if err == nil {
		err = os.Rename(tmp, dir)
	}
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	return sum, nil
}

// emptyOrAbsent refuses to export over anything already in dir.
func emptyOrAbsent(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case len(entries) > 0:
		return fmt.Errorf("%s exists and is not empty: an export never overwrites a record", dir)
	}
	return nil
}

// write fills dir: the blocks first (they give the index), then the JSON.
func write(ctx context.Context, src Source, dir string) (*Summary, error) {
	h, err := src.Blocks.Height(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the chain height: %w", err)
	}
	if h == 0 {
		return nil, errors.New("the channel has no block")
	}
	if err := os.Mkdir(filepath.Join(dir, BlocksDir), 0o755); err != nil {
		return nil, err
	}
	sum := &Summary{LastBlock: h - 1}
	x := newIndexer(src.Chaincode, src.ElectionID)
	for n := uint64(0); n < h; n++ {
		size, err := writeBlock(ctx, src.Blocks, x, n, dir, sum)
		if err != nil {
			return nil, err
		}
		sum.Bytes += size
	}
	if len(x.bad) > 0 {
		return nil, fmt.Errorf("%s (ballots.json cannot index it)", x.bad[0])
	}
	entries := x.sorted()
	sum.Ballots = len(entries)
	info := &Info{Format: Format, Version: Version, ElectionID: src.ElectionID, Channel: src.Channel, Chaincode: src.Chaincode, LastBlock: h - 1}
	files := map[string][]byte{RecordFile: MarshalRecordJSON(info), ManifestFile: src.Manifest, BallotsFile: MarshalBallotIndex(entries)}
	if src.Result != nil {
		files[ResultFile] = src.Result
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return nil, err
		}
		sum.Bytes += int64(len(b))
	}
	return sum, nil
}

// writeBlock reads block n, indexes its writes and writes its file; it
// returns the file's size.
func writeBlock(ctx context.Context, r chain.Reader, x *indexer, n uint64, dir string, sum *Summary) (int64, error) {
	raw, err := r.Block(ctx, n)
	if err != nil {
		return 0, fmt.Errorf("reading block %d: %w", n, err)
	}
	b, err := chain.ParseBlock(raw)
	if err != nil {
		return 0, err
	}
	if b.Number != n {
		return 0, fmt.Errorf("asked for block %d, got block %d", n, b.Number)
	}
	if n == 0 {
		sum.GenesisHash = b.Hash
	}
	x.block(b)
	if err := WriteBlockFile(dir, n, raw); err != nil {
		return 0, err
	}
	fi, err := os.Stat(filepath.Join(dir, BlockFile(n)))
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}
