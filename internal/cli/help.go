package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Synopsis is the usage line of c after its name: the words after the
// first of its Use.
func Synopsis(c *cobra.Command) string {
	_, rest, _ := strings.Cut(c.Use, " ")
	return rest
}

// WriteHelp prints c's usage line and summary (and Long, if any), then its
// flags unless it only has subcommands, then its commands (every runnable
// command below it, by path).
func WriteHelp(w io.Writer, c *cobra.Command) {
	fmt.Fprintf(w, "usage: %s %s\n\n%s\n", c.CommandPath(), Synopsis(c), c.Short)
	if c.Long != "" {
		fmt.Fprintf(w, "%s\n", c.Long)
	}
	subs := LeafCommands(c)
	if len(subs) == 0 || hasOwnFlags(c) {
		fmt.Fprintf(w, "\nflags:\n%s", c.LocalFlags().FlagUsages())
	}
	if len(subs) > 0 {
		fmt.Fprintln(w, "\ncommands:")
		writeCommandList(w, c, subs)
	}
}

// writeCommandList prints one line per command of subs: its path below c
// and its summary, aligned.
func writeCommandList(w io.Writer, c *cobra.Command, subs []*cobra.Command) {
	width := 0
	for _, s := range subs {
		width = max(width, len(relativePath(c, s)))
	}
	for _, s := range subs {
		fmt.Fprintf(w, "  %-*s  %s\n", width, relativePath(c, s), s.Short)
	}
}

// LeafCommands lists the available commands below c that have no
// subcommands, in tree order.
func LeafCommands(c *cobra.Command) []*cobra.Command {
	var out []*cobra.Command
	for _, s := range c.Commands() {
		if !s.IsAvailableCommand() {
			continue
		}
		if s.HasAvailableSubCommands() {
			out = append(out, LeafCommands(s)...)
		} else {
			out = append(out, s)
		}
	}
	return out
}

// relativePath is s's command path without c's.
func relativePath(c, s *cobra.Command) string {
	return strings.TrimPrefix(s.CommandPath(), c.CommandPath()+" ")
}

// hasOwnFlags reports whether c has flags of its own besides --help: a
// command that does its work itself, not only through its subcommands.
func hasOwnFlags(c *cobra.Command) bool {
	own := false
	c.LocalFlags().VisitAll(func(f *pflag.Flag) {
		own = own || (f.Name != "help" && !f.Hidden)
	})
	return own
}
