package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// stagedPrefix marks a file `election create` is still writing.
const stagedPrefix = ".creating-"

// staging collects the files of one `election create` under temporary
// names in the output directory and moves them into place only once all
// are written, so that a failure (a PKCS#11 error, a share that cannot be
// sealed, an interrupt) leaves no EA key or share of an election that was
// never created.
type staging struct {
	dir   string
	names []string // final names, in order of writing
}

// path is where name is written until commit. A stale staged file of an
// interrupted run is removed first.
func (s *staging) path(name string) (string, error) {
	p := filepath.Join(s.dir, stagedPrefix+name)
	if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	s.names = append(s.names, name)
	return p, nil
}

// final is name's path once committed.
func (s *staging) final(name string) string { return filepath.Join(s.dir, name) }

// abort removes every staged file.
func (s *staging) abort() {
	for _, n := range s.names {
		os.Remove(filepath.Join(s.dir, stagedPrefix+n))
	}
}

// commit removes the stale files (those of an older election that this
// one does not write again, matched by the glob patterns), then renames
// every staged file into place, in order: the manifest goes last.
func (s *staging) commit(stale ...string) error {
	keep := map[string]bool{}
	for _, n := range s.names {
		keep[n] = true
	}
	for _, pat := range stale {
		old, err := filepath.Glob(filepath.Join(s.dir, pat))
		if err != nil {
			return err
		}
		for _, p := range old {
			if keep[filepath.Base(p)] {
				continue
			}
			if err := os.Remove(p); err != nil {
				return fmt.Errorf("removing %s of an older election: %w", p, err)
			}
		}
	}
	for _, n := range s.names {
		if err := os.Rename(filepath.Join(s.dir, stagedPrefix+n), s.final(n)); err != nil {
			s.abort()
			return err
		}
	}
	if d, err := os.Open(s.dir); err == nil {
		d.Sync() // best effort: make the renames durable
		d.Close()
	}
	return nil
}
