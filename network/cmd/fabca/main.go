// Command fabca enrolls one organisation's nodes and users from its two
// running Fabric CA servers (MSP and TLS) and writes them in cryptogen's
// layout (package network/fabca, which fabnet calls for every organisation
// when net.sh's NET_IDENTITIES=ca).
//
//	fabca --client bin/fabric-ca-client --domain ea.fabvote.local --dir crypto/peerOrganizations/ea.fabvote.local \
//	      --nodes peer0,ccaas0 --users Admin,User1,User2 \
//	      --ca 127.0.0.1:7350 --ca-tls-cert CAHOME/ca-cert.pem --ca-registrar-file DIR/fabric-ca/ca-registrar \
//	      --tlsca 127.0.0.1:7351 --tlsca-tls-cert TLSCAHOME/ca-cert.pem --tlsca-registrar-file DIR/fabric-ca/tlsca-registrar
//
// Each registrar file holds "user:password" of that server's bootstrap
// registrar (0600, in the organisation's directory). docs/cli/fabca.md has
// every flag; exit status 0 success, 1 failure, 2 bad usage.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fabvote/fabvote/internal/cli"
	"github.com/fabvote/fabvote/network/fabca"
)

func main() { cli.Main(newRootCommand) }

// enrollment is the command line of an organisation's enrollment.
type enrollment struct {
	client                      string
	org                         fabca.Org
	nodes, users, hosts         string
	ca, tlsca                   fabca.Server
	caRegistrar, tlscaRegistrar string
	timeout                     time.Duration
}

func newRootCommand(stderr io.Writer) *cobra.Command {
	var e enrollment
	root := &cobra.Command{
		Use: "fabca --client FILE --domain DOMAIN --dir DIR --nodes peer0,ccaas0 [--users Admin,User1,User2] " +
			"--ca HOST:PORT --ca-tls-cert FILE --ca-registrar-file FILE --tlsca HOST:PORT --tlsca-tls-cert FILE --tlsca-registrar-file FILE",
		Short: "enroll an organisation's nodes and users from its Fabric CA servers, in cryptogen's layout",
		Args:  cli.NoArgs,
	}
	e.register(root.Flags())
	root.RunE = func(*cobra.Command, []string) error {
		if err := cli.Required(root.Flags(), "client", "domain", "dir", "ca", "ca-tls-cert", "ca-registrar-file",
			"tlsca", "tlsca-tls-cert", "tlsca-registrar-file"); err != nil {
			return err
		}
		return e.enroll()
	}
	cli.Configure(root, stderr)
	return root
}

func (e *enrollment) register(fs *pflag.FlagSet) {
	fs.StringVar(&e.client, "client", "", "fabric-ca-client binary (required)")
	fs.StringVar(&e.org.Domain, "domain", "", "the organisation's domain (required)")
	fs.StringVar(&e.org.Dir, "dir", "", "the organisation's crypto directory (required)")
	fs.BoolVar(&e.org.Orderer, "orderer", false, "an ordering organisation: its nodes are orderers")
	fs.StringVar(&e.nodes, "nodes", "", "comma-separated node host names (peer0,ccaas0 or orderer0,...)")
	fs.StringVar(&e.users, "users", "Admin,User1,User2", "comma-separated user names; Admin is enrolled as an admin")
	fs.StringVar(&e.hosts, "hosts", "", "comma-separated extra host names or IP addresses for the nodes' TLS certificates")
	fs.StringVar(&e.ca.Address, "ca", "", "host:port of the MSP CA (required)")
	fs.StringVar(&e.ca.TLSCert, "ca-tls-cert", "", "PEM file to trust for the MSP CA's HTTPS listener (required)")
	fs.StringVar(&e.tlsca.Address, "tlsca", "", "host:port of the TLS CA (required)")
	fs.StringVar(&e.tlsca.TLSCert, "tlsca-tls-cert", "", "PEM file to trust for the TLS CA's HTTPS listener (required)")
	fs.StringVar(&e.caRegistrar, "ca-registrar-file", "", "file holding user:password of the MSP CA's bootstrap registrar (required)")
	fs.StringVar(&e.tlscaRegistrar, "tlsca-registrar-file", "", "file holding user:password of the TLS CA's bootstrap registrar (required)")
	fs.DurationVar(&e.timeout, "timeout", 2*time.Minute, "time allowed for the whole organisation's enrollment")
}

// enroll reads the registrar files and enrolls the organisation.
func (e *enrollment) enroll() error {
	var err error
	if e.ca.Admin, e.ca.Password, err = readRegistrar("--ca-registrar-file", e.caRegistrar); err != nil {
		return err
	}
	if e.tlsca.Admin, e.tlsca.Password, err = readRegistrar("--tlsca-registrar-file", e.tlscaRegistrar); err != nil {
		return err
	}
	e.org.Nodes, e.org.Users, e.org.Hosts = split(e.nodes), split(e.users), split(e.hosts)
	ctx, cancel := context.WithTimeout(context.Background(), e.timeout)
	defer cancel()
	en := &fabca.Enroller{Client: e.client, CA: e.ca, TLSCA: e.tlsca}
	return en.Enroll(ctx, e.org)
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
