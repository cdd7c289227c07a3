package fabca

import (
	"fmt"
	"os"
	"path/filepath"
)

// Cryptogen's file names, which the network's tools and configuration use.
func caCertName(domain string) string    { return "ca." + domain + "-cert.pem" }
func tlsCACertName(domain string) string { return "tlsca." + domain + "-cert.pem" }

// nodeOUs is the MSP config.yaml: an identity's role is the OU its
// certificate carries (fabric-ca puts the registered type there).
func nodeOUs(domain string) []byte {
	ca := "cacerts/" + caCertName(domain)
	s := "NodeOUs:\n  Enable: true\n"
	for _, r := range []struct{ key, ou string }{
		{"ClientOUIdentifier", "client"}, {"PeerOUIdentifier", "peer"},
		{"AdminOUIdentifier", "admin"}, {"OrdererOUIdentifier", "orderer"},
	} {
		s += fmt.Sprintf("  %s:\n    Certificate: %s\n    OrganizationalUnitIdentifier: %s\n", r.key, ca, r.ou)
	}
	return []byte(s)
}

// file is one file to write: its path, content and mode.
type file struct {
	path string
	data []byte
	mode os.FileMode
}

// layoutIdentity moves what fabric-ca-client wrote into scratch (msp/ and
// tls/) to id.dir in cryptogen's layout.
func layoutIdentity(org Org, id identity, scratch string, caCert, tlsCACert []byte) error {
	read := func(dir string) ([]byte, error) { return onlyFile(filepath.Join(scratch, dir)) }
	signcert, err := read("msp/signcerts")
	if err != nil {
		return err
	}
	key, err := read("msp/keystore")
	if err != nil {
		return err
	}
	tlsCert, err := read("tls/signcerts")
	if err != nil {
		return err
	}
	tlsKey, err := read("tls/keystore")
	if err != nil {
		return err
	}
	tlsName := map[bool]string{true: "server", false: "client"}[id.server]
	msp := filepath.Join(id.dir, "msp")
	tls := filepath.Join(id.dir, "tls")
	return writeFiles([]file{
		{filepath.Join(msp, "signcerts", id.name+"-cert.pem"), signcert, 0o644},
		{filepath.Join(msp, "keystore", "priv_sk"), key, 0o600},
		{filepath.Join(msp, "cacerts", caCertName(org.Domain)), caCert, 0o644},
		{filepath.Join(msp, "tlscacerts", tlsCACertName(org.Domain)), tlsCACert, 0o644},
		{filepath.Join(msp, "config.yaml"), nodeOUs(org.Domain), 0o644},
		{filepath.Join(tls, "ca.crt"), tlsCACert, 0o644},
		{filepath.Join(tls, tlsName+".crt"), tlsCert, 0o644},
		{filepath.Join(tls, tlsName+".key"), tlsKey, 0o600},
	})
}

// writeOrgMSP writes the organisation's public MSP (what it hands to the
// others and to the channel configuration) and the CA certificates where
// cryptogen puts them.
func writeOrgMSP(org Org, caCert, tlsCACert []byte) error {
	return writeFiles([]file{
		{filepath.Join(org.Dir, "msp", "cacerts", caCertName(org.Domain)), caCert, 0o644},
		{filepath.Join(org.Dir, "msp", "tlscacerts", tlsCACertName(org.Domain)), tlsCACert, 0o644},
		{filepath.Join(org.Dir, "msp", "config.yaml"), nodeOUs(org.Domain), 0o644},
		{filepath.Join(org.Dir, "ca", caCertName(org.Domain)), caCert, 0o644},
		{filepath.Join(org.Dir, "tlsca", tlsCACertName(org.Domain)), tlsCACert, 0o644},
	})
}

func writeFiles(files []file) error {
	for _, f := range files {
		if err := os.MkdirAll(filepath.Dir(f.path), 0o700); err != nil {
			return err
		}
		if err := os.WriteFile(f.path, f.data, f.mode); err != nil {
			return err
		}
	}
	return nil
}
