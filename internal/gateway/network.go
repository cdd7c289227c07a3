// Package gateway connects fabvote's CLI to a running network: it reads the
// description that `make network-up` writes (run/<profile>/network.json),
// opens a fabric-gateway connection as one of an org's identities, and
// submits transactions with a retry policy that separates transient failures
// (MVCC conflicts, the lockless gate's stale snapshot, unavailable peers)
// from the contract's definitive rejections, which are never retried.
package gateway

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/fabvote/fabvote/network/netjson"
)

// The network description is network/netjson's, its one Go definition.
type (
	// Network is run/<profile>/network.json.
	Network = netjson.Network
	// Org is one peer organisation.
	Org = netjson.Org
	// Peer is a gateway endpoint.
	Peer = netjson.Peer
	// Identity names an enrolled identity's certificate and key files.
	Identity = netjson.Identity
)

// LoadNetwork reads and checks a network description (netjson.Load), with
// errors worded for the CLI's --network flag.
func LoadNetwork(path string) (*Network, error) {
	n, err := netjson.Load(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("--network: %w (is the network up? `make network-up`)", err)
	}
	if err != nil {
		return nil, fmt.Errorf("--network %w", err)
	}
	return n, nil
}
