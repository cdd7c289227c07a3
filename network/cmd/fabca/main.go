// Command fabca enrolls one organisation's nodes and users from its two
// running Fabric CA servers (MSP and TLS) and writes them in cryptogen's
// layout (package network/fabca). network/net.sh runs it for every
// organisation when NET_IDENTITIES=ca.
//
//	fabca --client bin/fabric-ca-client --domain ea.fabvote.local --dir crypto/peerOrganizations/ea.fabvote.local \
//	      --nodes peer0,ccaas0 --users Admin,User1,User2 \
//	      --ca 127.0.0.1:7350 --ca-tls-cert CAHOME/ca-cert.pem --ca-registrar-file DIR/fabric-ca/ca-registrar \
//	      --tlsca 127.0.0.1:7351 --tlsca-tls-cert TLSCAHOME/ca-cert.pem --tlsca-registrar-file DIR/fabric-ca/tlsca-registrar
//
// Each registrar file holds "user:password" of that server's bootstrap
// registrar (0600, in the organisation's directory).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/fabvote/fabvote/network/fabca"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "fabca:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("fabca", flag.ContinueOnError)
	client := fs.String("client", "", "fabric-ca-client binary (required)")
	var org fabca.Org
	fs.StringVar(&org.Domain, "domain", "", "the organisation's domain (required)")
	fs.StringVar(&org.Dir, "dir", "", "the organisation's crypto directory (required)")
	fs.BoolVar(&org.Orderer, "orderer", false, "an ordering organisation: its nodes are orderers")
	nodes := fs.String("nodes", "", "comma-separated node host names (peer0,ccaas0 or orderer0,...)")
	users := fs.String("users", "Admin,User1,User2", "comma-separated user names; Admin is enrolled as an admin")
	hosts := fs.String("hosts", "", "comma-separated extra host names or IP addresses for the nodes' TLS certificates")
	var ca, tlsca fabca.Server
	fs.StringVar(&ca.Address, "ca", "", "host:port of the MSP CA (required)")
	fs.StringVar(&ca.TLSCert, "ca-tls-cert", "", "PEM file to trust for the MSP CA's HTTPS listener (required)")
	fs.StringVar(&tlsca.Address, "tlsca", "", "host:port of the TLS CA (required)")
	fs.StringVar(&tlsca.TLSCert, "tlsca-tls-cert", "", "PEM file to trust for the TLS CA's HTTPS listener (required)")
	caRegistrar := fs.String("ca-registrar-file", "", "file holding user:password of the MSP CA's bootstrap registrar (required)")
	tlscaRegistrar := fs.String("tlsca-registrar-file", "", "file holding user:password of the TLS CA's bootstrap registrar (required)")
	timeout := fs.Duration("timeout", 2*time.Minute, "time allowed for the whole organisation's enrollment")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	for _, f := range []struct{ name, v string }{{"client", *client}, {"domain", org.Domain}, {"dir", org.Dir},
		{"ca", ca.Address}, {"ca-tls-cert", ca.TLSCert}, {"ca-registrar-file", *caRegistrar},
		{"tlsca", tlsca.Address}, {"tlsca-tls-cert", tlsca.TLSCert}, {"tlsca-registrar-file", *tlscaRegistrar}} {
		if f.v == "" {
			return fmt.Errorf("--%s is required", f.name)
		}
	}
	var err error
	if ca.Admin, ca.Password, err = readRegistrar("--ca-registrar-file", *caRegistrar); err != nil {
		return err
	}
	if tlsca.Admin, tlsca.Password, err = readRegistrar("--tlsca-registrar-file", *tlscaRegistrar); err != nil {
		return err
	}
	org.Nodes, org.Users, org.Hosts = split(*nodes), split(*users), split(*hosts)
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	e := &fabca.Enroller{Client: *client, CA: ca, TLSCA: tlsca}
	return e.Enroll(ctx, org)
}

func readRegistrar(flag, path string) (user, password string, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", "", fmt.Errorf("%s: %w", flag, err)
	}
	user, password, ok := strings.Cut(strings.TrimSpace(string(b)), ":")
	if !ok || user == "" || password == "" {
		return "", "", fmt.Errorf("%s: want one line user:password", flag)
	}
	return user, password, nil
}

func split(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
