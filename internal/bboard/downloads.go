package bboard

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// download is one file an observer can take from the site, with its
// SHA-256 to compare against a copy from elsewhere.
type download struct {
	File, What, SHA256 string
}

// downloadsDir is where the site keeps them.
const downloadsDir = "downloads"

// recordArchive is the whole record as one archive.
const recordArchive = "record.tar.gz"

// writeDownloads copies the record's manifest, result and ballot index
// into the site and packs the whole record as one gzip'd tar archive,
// with fixed times and modes and the files in the record's order, so that
// the same record gives the same bytes.
func writeDownloads(site, record string) ([]download, error) {
	dir := filepath.Join(site, downloadsDir)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, err
	}
	var out []download
	for _, f := range []struct{ name, what string }{
		{"manifest.json", "the election's manifest"},
		{"result.json", "the published result, with the trustees' partial decryptions"},
		{"ballots.json", "the index of every ballot"},
	} {
		b, err := os.ReadFile(filepath.Join(record, f.name))
		if errors.Is(err, fs.ErrNotExist) && f.name == "result.json" {
			continue
		}
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(dir, f.name), b, 0o644); err != nil {
			return nil, err
		}
		sum := sha256.Sum256(b)
		out = append(out, download{downloadsDir + "/" + f.name, f.what, hex.EncodeToString(sum[:])})
	}
	sum, err := writeArchive(filepath.Join(dir, recordArchive), record)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", recordArchive, err)
	}
	return append(out, download{downloadsDir + "/" + recordArchive, "the whole election record, for both verifiers", sum}), nil
}

// writeArchive packs every regular file under record (paths sorted, as
// WalkDir gives them) and returns the archive's SHA-256.
func writeArchive(path, record string) (string, error) {
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	zw := gzip.NewWriter(io.MultiWriter(f, h))
	tw := tar.NewWriter(zw)
	err = filepath.WalkDir(record, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == record {
			return err
		}
		rel, _ := filepath.Rel(record, p)
		hdr := &tar.Header{Name: "record/" + filepath.ToSlash(rel), ModTime: time.Unix(0, 0), Format: tar.FormatPAX}
		if d.IsDir() {
			hdr.Typeflag, hdr.Mode, hdr.Name = tar.TypeDir, 0o755, hdr.Name+"/"
			return tw.WriteHeader(hdr)
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s is not a regular file", rel)
		}
		return addFile(tw, hdr, p)
	})
	if err == nil {
		err = tw.Close()
	}
	if err == nil {
		err = zw.Close()
	}
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), f.Close()
}

func addFile(tw *tar.Writer, hdr *tar.Header, path string) error {
	src, err := os.Open(path)
	if err != nil {
		return err
	}
	defer src.Close()
	fi, err := src.Stat()
	if err != nil {
		return err
	}
	hdr.Typeflag, hdr.Mode, hdr.Size = tar.TypeReg, 0o644, fi.Size()
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	_, err = io.Copy(tw, src)
	return err
}
