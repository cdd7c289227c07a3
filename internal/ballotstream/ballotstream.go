// Package ballotstream is the file format of pre-generated ballots (bulk
// `fabvote ballot`, `make ballots`, `fabvote cast --ballots`, `fabvote bench`
// and the Caliper workload): a magic header, then length-prefixed records,
// each one canonical election.Ballot encoding. Readers and writers stream, so
// 40,000 ballots of ~4 KiB never need to sit in memory at once.
package ballotstream

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/fabvote/fabvote/election"
)

// Magic starts every ballot stream.
const Magic = "FVBALL01"

// Writer appends records.
type Writer struct {
	w     *bufio.Writer
	count int
}

// NewWriter writes the header and returns a writer; call Flush at the end.
func NewWriter(w io.Writer) (*Writer, error) {
	bw := bufio.NewWriterSize(w, 1<<20)
	if _, err := bw.WriteString(Magic); err != nil {
		return nil, err
	}
	return &Writer{w: bw}, nil
}

// Write appends one record.
func (w *Writer) Write(rec []byte) error {
	if len(rec) == 0 || len(rec) > election.MaxBallotSize {
		return fmt.Errorf("ballotstream: record of %d bytes, want 1..%d", len(rec), election.MaxBallotSize)
	}
	var l [4]byte
	binary.BigEndian.PutUint32(l[:], uint32(len(rec)))
	if _, err := w.w.Write(l[:]); err != nil {
		return err
	}
	_, err := w.w.Write(rec)
	if err == nil {
		w.count++
	}
	return err
}

// Count is the number of records written.
func (w *Writer) Count() int { return w.count }

// Flush writes buffered data.
func (w *Writer) Flush() error { return w.w.Flush() }

// Reader reads records.
type Reader struct {
	r     *bufio.Reader
	index int
}

// NewReader checks the header.
func NewReader(r io.Reader) (*Reader, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	var m [len(Magic)]byte
	if _, err := io.ReadFull(br, m[:]); err != nil {
		return nil, fmt.Errorf("ballotstream: reading header: %w", err)
	}
	if string(m[:]) != Magic {
		return nil, fmt.Errorf("ballotstream: header %q, want %q (not a fabvote ballot file)", m[:], Magic)
	}
	return &Reader{r: br}, nil
}

// Next returns the next record, or io.EOF after the last one. A truncated
// or oversize record is an error naming its index.
func (r *Reader) Next() ([]byte, error) {
	var l [4]byte
	if _, err := io.ReadFull(r.r, l[:]); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, io.EOF
		}
		return nil, fmt.Errorf("ballotstream: record %d: truncated length: %w", r.index, err)
	}
	n := binary.BigEndian.Uint32(l[:])
	if n == 0 || n > election.MaxBallotSize {
		return nil, fmt.Errorf("ballotstream: record %d has length %d, want 1..%d", r.index, n, election.MaxBallotSize)
	}
	rec := make([]byte, n)
	if _, err := io.ReadFull(r.r, rec); err != nil {
		return nil, fmt.Errorf("ballotstream: record %d: truncated (%d bytes expected): %w", r.index, n, err)
	}
	r.index++
	return rec, nil
}

// Index is the number of records returned so far.
func (r *Reader) Index() int { return r.index }
