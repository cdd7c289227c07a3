package fabrun

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fabvote/fabvote/internal/atomicfile"
	"github.com/fabvote/fabvote/network/fabnet"
)

// StartChaincodes starts the org's chaincode services (binaries by
// chaincode name), installs a package that points its peer at each, and
// approves each chaincode's definition for the org.
func StartChaincodes(ctx context.Context, t *fabnet.Topology, h Home, tools Tools, bins map[string]string, opts NodeOptions) error {
	o, err := t.PeerOrg(h.Org)
	if err != nil {
		return err
	}
	cli := h.peerCLI(t, o, tools)
	for k, cc := range t.Chaincodes {
		bin := bins[cc.Name]
		if bin == "" {
			return fmt.Errorf("no binary for chaincode %s", cc.Name)
		}
		pkg, err := h.packageChaincode(o, tools, cc, o.Peer.Services[k])
		if err != nil {
			return err
		}
		out, err := cli.run(ctx, "lifecycle", "chaincode", "calculatepackageid", pkg)
		if err != nil {
			return err
		}
		pkgID := strings.TrimSpace(out)
		if err := h.startService(ctx, opts, o, cc, o.Peer.Services[k], bin, pkgID); err != nil {
			return err
		}
		if _, err := cli.retry(ctx, 3, "lifecycle", "chaincode", "install", pkg); err != nil {
			return fmt.Errorf("installing %s on %s's peer: %w", cc.Name, o.Name, err)
		}
		if _, err := cli.retry(ctx, 5, h.approveArgs(t, cc, 1, pkgID)...); err != nil {
			return fmt.Errorf("approving %s for %s: %w", cc.Name, o.MSPID, err)
		}
	}
	return nil
}

// definitionFlags name cc's definition at a sequence: 1 is the first.
func definitionFlags(t *fabnet.Topology, cc fabnet.Chaincode, sequence int) []string {
	f := []string{"--channelID", t.Channel, "--name", cc.Name, "--version", cc.Version, "--sequence", strconv.Itoa(sequence)}
	if cc.ValidationPlugin != "" {
		f = append(f, "--validation-plugin", cc.ValidationPlugin)
	}
	return f
}

// startService runs a chaincode service on the org's host, with the
// TLS server pair the org's TLS CA issued to ccaas0; only the org's own
// peer (a client of the same TLS CA) can connect.
func (h Home) startService(ctx context.Context, opts NodeOptions, o *fabnet.PeerOrg, cc fabnet.Chaincode, s fabnet.Service, bin, pkgID string) error {
	if s.Host != "" {
		return fmt.Errorf("%s's %s service has a host of its own (%s), as a container has: fabnet runs services beside their peer", o.Name, cc.Name, s.Host)
	}
	tls := filepath.Join(h.nodeCrypto("peers", "ccaas0", o.Domain), "tls")
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(s.Port))
	env := []string{"CHAINCODE_ID=" + pkgID, "CHAINCODE_SERVER_ADDRESS=" + addr,
		"CHAINCODE_TLS_CERT_FILE=" + filepath.Join(tls, "server.crt"), "CHAINCODE_TLS_KEY_FILE=" + filepath.Join(tls, "server.key"),
		"CHAINCODE_TLS_CLIENT_CA_FILE=" + h.tlsCA(o.Domain)}
	if cc.Ballot && s.OpsPort != 0 {
		env = append(env, "FABVOTE_OPS_ADDR="+net.JoinHostPort(fabnet.ListenHost(o.Host), strconv.Itoa(s.OpsPort)))
	}
	if cc.Ballot {
		// The service leaves the proof check to validation only when the
		// definition names the plugin that does it: the switch comes from
		// the definition, never from the caller's environment.
		plugin := cc.ValidationPlugin
		if plugin == "" {
			plugin = "off"
		}
		env = append(env, "FABVOTE_VALIDATION_PLUGIN="+plugin)
	}
	name := h.serviceNode(o, cc)
	p := fabnet.Proc{Name: name, Path: bin, Env: opts.env(env...), Dir: h.Node(name), Ready: addr}
	if cc.Ballot { // the ballot contract's image; other chaincodes have none
		p.Image, p.ImageCmd, p.Mounts = "fabvote/ballot-cc", "ballot-cc", []string{tls, h.tlsCA(o.Domain)}
	}
	return opts.start(ctx, h, p)
}

