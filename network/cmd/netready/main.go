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
// Usage: netready --network run/<profile>/network.json [--timeout 120s]
// (docs/cli/netready.md; exit status 0 ready, 1 failure, 2 bad usage).
package main

import (
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/fabvote/fabvote/internal/cli"
	"github.com/fabvote/fabvote/network/netjson"
)

func main() { cli.Main(newRootCommand) }

func newRootCommand(stderr io.Writer) *cobra.Command {
	var path string
	var timeout time.Duration
	root := &cobra.Command{
		Use:   "netready --network network.json [--timeout 120s]",
		Short: "wait until every org's gateway can endorse every chaincode of a freshly started network",
		Args:  cli.NoArgs,
	}
	fs := root.Flags()
	fs.StringVar(&path, "network", "", "network.json written by network-up (required)")
	fs.DurationVar(&timeout, "timeout", 120*time.Second, "give up after this long")
	root.RunE = func(*cobra.Command, []string) error {
		if err := cli.Required(fs, "network"); err != nil {
			return err
		}
		return waitReady(path, timeout)
	}
	cli.Configure(root, stderr)
	return root
}

// waitReady waits until every org of the network described at path can
// endorse every chaincode, or timeout has passed.
func waitReady(path string, timeout time.Duration) error {
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
