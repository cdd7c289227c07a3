package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/pflag"

	"github.com/fabvote/fabvote/internal/cli"
	"github.com/fabvote/fabvote/network/compose"
	"github.com/fabvote/fabvote/network/fabnet"
	"github.com/fabvote/fabvote/network/fabrun"
)

func receiveSetup(fs *pflag.FlagSet) func([]string) error {
	topo := fs.String("topology", "", "the topology file (required)")
	org := fs.String("org", "", "the organisation receiving (required)")
	home := fs.String("home", "", "its home directory (required)")
	from := fs.String("from", "", "the organisation whose bundle it is (required)")
	bundle := fs.String("bundle", "", "the bundle's directory (required)")
	digest := fs.String("expect-digest", "", "the bundle's sha256 as its organisation gave it by a second channel (refused if it differs)")
	return func([]string) error {
		if *topo == "" || *org == "" || *home == "" || *from == "" || *bundle == "" {
			return cli.Usagef("--topology, --org, --home, --from and --bundle are required")
		}
		t, err := fabnet.Load(*topo)
		if err != nil {
			return err
		}
		h, err := fabrun.NewHome(*home, *org)
		if err != nil {
			return err
		}
		if err := fabrun.Receive(t, h, *from, *bundle, *digest); err != nil {
			return err
		}
		return printDigest(h.Received(*from), "received "+*from+"'s bundle")
	}
}

// printDigest prints a bundle's digest, which the two organisations
// compare by a second channel.
func printDigest(dir, what string) error {
	d, err := fabrun.BundleDigest(dir)
	if err != nil {
		return err
	}
	fmt.Printf("%s: sha256 %s (compare it with the other organisation by a second channel)\n", what, d)
	return nil
}

// homeSetup is the flags of down and status, which take a home only.
func homeSetup(fs *pflag.FlagSet, do func(h fabrun.Home) error) func([]string) error {
	home := fs.String("home", "", "the organisation's home directory (required)")
	return func([]string) error {
		if *home == "" {
			return cli.Usagef("--home is required")
		}
		return do(fabrun.Home{Dir: *home})
	}
}

// down stops the containers, if the org runs any, and the native
// processes, whichever fails.
func down(h fabrun.Home) error {
	var errs error
	if _, err := os.Stat(compose.OrgFile(h)); err == nil {
		rt, err := compose.Detect("")
		if err == nil {
			err = rt.Down(context.Background(), h.Dir)
		}
		errs = err
	}
	return errors.Join(errs, h.StopAll(10*time.Second))
}

// status lists the home's processes and their state, then its containers.
func status(h fabrun.Home) error {
	names, err := h.Nodes()
	if err != nil {
		return err
	}
	for _, n := range names {
		pid, ok := h.Running(n)
		state := "stopped"
		if ok {
			state = fmt.Sprintf("running (pid %d)", pid)
		}
		fmt.Printf("%-20s %s\n", n, state)
	}
	if _, err := os.Stat(compose.OrgFile(h)); err != nil {
		return nil
	}
	rt, err := compose.Detect("")
	if err != nil {
		return err
	}
	out, err := rt.Status(context.Background(), h.Dir)
	fmt.Print(out)
	return err
}
