// Command cfgmerge writes a Fabric configuration file (core.yaml, orderer.yaml)
// as upstream's sampleconfig plus our overrides, ${NAME} in the overrides
// taken from the environment (package network/cfgmerge).
//
// Usage: cfgmerge -base upstream.yaml -override ours.yaml -out merged.yaml
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/fabvote/fabvote/internal/atomicfile"
	"github.com/fabvote/fabvote/network/cfgmerge"
)

func main() {
	base := flag.String("base", "", "upstream YAML file")
	override := flag.String("override", "", "override YAML file (${VAR} expanded from the environment)")
	out := flag.String("out", "", "output file (written atomically)")
	flag.Parse()
	if err := run(*base, *override, *out); err != nil {
		fmt.Fprintln(os.Stderr, "cfgmerge:", err)
		os.Exit(1)
	}
}

func run(basePath, overridePath, outPath string) error {
	for name, v := range map[string]string{"-base": basePath, "-override": overridePath, "-out": outPath} {
		if v == "" {
			return fmt.Errorf("flag %s is required", name)
		}
	}
	merged, err := cfgmerge.File(basePath, overridePath, os.LookupEnv)
	if err != nil {
		return err
	}
	// Fabric reads the file while the network scripts may rewrite it: a
	// reader sees the old file or the new one, never half of one.
	return atomicfile.WriteFile(outPath, merged, 0o644)
}
