package main

import (
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"github.com/fabvote/fabvote/booth"
	"github.com/fabvote/fabvote/internal/cli"
)

// cmdBoothDigest prints the digest of the booth's files in --dir, the
// value of election create --booth-digest.
func cmdBoothDigest(fs *pflag.FlagSet) func() error {
	dir := fs.String("dir", "", "the booth's directory (make booth: build/booth)")
	return func() error {
		if err := cli.Required(fs, "dir"); err != nil {
			return err
		}
		d, err := booth.Digest(*dir)
		if err != nil {
			return err
		}
		fmt.Fprintln(os.Stdout, d)
		return nil
	}
}
