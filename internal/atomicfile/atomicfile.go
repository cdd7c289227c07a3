// Package atomicfile writes files so that a reader (or a crash) never sees a
// half-written one: data goes to a temporary file in the same directory, is
// synced, and is renamed over the destination. fabvote's keys, manifests, voter
// rolls and bulk ballot files are all written this way, and secrets get mode 0600
// from the moment the temporary file is created.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// WriteFile atomically replaces path with data, with permission bits perm.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	f, err := Create(path, perm)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Abort()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Commit()
}

// File is an output file being written; nothing appears at its final path until
// Commit succeeds. Abort (or a failed Commit) removes the temporary file.
type File struct {
	*os.File
	path string
	done bool
}

// Create starts writing path. The temporary file is created with perm, so a
// secret is never readable by others, even for a moment.
func Create(path string, perm os.FileMode) (*File, error) {
	if path == "" {
		return nil, errors.New("atomicfile: empty output path")
	}
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("chmod %s: %w", path, err)
	}
	return &File{File: f, path: path}, nil
}

// Path is the final destination.
func (f *File) Path() string { return f.path }

// Commit syncs, closes and renames the temporary file over the destination.
func (f *File) Commit() error {
	if f.done {
		return errors.New("atomicfile: file already committed or aborted")
	}
	f.done = true
	tmp := f.File.Name()
	if err := f.File.Sync(); err != nil {
		f.File.Close()
		os.Remove(tmp)
		return fmt.Errorf("sync %s: %w", f.path, err)
	}
	if err := f.File.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("close %s: %w", f.path, err)
	}
	if err := os.Rename(tmp, f.path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("rename %s: %w", f.path, err)
	}
	if d, err := os.Open(filepath.Dir(f.path)); err == nil {
		d.Sync() // best effort: make the rename durable
		d.Close()
	}
	return nil
}

// Abort discards the temporary file. It is safe to call after Commit (no-op).
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.File.Close()
	os.Remove(f.File.Name())
}

// WriteWith streams from w into path atomically; a convenience for encoders.
func WriteWith(path string, perm os.FileMode, fill func(w io.Writer) error) error {
	f, err := Create(path, perm)
	if err != nil {
		return err
	}
	if err := fill(f); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

// WriteNew writes data to path, complete, unless path exists: the data goes
// to a file aside (path + ".new", written as WriteFile does), which is then
// linked into place; the link fails, with an error wrapping fs.ErrExist, if
// path exists or another process got there first. It never replaces a file:
// a key that a person keeps is written this way.
func WriteNew(path string, data []byte, perm os.FileMode) error {
	tmp := path + ".new"
	os.Remove(tmp) // of an interrupted write
	if err := WriteFile(tmp, data, perm); err != nil {
		return err
	}
	defer os.Remove(tmp)
	return os.Link(tmp, path)
}
