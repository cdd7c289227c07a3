// Package filetree copies a directory tree of regular files: a chaincode
// package's META-INF into its build output (network/cmd/ccaas-builder), an
// organisation's MSP into the bundle it hands to others (network/fabrun).
// Anything else in the tree, such as a symbolic link, is refused, so that a
// copy never reaches outside the tree it was given.
package filetree

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Copy copies the tree at src into dst: directories made with mode 0755,
// regular files with mode 0644 (a file already there is overwritten and
// keeps its mode). It stops at the first entry that is neither, naming it
// relative to src.
func Copy(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		case d.Type().IsRegular():
			return CopyFile(p, filepath.Join(dst, rel))
		case d.Type()&fs.ModeSymlink != 0:
			return fmt.Errorf("%s: a symbolic link: only regular files and directories are copied", rel)
		default:
			return fmt.Errorf("%s: only regular files and directories are copied, not a file of mode %v", rel, d.Type())
		}
	})
}

// CopyFile copies the regular file src to dst (made with mode 0644, or
// overwritten), making dst's directory if needed.
func CopyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
