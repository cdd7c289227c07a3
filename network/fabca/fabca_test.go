package fabca

import (
	"context"
	"crypto/ecdsa"
	"crypto/x509"
	"encoding/pem"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fabvote/fabvote/internal/nettest"
)

// caBin is the directory holding fabric-ca-server and fabric-ca-client
// (make fabric-ca puts them in bin/).
func caBin(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("FABVOTE_FABRIC_CA_BIN")
	if dir == "" {
		t.Skip("FABVOTE_FABRIC_CA_BIN is not set: run `make fabca-test`, which builds Fabric CA")
	}
	return dir
}

// startServer runs a real fabric-ca-server with TLS in home and waits
// until it answers.
func startServer(t *testing.T, bin, home, cn string) Server {
	t.Helper()
	addr, ops := nettest.FreeAddr(t), nettest.FreeAddr(t)
	_, port, _ := net.SplitHostPort(addr)
	password := "pw-" + filepath.Base(home)
	// As network/net.sh does: loopback only, the registrar through the environment.
	cmd := exec.Command(filepath.Join(bin, "fabric-ca-server"), "start", "-H", home, "--address", "127.0.0.1",
		"--port", port, "--tls.enabled", "--csr.cn", cn, "--csr.hosts", "localhost,127.0.0.1",
		"--operations.listenaddress", ops)
	cmd.Env = append(os.Environ(), "FABRIC_CA_SERVER_BOOT=registrar:"+password)
	log, _ := os.Create(filepath.Join(t.TempDir(), "server.log"))
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return Server{Address: addr, TLSCert: filepath.Join(home, "ca-cert.pem"), Admin: "registrar", Password: password}
		}
	}
	b, _ := os.ReadFile(log.Name())
	t.Fatalf("fabric-ca-server did not listen on %s:\n%s", addr, b)
	return Server{}
}

// servers starts org's two CA servers, their homes in its directory.
func servers(t *testing.T, bin string, org Org) *Enroller {
	t.Helper()
	return &Enroller{Client: filepath.Join(bin, "fabric-ca-client"),
		CA:    startServer(t, bin, filepath.Join(org.Dir, "fabric-ca", "ca-server"), "ca."+org.Domain),
		TLSCA: startServer(t, bin, filepath.Join(org.Dir, "fabric-ca", "tlsca-server"), "tlsca."+org.Domain)}
}

func enroll(t *testing.T, e *Enroller, org Org) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return e.Enroll(ctx, org)
}

func TestEnrollWithRealCA(t *testing.T) {
	bin := caBin(t)
	t.Setenv("HOME", t.TempDir()) // nothing may land in the user's home
	root := t.TempDir()
	org := Org{Domain: "ea.fabvote.local", Dir: filepath.Join(root, "peerOrganizations", "ea.fabvote.local"),
		Nodes: []string{"peer0", "ccaas0"}, Users: []string{"Admin", "User1"}, Hosts: []string{"10.77.0.11", "ea.example.org"}}
	e := servers(t, bin, org)
	if err := enroll(t, e, org); err != nil {
		t.Fatal(err)
	}
	d := org.Dir
	caRoot := loadCert(t, filepath.Join(d, "msp", "cacerts", "ca.ea.fabvote.local-cert.pem"))
	tlsRoot := loadCert(t, filepath.Join(d, "tlsca", "tlsca.ea.fabvote.local-cert.pem"))
	if caRoot.Equal(tlsRoot) {
		t.Fatal("the MSP CA and the TLS CA are the same: TLS certificates must come from a TLS CA")
	}
	cases := []struct {
		dir, name, ou, tls string
		server             bool
	}{
		{"peers/peer0.ea.fabvote.local", "peer0.ea.fabvote.local", "peer", "server", true},
		{"peers/ccaas0.ea.fabvote.local", "ccaas0.ea.fabvote.local", "peer", "server", true},
		{"users/Admin@ea.fabvote.local", "Admin@ea.fabvote.local", "admin", "client", false},
		{"users/User1@ea.fabvote.local", "User1@ea.fabvote.local", "client", "client", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(d, c.dir)
			sign := loadCert(t, filepath.Join(dir, "msp", "signcerts", c.name+"-cert.pem"))
			checkChain(t, sign, caRoot)
			if !slices.Contains(sign.Subject.OrganizationalUnit, c.ou) || sign.Subject.CommonName != c.name {
				t.Errorf("MSP certificate OU %v CN %q, want OU %s and CN %s", sign.Subject.OrganizationalUnit, sign.Subject.CommonName, c.ou, c.name)
			}
			checkKey(t, filepath.Join(dir, "msp", "keystore", "priv_sk"), sign)
			tlsCert := loadCert(t, filepath.Join(dir, "tls", c.tls+".crt"))
			checkChain(t, tlsCert, tlsRoot)
			// Raft and the peers' mutual TLS use a node's server pair as a client too.
			if !slices.Contains(tlsCert.ExtKeyUsage, x509.ExtKeyUsageServerAuth) || !slices.Contains(tlsCert.ExtKeyUsage, x509.ExtKeyUsageClientAuth) {
				t.Errorf("TLS certificate usages %v, want server and client authentication", tlsCert.ExtKeyUsage)
			}
			checkKey(t, filepath.Join(dir, "tls", c.tls+".key"), tlsCert)
			if c.server && (!slices.Contains(tlsCert.DNSNames, c.name) || len(tlsCert.IPAddresses) == 0 || !tlsCert.IPAddresses[0].IsLoopback()) {
				t.Errorf("TLS certificate names %v %v, want %s and 127.0.0.1", tlsCert.DNSNames, tlsCert.IPAddresses, c.name)
			}
			// The org's own host (Org.Hosts), which other organisations dial.
			hasIP := slices.ContainsFunc(tlsCert.IPAddresses, func(ip net.IP) bool { return ip.String() == "10.77.0.11" })
			if c.server && (!hasIP || !slices.Contains(tlsCert.DNSNames, "ea.example.org")) {
				t.Errorf("TLS certificate names %v %v, want the org's host 10.77.0.11 and ea.example.org too", tlsCert.DNSNames, tlsCert.IPAddresses)
			}
			for _, f := range []string{"msp/config.yaml", "msp/tlscacerts/tlsca.ea.fabvote.local-cert.pem", "tls/ca.crt"} {
				if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
					t.Error(err)
				}
			}
		})
	}
	if entries, _ := os.ReadDir(os.Getenv("HOME")); len(entries) != 0 {
		t.Errorf("fabric-ca-client wrote into HOME: %v", entries)
	}
	if _, err := os.Stat(filepath.Join(d, "fabric-ca", "client")); err != nil {
		t.Error("the client homes are not in the organisation's directory")
	}
}