// packageChaincode writes a chaincode-as-a-service package whose
// connection.json points the org's peer at its service.
func (h Home) packageChaincode(o *fabnet.PeerOrg, tools Tools, cc fabnet.Chaincode, s fabnet.Service) (string, error) {
	dir := h.path("packages", cc.Name)
	if h.shared() {
		dir = h.path("packages", cc.Name+"."+o.Name)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	peerTLS := filepath.Join(h.nodeCrypto("peers", o.Peer.Name, o.Domain), "tls")
	path := filepath.Join(dir, cc.Name+".tgz")
	return path, ServicePackage{
		Label: cc.Name + "_" + cc.Version, Address: net.JoinHostPort("127.0.0.1", strconv.Itoa(s.Port)),
		RootCert: h.tlsCA(o.Domain), ClientCert: filepath.Join(peerTLS, "server.crt"), ClientKey: filepath.Join(peerTLS, "server.key"),
	}.Write(tools.Builder, path)
}

// ServicePackage is a chaincode-as-a-service package for one peer: the
// address of its chaincode service, the TLS root that verifies the
// service, and the peer's TLS pair it presents as a client.
type ServicePackage struct {
	Label, Address                  string
	RootCert, ClientCert, ClientKey string
}

// Write writes the package to path (0600, whole or not at all). The
// external builder writes connection.json (ccaas-builder connection: the
// one definition of that file); the archives are packed with fixed times
// and order, so that one content gives one package id.
func (sp ServicePackage) Write(builder, path string) error {
	if sp.Label == "" || sp.Address == "" {
		return errors.New("a chaincode package needs a label and an address")
	}
	tmp, err := os.MkdirTemp(filepath.Dir(path), ".package-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	conn := filepath.Join(tmp, "connection.json")
	cmd := exec.Command(builder, "connection", "--address", sp.Address, "--root-cert", sp.RootCert,
		"--client-cert", sp.ClientCert, "--client-key", sp.ClientKey, "--out", conn)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("connection.json for %s: %v\n%s", sp.Label, err, out)
	}
	connJSON, err := os.ReadFile(conn)
	if err != nil {
		return err
	}
	code, err := tarGz(map[string][]byte{"connection.json": connJSON})
	if err != nil {
		return err
	}
	meta, err := json.Marshal(struct {
		Type  string `json:"type"`
		Label string `json:"label"`
	}{"ccaas", sp.Label})
	if err != nil {
		return err
	}
	pkg, err := tarGz(map[string][]byte{"metadata.json": append(meta, '\n'), "code.tar.gz": code})
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, pkg, 0o600)
}

// tarGz packs files in name order with fixed times, so that one content
// gives one package id.
func tarGz(files map[string][]byte) ([]byte, error) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, name := range sortedKeys(files) {
		b := files[name]
		hdr := &tar.Header{Name: name, Mode: 0o644, Size: int64(len(b)), ModTime: time.Unix(0, 0), Typeflag: tar.TypeReg}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, err
		}
		if _, err := tw.Write(b); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Commit commits every chaincode definition once a majority of the orgs
// approved it, with the endorsement of every org's peer (reached at its
// topology address and verified with the TLS root from its bundle), and
// waits until the org's own peer has it.
func Commit(ctx context.Context, t *fabnet.Topology, h Home, tools Tools) error {
	o, err := t.PeerOrg(h.Org)
	if err != nil {
		return err
	}
	cli := h.peerCLI(t, o, tools)
	for _, cc := range t.Chaincodes {
		if _, err := cli.retry(ctx, 5, h.commitArgs(t, cc, 1)...); err != nil {
			return fmt.Errorf("committing %s: %w", cc.Name, err)
		}
	}
	return WaitCommitted(ctx, t, h, tools)
}

// approveArgs approve cc's definition at sequence for the home's org,
// with its package pkgID.
func (h Home) approveArgs(t *fabnet.Topology, cc fabnet.Chaincode, sequence int, pkgID string) []string {
	args := append([]string{"lifecycle", "chaincode", "approveformyorg"}, h.ordererFlags(t)...)
	return append(append(args, definitionFlags(t, cc, sequence)...), "--package-id", pkgID)
}

// commitArgs commit cc's definition at sequence with the endorsement of
// every org's peer, reached at its topology address and verified with the
// org's TLS root.
func (h Home) commitArgs(t *fabnet.Topology, cc fabnet.Chaincode, sequence int) []string {
	args := append([]string{"lifecycle", "chaincode", "commit"}, h.ordererFlags(t)...)
	args = append(args, definitionFlags(t, cc, sequence)...)
	for i := range t.Orgs {
		p := &t.Orgs[i]
		args = append(args, "--peerAddresses", p.PeerEndpoint(), "--tlsRootCertFiles", h.orgTLSCA(p.Name, p.Domain))
	}
	return args
}

// WaitCommitted waits until the org's peer has every chaincode's definition.
func WaitCommitted(ctx context.Context, t *fabnet.Topology, h Home, tools Tools) error {
	o, err := t.PeerOrg(h.Org)
	if err != nil {
		return err
	}
	cli := h.peerCLI(t, o, tools)
	for _, cc := range t.Chaincodes {
		err := poll(ctx, waitBound(ctx), func() (bool, string) {
			out, err := cli.run(ctx, "lifecycle", "chaincode", "querycommitted", "--channelID", t.Channel, "--name", cc.Name)
			return err == nil, out
		}, cc.Name+" to be committed on "+o.Name+"'s peer")
		if err != nil {
			return err
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
