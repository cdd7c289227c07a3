// Command ballot-cc serves the fabvote ballot contract as a chaincode service
// (CCAAS) with mutual TLS. Its listener and TLS files come from the
// CHAINCODE_* variables (package ccserver), its behaviour from the FABVOTE_*
// variables (package ballot: proof batching, clock skew, authority MSPs).
package main

import (
	"fmt"
	"os"

	"github.com/fabvote/fabvote/chaincode/ballot"
	"github.com/fabvote/fabvote/chaincode/ccserver"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "ballot-cc:", err)
		os.Exit(1)
	}
}

func run() error {
	cfg, err := ballot.ConfigFromEnv(os.LookupEnv)
	if err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, "ballot-cc:", cfg)
	cc, err := ballot.NewChaincode(cfg)
	if err != nil {
		return err
	}
	return ccserver.Run(cc)
}
