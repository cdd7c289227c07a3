package fabrun

import (
	"bytes"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/fabvote/fabvote/internal/filetree"
	"github.com/fabvote/fabvote/network/fabnet"
)

// The bundle an organisation hands over holds public certificates only:
//
//	msp/cacerts, msp/tlscacerts, msp/config.yaml   its channel MSP
//	orderers/<name>.crt   (ordering org) each orderer's TLS certificate, for Raft's consenter set
//	<channel>.block       (ordering org, once made) the channel's genesis block

// writeBundle copies the org's public MSP (and orderer TLS certificates)
// into its bundle, and refuses if anything private would go with it.
func writeBundle(t *fabnet.Topology, h Home) error {
	tmp := h.Bundle() + ".tmp"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	if err := filetree.Copy(filepath.Join(h.Crypto(), "msp"), filepath.Join(tmp, "msp")); err != nil {
		return err
	}
	if h.Org == t.OrdererOrg.Name {
		for _, o := range t.OrdererOrg.Orderers {
			src := filepath.Join(h.nodeCrypto("orderers", o.Name, t.OrdererOrg.Domain), "tls", "server.crt")
			if err := filetree.CopyFile(src, filepath.Join(tmp, "orderers", o.Name+".crt")); err != nil {
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
// is checked: it holds no private key and nothing but a bundle's files, and
// only the ordering organisation's bundle holds orderer certificates and
// the genesis block. When expectDigest is set, the copy's BundleDigest must
// equal it. A refused bundle leaves nothing behind and an earlier copy as
// it was.
func Receive(t *fabnet.Topology, h Home, org, dir, expectDigest string) error {
	if !fabnet.IsLabel(org) {
		return fmt.Errorf("organisation %q: not a DNS label", org)
	}
	if org == h.Org {
		return fmt.Errorf("%s cannot receive its own bundle", org)
	}
	if _, err := t.PeerOrg(org); err != nil && org != t.OrdererOrg.Name {
		return err
	}
	dst := h.Received(org)
	tmp := dst + ".tmp"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	// Check the copy, not the source: the source may change in between.
	err := filetree.Copy(dir, tmp)
	if err != nil {
		err = fmt.Errorf("bundle %s: %w", dir, err)
	} else {
		err = checkReceived(tmp, org != t.OrdererOrg.Name, expectDigest)
	}
	if err != nil {
		return errors.Join(err, os.RemoveAll(tmp))
	}
	if err := os.RemoveAll(dst); err != nil {
		return err
	}
	return os.Rename(tmp, dst)
}

func checkReceived(dir string, mspOnly bool, expectDigest string) error {
	if err := CheckPublic(dir); err != nil {
		return err
	}
	if mspOnly {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if e.Name() != "msp" {
				return fmt.Errorf("bundle %s: %s: only the ordering organisation's bundle holds orderer certificates and the genesis block", dir, e.Name())
			}
		}
	}
	if expectDigest == "" {
		return nil
	}
	d, err := BundleDigest(dir)
	if err != nil {
		return err
	}
	if d != expectDigest {
		return fmt.Errorf("bundle digest sha256 %s, want %s: not the bundle the organisation sent", d, expectDigest)
	}
	return nil
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
		return nil // the genesis block: taken as the ordering organisation made it, its digest compared with the rest of the bundle
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

// nodeOUsConfig is the MSP config.yaml a bundle may hold: Fabric's NodeOUs
// and nothing else.
type nodeOUsConfig struct {
	NodeOUs struct {
		Enable              bool          `yaml:"Enable"`
		ClientOUIdentifier  *ouIdentifier `yaml:"ClientOUIdentifier"`
		PeerOUIdentifier    *ouIdentifier `yaml:"PeerOUIdentifier"`
		AdminOUIdentifier   *ouIdentifier `yaml:"AdminOUIdentifier"`
		OrdererOUIdentifier *ouIdentifier `yaml:"OrdererOUIdentifier"`
	} `yaml:"NodeOUs"`
}

type ouIdentifier struct {
	Certificate                  string `yaml:"Certificate"`
	OrganizationalUnitIdentifier string `yaml:"OrganizationalUnitIdentifier"`
}

// checkNodeOUs refuses a config.yaml that names a file outside msp/cacerts:
// configtxgen reads every Certificate it names into the channel's
// configuration, so a path such as ../../crypto/... would publish it. It
// takes only plain YAML (no anchors, aliases or explicit tags, which
// another YAML reader could resolve differently) with Fabric's NodeOUs
// fields and no others.
func checkNodeOUs(b []byte) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return err
	}
	if err := plainYAML(&doc); err != nil {
		return err
	}
	var c nodeOUsConfig
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	for _, id := range []*ouIdentifier{c.NodeOUs.ClientOUIdentifier, c.NodeOUs.PeerOUIdentifier, c.NodeOUs.AdminOUIdentifier, c.NodeOUs.OrdererOUIdentifier} {
		if id == nil || id.Certificate == "" {
			continue
		}
		if v := id.Certificate; !filepath.IsLocal(v) || !strings.HasPrefix(filepath.ToSlash(filepath.Clean(v)), "cacerts/") {
			return fmt.Errorf("Certificate %q: want a file under cacerts/", v)
		}
	}
	return nil
}

// plainYAML refuses anchors, aliases and explicit tags.
func plainYAML(n *yaml.Node) error {
	if n.Kind == yaml.AliasNode || n.Anchor != "" {
		return fmt.Errorf("line %d: YAML anchors and aliases are not allowed", n.Line)
	}
	if n.Style&yaml.TaggedStyle != 0 {
		return fmt.Errorf("line %d: explicit YAML tag %s is not allowed", n.Line, n.Tag)
	}
	for _, c := range n.Content {
		if err := plainYAML(c); err != nil {
			return err
		}
	}
	return nil
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
