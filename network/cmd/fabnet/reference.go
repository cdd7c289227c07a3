package main

import (
	"github.com/spf13/cobra"

	"github.com/fabvote/fabvote/internal/cli"
)

// reference is fabnet's CLI reference in docs/cli (internal/cli's
// Reference): `make docs` writes it and TestCLIReference fails when it
// differs, so it always says what the binary does.
func reference(root *cobra.Command) cli.Reference {
	return cli.Reference{
		Root:   root,
		Source: "network/cmd/fabnet",
		About: "Each organisation sets up its part of the network on its own host, from the topology every organisation " +
			"shares, and hands the others only a public bundle (docs/MULTIHOST.md). The networks that keep every " +
			"organisation on one host, network/net.sh's and the Docker network, run through fabnet too. " +
			"A step ended by SIGINT or SIGTERM exits 130.",
		Failures: "a node that is not running (node pid) or no Raft leader (raft-leader)",
	}
}
