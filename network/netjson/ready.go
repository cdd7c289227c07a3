package netjson

import (
	"context"
	"fmt"
	"time"

	"github.com/hyperledger/fabric-gateway/pkg/client"
)

// probeTx is the contract-api system transaction every chaincode answers.
const probeTx = "org.hyperledger.fabric:GetMetadata"

// WaitEndorsable waits until org's gateway, as its user1, collects
// endorsements that satisfy the policy of every chaincode in the network.
//
// Why: after the peers join the channel, a gateway learns the other orgs'
// peers and their installed chaincodes through gossip, which takes a few
// seconds; until then a multi-org submit fails with "no combination of
// peers can be derived which satisfy the endorsement policy". The probe
// endorses, but never submits, org.hyperledger.fabric:GetMetadata, which
// every contract-api chaincode has: nothing reaches the ledger.
func (n *Network) WaitEndorsable(org *Org, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	gw, conn, err := org.Connect("user1", 20*time.Second)
	if err != nil {
		return fmt.Errorf("org %s: %w", org.Name, err)
	}
	defer conn.Close()
	defer gw.Close()
	network := gw.GetNetwork(n.Channel)
	for _, cc := range n.Chaincodes {
		if err := waitEndorse(network.GetContract(cc), deadline); err != nil {
			return fmt.Errorf("org %s, chaincode %s: not ready after %s: %w", org.Name, cc, timeout, err)
		}
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
