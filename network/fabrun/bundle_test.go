package fabrun

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io/fs"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

const testKey = "-----BEGIN PRIVATE KEY-----\nMIGHdummy\n-----END PRIVATE KEY-----\n"

// testCert is a real self-signed certificate: bundles hold X.509 only.
var testCert = func() string {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "ca.test"},
		NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		panic(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}()

// writeFiles writes rel path -> content under dir.
func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// listFiles returns the regular files under dir, slash-separated and sorted,
// with their contents.
func listFiles(t testing.TB, dir string) map[string]string {
	t.Helper()
	got := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		got[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// publicBundle is a peer org's bundle as writeBundle makes it.
func publicBundle() map[string]string {
	return map[string]string{
		"msp/cacerts/ca.party1.fabvote.local-cert.pem":       testCert,
		"msp/tlscacerts/tlsca.party1.fabvote.local-cert.pem": testCert,
		"msp/config.yaml": "NodeOUs:\n  Enable: true\n",
		"msp/intermediatecerts/ica.party1.fabvote.local.pem": testCert,
		"orderers/orderer0.crt":                              testCert,
	}
}

func TestCheckPublic(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string)
		want  []string // substrings of the error (the dir is always expected); nil: accepted
	}{
		{"certificates only", func(t *testing.T, dir string) { writeFiles(t, dir, publicBundle()) }, nil},
		{"empty bundle", func(t *testing.T, dir string) {}, nil},
		{"a private key", func(t *testing.T, dir string) {
			writeFiles(t, dir, publicBundle())
			writeFiles(t, dir, map[string]string{"msp/keystore/priv_sk": testKey})
		}, []string{filepath.Join("msp", "keystore", "priv_sk"), "private key"}},
		{"an EC private key inside a certificate file", func(t *testing.T, dir string) {
			writeFiles(t, dir, map[string]string{"msp/signcerts/cert.pem": testCert +
				"-----BEGIN EC PRIVATE KEY-----\nMHc\n-----END EC PRIVATE KEY-----\n"})
		}, []string{filepath.Join("msp", "signcerts", "cert.pem"), "private key"}},
		{"a symlink to a certificate", func(t *testing.T, dir string) {
			writeFiles(t, dir, publicBundle())
			target := filepath.Join(dir, "msp", "cacerts", "ca.party1.fabvote.local-cert.pem")
			if err := os.Symlink(target, filepath.Join(dir, "msp", "cacerts", "link.pem")); err != nil {
				t.Fatal(err)
			}
		}, []string{filepath.Join("msp", "cacerts", "link.pem"), "not a regular file"}},
		{"a symlink to a key outside the bundle", func(t *testing.T, dir string) {
			outside := filepath.Join(t.TempDir(), "priv_sk")
			if err := os.WriteFile(outside, []byte(testKey), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, filepath.Join(dir, "key.pem")); err != nil {
				t.Fatal(err)
			}
		}, []string{"key.pem", "not a regular file"}},
		{"config.yaml naming a file outside the MSP", func(t *testing.T, dir string) {
			writeFiles(t, dir, publicBundle())
			writeFiles(t, dir, map[string]string{"msp/config.yaml": "NodeOUs:\n  Enable: true\n  ClientOUIdentifier:\n    Certificate: ../../../crypto/fabric-ca/ca-registrar\n"})
		}, []string{"config.yaml", "../../../crypto/fabric-ca/ca-registrar", "under cacerts/"}},
		{"config.yaml naming an absolute path", func(t *testing.T, dir string) {
			writeFiles(t, dir, map[string]string{"msp/config.yaml": "NodeOUs:\n  PeerOUIdentifier:\n    Certificate: /etc/shadow\n"})
		}, []string{"config.yaml", "/etc/shadow"}},
		{"config.yaml with an alias for the key", func(t *testing.T, dir string) {
			writeFiles(t, dir, map[string]string{"msp/config.yaml": "NodeOUs:\n  ClientOUIdentifier:\n    &k Certificate: cacerts/a.pem\n  PeerOUIdentifier:\n    *k : ../../crypto/x\n"})
		}, []string{"config.yaml", "anchors and aliases"}},
		{"config.yaml with a binary tag", func(t *testing.T, dir string) {
			writeFiles(t, dir, map[string]string{"msp/config.yaml": "NodeOUs:\n  ClientOUIdentifier:\n    Certificate: !!binary Y2FjZXJ0cy8uLi8uLi8uLi9jcnlwdG8=\n"})
		}, []string{"config.yaml", "explicit YAML tag"}},
		{"config.yaml with another field", func(t *testing.T, dir string) {
			writeFiles(t, dir, map[string]string{"msp/config.yaml": "OrganizationalUnitIdentifiers:\n  - Certificate: ../x\n"})
		}, []string{"config.yaml", "OrganizationalUnitIdentifiers"}},
		{"a public key where a certificate belongs", func(t *testing.T, dir string) {
			writeFiles(t, dir, map[string]string{"msp/cacerts/ca.pem": "-----BEGIN PUBLIC KEY-----\nMFk=\n-----END PUBLIC KEY-----\n"})
		}, []string{filepath.Join("msp", "cacerts", "ca.pem"), `"PUBLIC KEY"`}},
		{"text where a certificate belongs", func(t *testing.T, dir string) {
			writeFiles(t, dir, map[string]string{"orderers/orderer0.crt": "hello"})
		}, []string{"orderer0.crt", "not PEM certificates"}},
		{"a file a bundle does not hold", func(t *testing.T, dir string) {
			writeFiles(t, dir, map[string]string{"msp/signcerts/peer.pem": testCert})
		}, []string{filepath.Join("msp", "signcerts", "peer.pem"), "not a file a bundle holds"}},
		{"a symlinked directory", func(t *testing.T, dir string) {
			other := t.TempDir()
			writeFiles(t, other, map[string]string{"priv_sk": testKey})
			if err := os.Symlink(other, filepath.Join(dir, "msp")); err != nil {
				t.Fatal(err)
			}
		}, []string{"msp", "not a regular file"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.setup(t, dir)
			err := CheckPublic(dir)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("CheckPublic: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("CheckPublic accepted it")
			}
			for _, w := range append([]string{dir}, tc.want...) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("CheckPublic: %v; want it to name %q", err, w)
				}
			}
		})
	}
	t.Run("missing directory", func(t *testing.T) {
		if err := CheckPublic(filepath.Join(t.TempDir(), "absent")); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("CheckPublic: %v, want not-exist", err)
		}
	})
}

