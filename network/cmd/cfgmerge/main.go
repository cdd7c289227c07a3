// Command cfgmerge writes a Fabric configuration file (core.yaml, orderer.yaml)
// as upstream's sampleconfig plus our overrides, ${NAME} in the overrides
// taken from the environment (package network/cfgmerge).
//
// Usage: cfgmerge --base upstream.yaml --override ours.yaml --out merged.yaml
// (docs/cli/cfgmerge.md; exit status 0 success, 1 failure, 2 bad usage).
package main

import (
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/fabvote/fabvote/internal/atomicfile"
	"github.com/fabvote/fabvote/internal/cli"
	"github.com/fabvote/fabvote/network/cfgmerge"
)

func main() { cli.Main(newRootCommand) }

func newRootCommand(stderr io.Writer) *cobra.Command {
	var base, override, out string
	root := &cobra.Command{
		Use:   "cfgmerge --base upstream.yaml --override ours.yaml --out merged.yaml",
		Short: "write a Fabric configuration file, upstream's sampleconfig with our overrides merged on top",
		Args:  cli.NoArgs,
	}
	fs := root.Flags()
	fs.StringVar(&base, "base", "", "upstream YAML file (required)")
	fs.StringVar(&override, "override", "", "override YAML file, ${VAR} expanded from the environment (required)")
	fs.StringVar(&out, "out", "", "output file, written atomically (required)")
	root.RunE = func(*cobra.Command, []string) error {
		if err := cli.Required(fs, "base", "override", "out"); err != nil {
			return err
		}
		return merge(base, override, out)
	}
	cli.Configure(root, stderr)
	return root
}

func merge(basePath, overridePath, outPath string) error {
	merged, err := cfgmerge.File(basePath, overridePath, os.LookupEnv)
	if err != nil {
		return err
	}
	// Fabric reads the file while the network scripts may rewrite it: a
	// reader sees the old file or the new one, never half of one.
	return atomicfile.WriteFile(outPath, merged, 0o644)
}
