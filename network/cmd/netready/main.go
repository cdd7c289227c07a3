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
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/fabvote/fabvote/network/netjson"
	"github.com/hyperledger/fabric-gateway/pkg/client"
)

// probeTx is the contract-api system transaction every chaincode answers.
const probeTx = "org.hyperledger.fabric:GetMetadata"

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
		org := &n.Orgs[i]
		gw, conn, err := org.Connect("user1", 20*time.Second)
		if err != nil {
			return fmt.Errorf("org %s: %w", org.Name, err)
		}
		network := gw.GetNetwork(n.Channel)
		for _, cc := range n.Chaincodes {
			if err := waitEndorse(network.GetContract(cc), deadline); err != nil {
				gw.Close()
				conn.Close()
				return fmt.Errorf("org %s, chaincode %s: not ready after %s: %w", org.Name, cc, timeout, err)
			}
		}
		gw.Close()
		conn.Close()
	}
	return nil
}

// waitEndorse retries the probe endorsement until it succeeds or the deadline passes.
func waitEndorse(c *client.Contract, deadline time.Time) error {
	for {
		p, err := c.NewProposal(probeTx)
		if err != nil {
			return err
		}
		ctx, cancel := context.WithDeadline(context.Background(), deadline)
		_, err = p.EndorseWithContext(ctx)
		cancel()
		if err == nil {
			return nil
		}
		if time.Now().Add(500 * time.Millisecond).After(deadline) {
			return err
		}
		time.Sleep(500 * time.Millisecond)
	}
}
