// Command depsfloor fails when a binary links a module (or was built by a
// Go toolchain) below the security floors of fabric/floors/floors.txt.
//
//	depsfloor bin/peer bin/orderer bin/fabvote
//
// It runs `go version -m` on the files itself (GO names the go command).
package main

import (
	"fmt"
	"os"
	"os/exec"

	"github.com/fabvote/fabvote/fabric/floors"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "depsfloor:", err)
		os.Exit(1)
	}
}

func run(files []string) error {
	if len(files) == 0 {
		return fmt.Errorf("usage: depsfloor BINARY...")
	}
	goCmd := os.Getenv("GO")
	if goCmd == "" {
		goCmd = "go"
	}
	out, err := exec.Command(goCmd, append([]string{"version", "-m"}, files...)...).Output()
	if err != nil {
		return fmt.Errorf("go version -m %v: %w", files, err)
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
			fmt.Fprintln(os.Stderr, x)
		}
		return fmt.Errorf("%d module(s) below their security floor", len(v))
	}
	fmt.Printf("depsfloor: %d binaries, %d floors: all met\n", len(bins), len(fl))
	return nil
}