func loadCert(t *testing.T, path string) *x509.Certificate {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	blk, _ := pem.Decode(b)
	if blk == nil {
		t.Fatalf("%s: no PEM", path)
	}
	c, err := x509.ParseCertificate(blk.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func checkChain(t *testing.T, c, root *x509.Certificate) {
	t.Helper()
	pool := x509.NewCertPool()
	pool.AddCert(root)
	if _, err := c.Verify(x509.VerifyOptions{Roots: pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}}); err != nil {
		t.Errorf("%s does not chain to %s: %v", c.Subject.CommonName, root.Subject.CommonName, err)
	}
}

// checkKey: the key file is private (0600) and is the certificate's key.
func checkKey(t *testing.T, path string, c *x509.Certificate) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("%s has mode %v, want 0600", path, st.Mode().Perm())
	}
	b, _ := os.ReadFile(path)
	blk, _ := pem.Decode(b)
	if blk == nil {
		t.Fatalf("%s: no PEM", path)
	}
	k, err := x509.ParsePKCS8PrivateKey(blk.Bytes)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	ek, ok := k.(*ecdsa.PrivateKey)
	if !ok || !ek.PublicKey.Equal(c.PublicKey) {
		t.Errorf("%s is not the key of %s", path, c.Subject.CommonName)
	}
}

// An ordering organisation: orderers under orderers/, with the orderer OU.
func TestEnrollOrdererOrg(t *testing.T) {
	bin := caBin(t)
	org := Org{Domain: "orderer.fabvote.local", Dir: filepath.Join(t.TempDir(), "ordererOrganizations", "orderer.fabvote.local"),
		Orderer: true, Nodes: []string{"orderer0"}, Users: []string{"Admin"}}
	if err := enroll(t, servers(t, bin, org), org); err != nil {
		t.Fatal(err)
	}
	c := loadCert(t, filepath.Join(org.Dir, "orderers", "orderer0.orderer.fabvote.local", "msp", "signcerts", "orderer0.orderer.fabvote.local-cert.pem"))
	if !slices.Contains(c.Subject.OrganizationalUnit, "orderer") {
		t.Errorf("orderer certificate OU %v", c.Subject.OrganizationalUnit)
	}
}

// A wrong registrar secret, or a TLS root that is not the server's, stops
// the enrollment before any identity is written.
func TestEnrollRefusesWrongSecretOrRoot(t *testing.T) {
	bin := caBin(t)
	org := Org{Domain: "party1.fabvote.local", Dir: filepath.Join(t.TempDir(), "party1.fabvote.local"),
		Nodes: []string{"peer0"}, Users: []string{"Admin"}}
	good := servers(t, bin, org)
	wrongSecret := *good
	wrongSecret.CA.Password = "not-the-secret"
	wrongRoot := *good
	wrongRoot.CA.TLSCert = good.TLSCA.TLSCert // the TLS CA's root does not sign the MSP CA's listener
	for name, e := range map[string]*Enroller{"wrong registrar secret": &wrongSecret, "wrong TLS root": &wrongRoot} {
		err := enroll(t, e, org)
		if err == nil || !strings.Contains(err.Error(), "bootstrap registrar") {
			t.Errorf("%s: %v, want the registrar's enrollment refused", name, err)
		}
		if _, err := os.Stat(filepath.Join(org.Dir, "peers")); !os.IsNotExist(err) {
			t.Errorf("%s: identities were written", name)
		}
	}
}

func TestEnrollRefusesBadOrg(t *testing.T) {
	e := &Enroller{Client: "/nonexistent"}
	cases := []struct {
		org  Org
		want string
	}{
		{Org{Dir: t.TempDir()}, "domain and a directory"},
		{Org{Domain: "x.local"}, "domain and a directory"},
		{Org{Domain: "../x", Dir: t.TempDir()}, "not a DNS name"},
		{Org{Domain: "ea.local", Dir: t.TempDir(), Nodes: []string{"../peer0"}}, "not a DNS label"},
		{Org{Domain: "ea.local", Dir: t.TempDir(), Users: []string{"Admin/x"}}, "not a DNS label"},
		{Org{Domain: "ea.local", Dir: t.TempDir(), Hosts: []string{"10.0.0.1,x"}}, "neither an IP address"},
	}
	for _, c := range cases {
		if err := e.Enroll(context.Background(), c.org); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Enroll(%+v) = %v, want %q", c.org, err, c.want)
		}
	}
}
