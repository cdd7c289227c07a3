package main

import (
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/spf13/pflag"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/fabric"
	"github.com/fabvote/fabvote/internal/record"
)

// version is fabvote's own version; `make fabvote` sets it with -ldflags
// (git describe). A plain `go build` says "dev".
var version = "dev"

func cmdVersion(fs *pflag.FlagSet) func() error {
	patches := fs.Bool("patches", false, "list the patch files of the series too")
	return func() error { return printVersion(os.Stdout, *patches) }
}

// printVersion names fabvote's version, the Go toolchain, the pinned Fabric
// release, the fork's patch series, whose level `peer version` and
// `orderer version` print too (equal levels mean the same series), and the
// versions of the formats it reads and writes.
func printVersion(w io.Writer, listPatches bool) error {
	s, err := fabric.Load()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "fabvote %s (%s)\n", version, runtime.Version())
	fmt.Fprintf(w, "Fabric %s (commit %s, %s@%s)\n", s.Release, s.Commit, s.Module, s.Version)
	fmt.Fprintf(w, "fabvote patch series: %s (%d patches)\n", s.Level, len(s.Patches))
	fmt.Fprintf(w, "formats: manifest %d, ballot %d, result %d, record %d\n", election.ManifestVersion, election.BallotVersion, election.ResultVersion, record.Version)
	if !listPatches {
		return nil
	}
	for _, p := range s.Patches {
		fmt.Fprintf(w, "  %s\n", p)
	}
	return nil
}
