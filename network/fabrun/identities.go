package fabrun

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/fabvote/fabvote/network/fabca"
	"github.com/fabvote/fabvote/network/fabnet"
)

// Tools are the binaries the organisation runs.
type Tools struct {
	Fabric   string // peer, orderer, configtxgen, osnadmin
	FabricCA string // fabric-ca-server, fabric-ca-client
	// Builder is network/cmd/ccaas-builder, the peers' external builder.
	Builder string
	// ConfigSrc holds upstream's core.yaml and orderer.yaml (make fabric);
	// Overrides holds ours (network/config).
	ConfigSrc, Overrides string
}

// orgIdentity is what the org's CAs enroll.
type orgIdentity struct {
	name, domain string
	hosts        []string // the addresses its nodes' TLS certificates name
	caPort       int
	orderer      bool
	nodes, users []string
}

// serviceNode is the TLS identity an organisation's chaincode services
// share, unless a network names another (Local.ServiceNode).
const serviceNode = "ccaas0"

func identityOf(t *fabnet.Topology, org, service string) (orgIdentity, error) {
	if org == t.OrdererOrg.Name {
		oo := t.OrdererOrg
		id := orgIdentity{name: oo.Name, domain: oo.Domain, hosts: []string{oo.Host}, caPort: oo.CAPort, orderer: true, users: []string{"Admin"}}
		for _, o := range oo.Orderers {
			id.nodes = append(id.nodes, o.Name)
			if o.Host != "" && !slices.Contains(id.hosts, o.Host) {
				id.hosts = append(id.hosts, o.Host)
			}
		}
		return id, nil
	}
	o, err := t.PeerOrg(org)
	if err != nil {
		return orgIdentity{}, err
	}
	return orgIdentity{name: o.Name, domain: o.Domain, hosts: []string{o.Host}, caPort: o.CAPort,
		nodes: []string{o.Peer.Name, service}, users: []string{"Admin", "User1", "User2"}}, nil
}

// Identities starts the organisation's MSP CA and TLS CA, enrolls its
// nodes and users from them into its home, and writes its bundle. The CA
// servers keep running as nodes of the organisation.
func Identities(ctx context.Context, t *fabnet.Topology, h Home, tools Tools) error {
	return enrollOrg(ctx, t, h, tools, serviceNode)
}

// enrollOrg is Identities with the services' TLS identity named service.
func enrollOrg(ctx context.Context, t *fabnet.Topology, h Home, tools Tools, service string) error {
	id, err := identityOf(t, h.Org, service)
	if err != nil {
		return err
	}
	caDir := filepath.Join(h.Crypto(), "fabric-ca")
	// A second run would replace the registrar secrets of CAs that may be
	// running with the first ones: start over from an empty home instead.
	if fileExists(caDir) {
		return fmt.Errorf("%s already has CAs and identities in %s: to start over, run fabnet down and remove %s", h.Org, h.Crypto(), h.Dir)
	}
	if err := os.MkdirAll(caDir, 0o700); err != nil {
		return err
	}
	servers := map[string]fabca.Server{}
	for i, which := range []string{"ca", "tlsca"} {
		s, err := startCA(ctx, h, tools, id, which, id.caPort+i)
		if err != nil {
			return err
		}
		servers[which] = s
	}
	org := fabca.Org{Domain: id.domain, Dir: h.Crypto(), Orderer: id.orderer, Nodes: id.nodes, Users: id.users}
	for _, host := range id.hosts {
		if host != "127.0.0.1" {
			org.Hosts = append(org.Hosts, host)
		}
	}
	e := &fabca.Enroller{Client: filepath.Join(tools.FabricCA, "fabric-ca-client"), CA: servers["ca"], TLSCA: servers["tlsca"]}
	if err := e.Enroll(ctx, org); err != nil {
		return err
	}
	if h.shared() { // every organisation's files are at hand: no bundle to hand over
		return nil
	}
	return writeBundle(t, h)
}

// startCA initialises and starts one of the org's CA servers on its own
// loopback, with a fresh registrar secret that reaches the server through
// its environment and is kept, 0600, in the org's crypto directory.
func startCA(ctx context.Context, h Home, tools Tools, id orgIdentity, which string, port int) (fabca.Server, error) {
	secret := make([]byte, 24)
	if _, err := rand.Read(secret); err != nil {
		return fabca.Server{}, err
	}
	pw := hex.EncodeToString(secret)
	caDir := filepath.Join(h.Crypto(), "fabric-ca")
	if err := os.WriteFile(filepath.Join(caDir, which+"-registrar"), []byte("registrar:"+pw+"\n"), 0o600); err != nil {
		return fabca.Server{}, err
	}
	serverHome := filepath.Join(caDir, which+"-server")
	args := []string{"-H", serverHome, "--address", "127.0.0.1", "--port", strconv.Itoa(port), "--tls.enabled",
		"--csr.cn", which + "." + id.domain, "--csr.hosts", "localhost,127.0.0.1",
		"--operations.listenaddress", "127.0.0.1:" + strconv.Itoa(port+2)}
	bin := filepath.Join(tools.FabricCA, "fabric-ca-server")
	initCmd := exec.CommandContext(ctx, bin, append([]string{"init"}, args...)...)
	initCmd.Env = nodeEnv("FABRIC_CA_SERVER_BOOT=registrar:" + pw)
	if out, err := initCmd.CombinedOutput(); err != nil {
		return fabca.Server{}, fmt.Errorf("fabric-ca-server init of %s.%s: %v\n%s", which, id.name, err, out)
	}
	// fabric-ca-server writes the registrar's secret into its configuration
	// file, world-readable: only the organisation reads it.
	if err := os.Chmod(filepath.Join(serverHome, "fabric-ca-server-config.yaml"), 0o600); err != nil {
		return fabca.Server{}, err
	}
	p := fabnet.Proc{Name: which + "." + id.name, Path: bin, Args: append([]string{"start"}, args...),
		Env: nodeEnv(), Dir: serverHome, Ready: "127.0.0.1:" + strconv.Itoa(port)}
	if err := h.Define(p); err != nil {
		return fabca.Server{}, err
	}
	if err := h.Start(ctx, p); err != nil {
		return fabca.Server{}, err
	}
	return fabca.Server{Address: p.Ready, TLSCert: filepath.Join(serverHome, "ca-cert.pem"), Admin: "registrar", Password: pw}, nil
}
