package fabnet

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// The bundle an organisation hands over holds public certificates only:
//
//	msp/cacerts, msp/tlscacerts, msp/config.yaml   its channel MSP
//	orderers/<name>.crt   (ordering org) each orderer's TLS certificate, for Raft's consenter set
//	<channel>.block       (ordering org, once made) the channel's genesis block

// writeBundle copies the org's public MSP (and orderer TLS certificates)
// into its bundle, and refuses if anything private would go with it.
func writeBundle(t *Topology, h Home) error {
	tmp := h.Bundle() + ".tmp"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	if err := copyTree(filepath.Join(h.Crypto(), "msp"), filepath.Join(tmp, "msp")); err != nil {
		return err
	}
	if h.Org == t.OrdererOrg.Name {
		for _, o := range t.OrdererOrg.Orderers {
			src := filepath.Join(h.nodeCrypto("orderers", o.Name, t.OrdererOrg.Domain), "tls", "server.crt")
			if err := copyFile(src, filepath.Join(tmp, "orderers", o.Name+".crt")); err != nil {
				return err
			}
		}
	}
	if err := CheckPublic(tmp); err != nil {
		return err
	}
	if err := os.RemoveAll(h.Bundle()); err != nil {
		return err
	}
	return os.Rename(tmp, h.Bundle())
}

// Receive keeps a copy of org's bundle from dir in the home, once the copy
// is checked to hold no private key; a refused bundle leaves nothing behind
// and an earlier copy as it was.
func Receive(h Home, org, dir string) error {
	if !labelRE.MatchString(org) {
		return fmt.Errorf("organisation %q: not a DNS label", org)
	}
	if org == h.Org {
		return fmt.Errorf("%s cannot receive its own bundle", org)
	}
	dst := h.Received(org)
	tmp := dst + ".tmp"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	// Check the copy, not the source: the source may change in between.
	err := copyTree(dir, tmp)
	if err == nil {
		err = CheckPublic(tmp)
	}
	if err != nil {
		return errors.Join(err, os.RemoveAll(tmp))
	}
	if err := os.RemoveAll(dst); err != nil {
		return err
	}
	return os.Rename(tmp, dst)
}

// CheckPublic refuses a bundle that holds a private key (or anything but
// regular files and directories).
func CheckPublic(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("bundle %s: %s is not a regular file", dir, p)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if bytes.Contains(b, []byte("PRIVATE KEY")) {
			return fmt.Errorf("bundle %s: %s holds a private key; a bundle carries public certificates only", dir, p)
		}
		return nil
	})
}

func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s is not a regular file", p)
		}
		return copyFile(p, filepath.Join(dst, rel))
	})
}

func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o644)
}
