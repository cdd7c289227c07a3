package main

import (
	"github.com/spf13/cobra"

	"github.com/fabvote/fabvote/internal/cli"
)

// reference is fabvote's CLI reference in docs/cli (internal/cli's
// Reference): `make docs` writes it and TestCLIReference fails when it
// differs, so it always says what the binary does.
func reference(root *cobra.Command) cli.Reference {
	return cli.Reference{
		Root:   root,
		Source: "cmd/fabvote",
		About: "The election authority creates and opens elections and registers voters, " +
			"voters make and cast ballots and check their receipts, trustees decrypt the tally, " +
			"and anyone audits the result from the ledger alone.",
		Failures: "an audit that FAILs or a rejected ballot",
	}
}