func TestReceive(t *testing.T) {
	mspOnly := func() map[string]string {
		b := publicBundle()
		delete(b, "orderers/orderer0.crt")
		return b
	}
	digest := func(files map[string]string) string {
		dir := t.TempDir()
		writeFiles(t, dir, files)
		d, err := BundleDigest(dir)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	tests := []struct {
		name    string
		org     string
		bundle  map[string]string
		digest  string
		wantErr []string
	}{
		{"a peer org's bundle", "party1", mspOnly(), "", nil},
		{"the ordering org's bundle with orderer certificates and a block", "orderer", func() map[string]string {
			b := publicBundle()
			b["fabvote.block"] = "block"
			return b
		}(), "", nil},
		{"the digest the sender gave", "party1", mspOnly(), digest(mspOnly()), nil},
		{"another digest than the sender gave", "party1", mspOnly(), digest(publicBundle()), []string{"bundle digest", "not the bundle the organisation sent"}},
		{"a peer org's bundle with orderer certificates", "party1", publicBundle(), "", []string{"orderers", "only the ordering organisation"}},
		{"a peer org's bundle with a block", "party1", func() map[string]string {
			b := mspOnly()
			b["fabvote.block"] = "block"
			return b
		}(), "", []string{"fabvote.block", "only the ordering organisation"}},
		{"an org not in the topology", "party9", mspOnly(), "", []string{`"party9"`}},
		{"its own bundle", "ea", mspOnly(), "", []string{"ea", "its own bundle"}},
		{"an org name leaving the directory", "../../victim", mspOnly(), "", []string{`"../../victim"`, "DNS label"}},
		{"no org name", "", mspOnly(), "", []string{`""`, "DNS label"}},
		{"a bundle with a private key", "party1", func() map[string]string {
			b := mspOnly()
			b["msp/keystore/priv_sk"] = testKey
			return b
		}(), "", []string{"priv_sk", "private key"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := Home{Dir: t.TempDir(), Org: "ea"}
			src := t.TempDir()
			writeFiles(t, src, tc.bundle)
			err := Receive(threeOrgs(t, nil), h, tc.org, src, tc.digest)
			if tc.wantErr == nil {
				if err != nil {
					t.Fatalf("Receive: %v", err)
				}
				if got := listFiles(t, h.Received(tc.org)); !reflect.DeepEqual(got, tc.bundle) {
					t.Errorf("received %v, want %v", sortedKeys(got), sortedKeys(tc.bundle))
				}
				if _, err := os.Stat(h.Received(tc.org) + ".tmp"); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("Receive left its temporary copy behind (%v)", err)
				}
				return
			}
			if err == nil {
				t.Fatal("Receive accepted it")
			}
			for _, w := range tc.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Receive: %v; want it to name %q", err, w)
				}
			}
			for _, p := range []string{h.Received(tc.org), h.Received(tc.org) + ".tmp"} {
				if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("refused Receive left %s behind (%v)", p, err)
				}
			}
		})
	}
}

