package fabnet

import (
	"bytes"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"
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

// CheckPublic refuses a bundle that holds anything but what a bundle is
// for: X.509 certificates (PEM) in the MSP's certificate directories and
// in orderers/, the MSP's config.yaml whose certificate paths stay inside
// msp/, and a genesis block at the top. A private key is refused by name.
func CheckPublic(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("bundle %s: %s is not a regular file", dir, rel)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if bytes.Contains(b, []byte("PRIVATE KEY")) {
			return fmt.Errorf("bundle %s: %s holds a private key; a bundle carries public certificates only", dir, rel)
		}
		if err := checkBundleFile(filepath.ToSlash(rel), b); err != nil {
			return fmt.Errorf("bundle %s: %s: %w", dir, rel, err)
		}
		return nil
	})
}

// bundleCertDirs are the directories of a bundle that hold certificates.
var bundleCertDirs = map[string]bool{"msp/cacerts": true, "msp/tlscacerts": true, "msp/intermediatecerts": true,
	"msp/tlsintermediatecerts": true, "orderers": true}

func checkBundleFile(rel string, b []byte) error {
	switch dir := path.Dir(rel); {
	case rel == "msp/config.yaml":
		return checkNodeOUs(b)
	case dir == "." && strings.HasSuffix(rel, ".block"):
		return nil // the genesis block: the peers check it when they join
	case bundleCertDirs[dir]:
		return checkCertificates(b)
	}
	return errors.New("not a file a bundle holds (certificates in msp/ and orderers/, msp/config.yaml, the genesis block)")
}

// checkCertificates accepts PEM with X.509 certificates only.
func checkCertificates(b []byte) error {
	n := 0
	for rest := b; ; n++ {
		var blk *pem.Block
		blk, rest = pem.Decode(rest)
		if blk == nil {
			if len(bytes.TrimSpace(rest)) > 0 || n == 0 {
				return errors.New("not PEM certificates")
			}
			return nil
		}
		if blk.Type != "CERTIFICATE" {
			return fmt.Errorf("a PEM %q block; a bundle holds certificates only", blk.Type)
		}
		if _, err := x509.ParseCertificate(blk.Bytes); err != nil {
			return err
		}
	}
}

// checkNodeOUs refuses a config.yaml that names a file outside msp/:
// configtxgen reads every Certificate it names into the channel's
// configuration, so a path such as ../../crypto/... would publish it.
func checkNodeOUs(b []byte) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return err
	}
	var bad error
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		for i := 0; i < len(n.Content); i++ {
			c := n.Content[i]
			if n.Kind == yaml.MappingNode && i%2 == 0 && strings.EqualFold(c.Value, "Certificate") && i+1 < len(n.Content) {
				if v := n.Content[i+1].Value; !filepath.IsLocal(v) || !strings.HasPrefix(filepath.ToSlash(filepath.Clean(v)), "cacerts/") {
					bad = fmt.Errorf("Certificate %q: want a file under cacerts/", v)
				}
			}
			walk(c)
		}
	}
	walk(&doc)
	return bad
}

// BundleDigest is the SHA-256 of a bundle: every file's path and content,
// in path order. The sending and the receiving organisation compare it
// by a second channel.
func BundleDigest(dir string) (string, error) {
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", filepath.ToSlash(rel), len(b))
		h.Write(b)
		return nil
	})
	return hex.EncodeToString(h.Sum(nil)), err
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
