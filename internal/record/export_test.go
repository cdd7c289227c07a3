package record_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/internal/record"
	"github.com/fabvote/fabvote/internal/record/recordtest"
)

// readTree maps each file of dir to its bytes.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestExportDeterministic: one ledger exported twice gives the same bytes,
// and the export verifies.
func TestExportDeterministic(t *testing.T) {
	e, err := recordtest.Build(recordtest.LateBallot)
	if err != nil {
		t.Fatal(err)
	}
	base := t.TempDir()
	a, b := filepath.Join(base, "a"), filepath.Join(base, "b")
	if err := os.Mkdir(b, 0o755); err != nil { // an empty directory is fine
		t.Fatal(err)
	}
	sa, err := record.Export(context.Background(), e.Source, a)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := record.Export(context.Background(), e.Source, b); err != nil {
		t.Fatal(err)
	}
	ta, tb := readTree(t, a), readTree(t, b)
	if len(ta) != len(tb) || len(ta) != 4+int(sa.LastBlock)+1 {
		t.Fatalf("%d and %d files, lastBlock %d", len(ta), len(tb), sa.LastBlock)
	}
	var total int64
	for name, x := range ta {
		if !bytes.Equal(x, tb[name]) {
			t.Errorf("%s differs between two exports", name)
		}
		total += int64(len(x))
	}
	if sa.Bytes != total || sa.Ballots != len(recordtest.Choices)+1 {
		t.Errorf("summary %+v, want %d bytes and %d ballots", sa, total, len(recordtest.Choices)+1)
	}
	if rep := verify(t, a, record.Options{GenesisHash: sa.GenesisHash}); !rep.OK() {
		t.Fatalf("the export does not verify: %v", rep.Failures)
	}
}

// failingReader fails from block failAt on.
type failingReader struct {
	record.Source
	failAt uint64
}

func (f failingReader) Height(ctx context.Context) (uint64, error) { return f.Blocks.Height(ctx) }
func (f failingReader) Block(ctx context.Context, n uint64) ([]byte, error) {
	if n >= f.failAt {
		return nil, errors.New("peer went away")
	}
	return f.Blocks.Block(ctx, n)
}

// TestExportFailureLeavesNothing: a read failing midway leaves neither the
// output directory nor a temporary one.
func TestExportFailureLeavesNothing(t *testing.T) {
	e, err := recordtest.Build(recordtest.Good)
	if err != nil {
		t.Fatal(err)
	}
	base := t.TempDir()
	src := e.Source
	src.Blocks = failingReader{Source: e.Source, failAt: 3}
	out := filepath.Join(base, "rec")
	if _, err := record.Export(context.Background(), src, out); err == nil || !strings.Contains(err.Error(), "block 3") {
		t.Fatalf("err %v, want a failure reading block 3", err)
	}
	if entries, _ := os.ReadDir(base); len(entries) != 0 {
		t.Fatalf("a failed export left %v", entries)
	}
}

// TestExportRefusesNonEmpty: an export never writes over a directory
// that holds anything.
func TestExportRefusesNonEmpty(t *testing.T) {
	e, err := recordtest.Build(recordtest.Good)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if err := os.WriteFile(filepath.Join(out, "keep"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := record.Export(context.Background(), e.Source, out); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Fatalf("err %v, want a refusal", err)
	}
	if b, err := os.ReadFile(filepath.Join(out, "keep")); err != nil || string(b) != "x" {
		t.Fatal("the existing file was touched")
	}
}