func TestReceiveReplacesEarlierCopy(t *testing.T) {
	h := Home{Dir: t.TempDir(), Org: "ea"}
	first := t.TempDir()
	writeFiles(t, first, publicBundle())
	writeFiles(t, first, map[string]string{"fabvote.block": "old block"})
	if err := Receive(threeOrgs(t, nil), h, "orderer", first, ""); err != nil {
		t.Fatal(err)
	}
	second := t.TempDir()
	b := publicBundle()
	delete(b, "msp/intermediatecerts/ica.party1.fabvote.local.pem")
	b["fabvote.block"] = "new block"
	writeFiles(t, second, b)
	if err := Receive(threeOrgs(t, nil), h, "orderer", second, ""); err != nil {
		t.Fatal(err)
	}
	got := listFiles(t, h.Received("orderer"))
	if !reflect.DeepEqual(got, b) {
		t.Errorf("after the second Receive: %v, want %v", sortedKeys(got), sortedKeys(b))
	}
	if _, ok := got["msp/intermediatecerts/ica.party1.fabvote.local.pem"]; ok {
		t.Error("a file removed from the bundle is still in the received copy")
	}

	// A refused bundle leaves the earlier good copy untouched.
	bad := t.TempDir()
	writeFiles(t, bad, map[string]string{"msp/keystore/priv_sk": testKey})
	if err := Receive(threeOrgs(t, nil), h, "orderer", bad, ""); err == nil {
		t.Fatal("Receive accepted a private key")
	}
	if got := listFiles(t, h.Received("orderer")); !reflect.DeepEqual(got, b) {
		t.Errorf("a refused Receive changed the earlier copy: %v", sortedKeys(got))
	}
}

func TestWriteBundle(t *testing.T) {
	top := threeOrgs(t, nil)
	mspFiles := map[string]string{
		"msp/cacerts/ca-cert.pem":       testCert,
		"msp/tlscacerts/tlsca-cert.pem": testCert,
		"msp/config.yaml":               "NodeOUs:\n  Enable: true\n",
	}
	t.Run("peer org", func(t *testing.T) {
		h := Home{Dir: t.TempDir(), Org: "party1"}
		writeFiles(t, h.Crypto(), mspFiles)
		if err := writeBundle(top, h); err != nil {
			t.Fatal(err)
		}
		if got := listFiles(t, h.Bundle()); !reflect.DeepEqual(got, mspFiles) {
			t.Errorf("bundle %v, want %v", sortedKeys(got), sortedKeys(mspFiles))
		}
	})
	t.Run("orderer org adds the orderers' TLS certificates", func(t *testing.T) {
		h := Home{Dir: t.TempDir(), Org: "orderer"}
		writeFiles(t, h.Crypto(), mspFiles)
		want := map[string]string{}
		for k, v := range mspFiles {
			want[k] = v
		}
		for _, o := range top.OrdererOrg.Orderers {
			tls := filepath.Join(h.nodeCrypto("orderers", o.Name, top.OrdererOrg.Domain), "tls")
			writeFiles(t, tls, map[string]string{"server.crt": o.Name + "\n" + testCert, "server.key": testKey})
			want["orderers/"+o.Name+".crt"] = o.Name + "\n" + testCert
		}
		if err := writeBundle(top, h); err != nil {
			t.Fatal(err)
		}
		if got := listFiles(t, h.Bundle()); !reflect.DeepEqual(got, want) {
			t.Errorf("bundle %v, want %v", sortedKeys(got), sortedKeys(want))
		}
	})
	t.Run("a key in the MSP is refused and the old bundle kept", func(t *testing.T) {
		h := Home{Dir: t.TempDir(), Org: "party1"}
		writeFiles(t, h.Crypto(), mspFiles)
		if err := writeBundle(top, h); err != nil {
			t.Fatal(err)
		}
		writeFiles(t, h.Crypto(), map[string]string{"msp/keystore/priv_sk": testKey})
		err := writeBundle(top, h)
		if err == nil || !strings.Contains(err.Error(), "priv_sk") {
			t.Fatalf("writeBundle: %v, want an error naming priv_sk", err)
		}
		if got := listFiles(t, h.Bundle()); !reflect.DeepEqual(got, mspFiles) {
			t.Errorf("bundle after the refusal %v, want %v", sortedKeys(got), sortedKeys(mspFiles))
		}
	})
	t.Run("no MSP yet", func(t *testing.T) {
		h := Home{Dir: t.TempDir(), Org: "party1"}
		if err := writeBundle(top, h); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("writeBundle: %v, want not-exist", err)
		}
	})
}

