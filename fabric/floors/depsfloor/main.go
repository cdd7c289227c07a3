// Command depsfloor fails when a binary links a module (or was built by a
// Go toolchain) below the security floors of fabric/floors/floors.txt.
//
//	depsfloor bin/peer bin/orderer bin/fabvote
//
// It runs `go version -m` on the files itself (GO names the go command).
// Usage: docs/cli/depsfloor.md; exit status 0 all floors met, 1 a module
// below its floor or a file that is no Go binary, 2 bad usage.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fabvote/fabvote/fabric/floors"
	"github.com/fabvote/fabvote/internal/cli"
)

func main() { cli.Main(newRootCommand) }

func newRootCommand(stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "depsfloor BINARY...",
		Short: "check that Go binaries link no module below its security floor (fabric/floors/floors.txt)",
		Long: "depsfloor reads each binary's build information with `go version -m` (GO names the go command, " +
			"default go) and lists, on stderr, every module and the Go toolchain below its floor.",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cli.Usagef("want one or more binaries")
			}
			return nil
		},
		RunE: func(_ *cobra.Command, files []string) error { return check(files, stderr) },
	}
	cli.Configure(root, stderr)
	return root
}

// check checks files against the floors: each violation on stderr, a
// summary on standard output when all are met.
func check(files []string, stderr io.Writer) error {
	goCmd := os.Getenv("GO")
	if goCmd == "" {
		goCmd = "go"
	}
	out, err := exec.Command(goCmd, append([]string{"version", "-m"}, files...)...).Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) && len(exit.Stderr) > 0 { // go names the file it could not read
		return fmt.Errorf("go version -m: %s", strings.TrimSpace(string(exit.Stderr)))
	}
	if err != nil {
		return fmt.Errorf("go version -m %v: %w (a file that is no Go binary?)", files, err)
	}
	bins, err := floors.ParseVersionM(string(out))
	if err != nil {
		return err
	}
	if len(bins) != len(files) {
		return fmt.Errorf("go version -m described %d of %d files (not Go binaries?)", len(bins), len(files))
	}
	fl, err := floors.Floors()
	if err != nil {
		return err
	}
	if v := floors.Check(bins, fl); len(v) > 0 {
		for _, x := range v {
			fmt.Fprintln(stderr, x)
		}
		return fmt.Errorf("%d module(s) below their security floor", len(v))
	}
	fmt.Printf("depsfloor: %d binaries, %d floors: all met\n", len(bins), len(fl))
	return nil
}
