// Command fabca enrolls one organisation's nodes and users from its two
// running Fabric CA servers (MSP and TLS) and writes them in cryptogen's
// layout (package network/fabca). network/net.sh runs it for every
// organisation when NET_IDENTITIES=ca.
//
//	fabca --client bin/fabric-ca-client --domain ea.fabvote.local --dir crypto/peerOrganizations/ea.fabvote.local \
//	      --nodes peer0,ccaas0 --users Admin,User1,User2 \
//	      --ca 127.0.0.1:7350 --ca-tls-cert CAHOME/ca-cert.pem --tlsca 127.0.0.1:7351 --tlsca-tls-cert TLSCAHOME/ca-cert.pem \
//	      --registrar-file DIR/fabric-ca/registrar
//
// The registrar file holds "user:password" of both servers' bootstrap
// registrar (0600, in the organisation's directory).
package main

import (
	"context"
	"errors"
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
	var ca, tlsca fabca.Server
	fs.StringVar(&ca.Address, "ca", "", "host:port of the MSP CA (required)")
	fs.StringVar(&ca.TLSCert, "ca-tls-cert", "", "PEM file to trust for the MSP CA's HTTPS listener (required)")
	fs.StringVar(&tlsca.Address, "tlsca", "", "host:port of the TLS CA (required)")
	fs.StringVar(&tlsca.TLSCert, "tlsca-tls-cert", "", "PEM file to trust for the TLS CA's HTTPS listener (required)")
	registrar := fs.String("registrar-file", "", "file holding user:password of both CAs' bootstrap registrar (required)")
	timeout := fs.Duration("timeout", 2*time.Minute, "time allowed for every enrollment")
	if err := fs.Parse(args); err != nil {
		return err
	}
	for name, v := range map[string]string{"client": *client, "domain": org.Domain, "dir": org.Dir, "ca": ca.Address,
		"ca-tls-cert": ca.TLSCert, "tlsca": tlsca.Address, "tlsca-tls-cert": tlsca.TLSCert, "registrar-file": *registrar} {
		if v == "" {
			return fmt.Errorf("--%s is required", name)
		}
	}
	user, password, err := readRegistrar(*registrar)
	if err != nil {
		return err
	}
	ca.Admin, ca.Password, tlsca.Admin, tlsca.Password = user, password, user, password
	org.Nodes, org.Users = split(*nodes), split(*users)
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	e := &fabca.Enroller{Client: *client, CA: ca, TLSCA: tlsca}
	return e.Enroll(ctx, org)
}

func readRegistrar(path string) (user, password string, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", "", fmt.Errorf("--registrar-file: %w", err)
	}
	user, password, ok := strings.Cut(strings.TrimSpace(string(b)), ":")
	if !ok || user == "" || password == "" {
		return "", "", errors.New("--registrar-file: want one line user:password")
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