func TestHomePaths(t *testing.T) {
	dir := t.TempDir()
	h, err := NewHome(filepath.Join(dir, "ea-home"), "ea")
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(h.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("home mode %v, want 0700", fi.Mode().Perm())
	}
	tests := []struct{ got, want string }{
		{h.Crypto(), filepath.Join(h.Dir, "crypto")},
		{h.Bundle(), filepath.Join(h.Dir, "bundle")},
		{h.Received("orderer"), filepath.Join(h.Dir, "received", "orderer")},
		{h.Node("peer0"), filepath.Join(h.Dir, "nodes", "peer0")},
		{h.NetworkJSON(), filepath.Join(h.Dir, "network.json")},
		{h.orgTLSCA("ea", "ea.fabvote.local"), filepath.Join(h.Dir, "crypto", "tlsca", "tlsca.ea.fabvote.local-cert.pem")},
		{h.orgTLSCA("party1", "party1.fabvote.local"),
			filepath.Join(h.Dir, "received", "party1", "msp", "tlscacerts", "tlsca.party1.fabvote.local-cert.pem")},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("got %s, want %s", tc.got, tc.want)
		}
	}
	// An existing, too open directory is tightened.
	open := filepath.Join(dir, "open")
	if err := os.Mkdir(open, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := NewHome(open, "ea"); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(open); fi.Mode().Perm() != 0o700 {
		t.Errorf("existing home mode %v, want 0700", fi.Mode().Perm())
	}
}

func TestBundleDigest(t *testing.T) {
	src := t.TempDir()
	writeFiles(t, src, publicBundle())
	d1, err := BundleDigest(src)
	if err != nil {
		t.Fatal(err)
	}
	h := Home{Dir: t.TempDir(), Org: "ea"}
	if err := Receive(threeOrgs(t, nil), h, "orderer", src, ""); err != nil {
		t.Fatal(err)
	}
	if d2, err := BundleDigest(h.Received("orderer")); err != nil || d2 != d1 {
		t.Errorf("digest of the received copy %s (%v), want the sender's %s", d2, err, d1)
	}
	// One changed byte, or a renamed file, changes the digest.
	writeFiles(t, src, map[string]string{"msp/config.yaml": "NodeOUs:\n  Enable: false\n"})
	if d3, _ := BundleDigest(src); d3 == d1 {
		t.Error("a changed config.yaml kept the digest")
	}
	writeFiles(t, src, map[string]string{"msp/config.yaml": "NodeOUs:\n  Enable: true\n"})
	if d4, _ := BundleDigest(src); d4 != d1 {
		t.Error("the same content gave another digest")
	}
	if err := os.Rename(filepath.Join(src, "orderers", "orderer0.crt"), filepath.Join(src, "orderers", "orderer9.crt")); err != nil {
		t.Fatal(err)
	}
	if d5, _ := BundleDigest(src); d5 == d1 {
		t.Error("a renamed file kept the digest")
	}
}
