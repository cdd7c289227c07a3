// Command netready waits until a freshly started network can serve gateway
// clients: for every org and every chaincode in network.json, the org's
// gateway must collect endorsements that satisfy the chaincode's policy.
//
// Why: after the peers join the channel, the gateway learns the other orgs'
// peers and their installed chaincodes through gossip, which takes a few
// seconds. Until then a three-orgs submit fails with "no combination of peers
// can be derived which satisfy the endorsement policy". network-up runs this
// probe last, so clients (the CLI, the demo, the tests) can submit at once.
//
// The probe endorses, but never submits, the read-only system transaction
// org.hyperledger.fabric:GetMetadata that every contract-api chaincode has;
// nothing reaches the ledger.
//
// Usage: netready -network run/<profile>/network.json [-timeout 120s]
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/fabvote/fabvote/network/netjson"
)

func main() {
	path := flag.String("network", "", "network.json written by network-up")
	timeout := flag.Duration("timeout", 120*time.Second, "give up after this long")
	flag.Parse()
	if err := run(*path, *timeout); err != nil {
		fmt.Fprintln(os.Stderr, "netready:", err)
		os.Exit(1)
	}
}

func run(path string, timeout time.Duration) error {
	if path == "" {
		return fmt.Errorf("flag -network is required")
	}
	n, err := netjson.Load(path)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(timeout)
	for i := range n.Orgs {
		if err := n.WaitEndorsable(&n.Orgs[i], time.Until(deadline)); err != nil {
			return err
		}
	}
	return nil
}
