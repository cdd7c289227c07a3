// Package bboard builds the public bulletin board of an election: a static
// web site, generated from an election record (docs/RECORD.md) and the
// verification report a verifier wrote for it, that observers can read and
// on which voters can look up the ballot hash of their receipt or a
// ballot's tracker, and see the ballots audited in the booth (spoiled
// ballots, docs/RECORD.md 4.1) with their revealed choices, never counted.
//
// The site needs no server and loads nothing from outside itself: it can be
// served by any web server, mirrored, or opened from a copy on disk. Every
// page is readable without JavaScript; only the receipt search uses it.
// The output is deterministic: the same record and report give the same
// bytes, so that two organisations that publish the board can compare them.
package bboard

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// Build writes the bulletin board of the election record in recordDir, with
// the verification report (JSON, docs/RECORD.md section 7) that a verifier
// produced for that record, to outDir.
//
// outDir must not exist or be an empty directory. The site is written to a
// temporary sibling directory and renamed into place only when complete, so
// a failure leaves no half-written site behind.
func Build(recordDir string, report []byte, outDir string) error {
	return BuildWith(recordDir, report, outDir, Provenance{})
}

// Provenance says who made the report the site shows, when, and what other
// verifier agreed; the site states it beside the verdict.
type Provenance struct {
	Verifier string    // the verifier that made the report, and its version
	Time     time.Time // when it verified; zero: not stated
	// Other is another verifier's verdict on the same files (its report's
	// record digest is the record's), or nil.
	Other *OtherReport
	// Refused says why a report given was not shown, if one was.
	Refused string
}

// OtherReport is another verifier's verdict on the same record.
type OtherReport struct {
	Name string
	OK   bool
}

// BuildWith is Build with the report's provenance: the site's verdict
// passes only when the report and Other, if any, both pass.
func BuildWith(recordDir string, report []byte, outDir string, prov Provenance) error {
	if err := checkOutDir(outDir); err != nil {
		return err
	}
	in, err := loadInput(recordDir, report)
	if err != nil {
		return fmt.Errorf("bboard: %w", err)
	}
	m, err := newModel(in)
	if err != nil {
		return fmt.Errorf("bboard: %w", err)
	}
	m.setProvenance(prov)
	parent, base := filepath.Split(filepath.Clean(outDir))
	if parent == "" {
		parent = "."
	}
	tmp, err := os.MkdirTemp(parent, "."+base+".tmp-")
	if err != nil {
		return fmt.Errorf("bboard: output: %w", err)
	}
	if err := writeSite(tmp, m); err != nil {
		os.RemoveAll(tmp)
		return fmt.Errorf("bboard: writing the site: %w", err)
	}
	if err := install(tmp, outDir); err != nil {
		os.RemoveAll(tmp)
		return fmt.Errorf("bboard: output: %w", err)
	}
	return nil
}

// checkOutDir refuses an outDir with something in it: the board never
// overwrites files it did not write.
func checkOutDir(outDir string) error {
	if outDir == "" {
		return errors.New("bboard: no output directory given")
	}
	f, err := os.Open(outDir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("bboard: output: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("bboard: output: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("bboard: output %s exists and is not a directory", outDir)
	}
	if _, err := f.Readdirnames(1); err != io.EOF {
		return fmt.Errorf("bboard: output directory %s is not empty", outDir)
	}
	return nil
}

// install moves the finished site to outDir. os.Rename will not replace a
// directory, so an empty outDir is removed first (Remove fails, safely, if
// something appeared in it meanwhile).
func install(tmp, outDir string) error {
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	if err := os.Remove(outDir); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return os.Rename(tmp, outDir)
}
