package main

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// The CLI reference in docs/cli is Markdown generated from the command
// tree: one page per command and an index, README.md. `make docs` writes
// it and TestCLIReference fails when it differs, so it always says what
// the binary does. The pages depend on nothing but the tree: no date, no
// machine-dependent default.

// referenceIndex is the file name of the index page.
const referenceIndex = "README.md"

// generatedNote heads every page; it tells an editor where the page comes
// from.
const generatedNote = "<!-- Generated from the command tree of cmd/fabvote by `make docs`; do not edit. -->\n\n"

// cliReference returns the pages of the reference of root's tree by file
// name.
func cliReference(root *cobra.Command) map[string][]byte {
	pages := map[string][]byte{referenceIndex: indexPage(root)}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, s := range c.Commands() {
			if !s.IsAvailableCommand() {
				continue
			}
			pages[pageName(s)] = commandPage(s)
			walk(s)
		}
	}
	walk(root)
	return pages
}

// pageName is the file of c's page: its command path joined by "_".
func pageName(c *cobra.Command) string {
	return strings.ReplaceAll(c.CommandPath(), " ", "_") + ".md"
}

// indexPage lists every command with its summary, and says what holds for
// all of them.
func indexPage(root *cobra.Command) []byte {
	var b bytes.Buffer
	b.WriteString(generatedNote)
	b.WriteString("# fabvote command-line reference\n\n")
	fmt.Fprintf(&b, "`fabvote` is %s: the election authority creates and opens elections and registers voters, "+
		"voters make and cast ballots and check their receipts, trustees decrypt the tally, "+
		"and anyone audits the result from the ledger alone.\n\n", root.Short)
	fmt.Fprintf(&b, "```\n%s %s\n```\n\n", root.CommandPath(), synopsis(root))
	b.WriteString("`fabvote COMMAND --help` prints a command's flags. A long flag may be written with one dash, " +
		"as Go's flag package allows (`-out x`, `-out=x`), or with two (`--out x`, `--out=x`).\n\n")
	b.WriteString("Exit status: 0 success; 1 failure, including an audit that FAILs or a rejected ballot; 2 bad usage.\n\n")
	b.WriteString("## Commands\n\n")
	writeCommandLinks(&b, root)
	return b.Bytes()
}

// commandPage is c's usage, summary and flags, or for a parent command
// its subcommands.
func commandPage(c *cobra.Command) []byte {
	var b bytes.Buffer
	b.WriteString(generatedNote)
	fmt.Fprintf(&b, "# %s\n\n%s\n\n", c.CommandPath(), c.Short)
	// A second usage line is indented under the first's "usage: " in
	// --help; here the lines start at the margin.
	usage := strings.ReplaceAll(synopsis(c), "\n       ", "\n")
	fmt.Fprintf(&b, "## Usage\n\n```\n%s %s\n```\n\n", c.CommandPath(), usage)
	if c.HasAvailableSubCommands() {
		b.WriteString("## Commands\n\n")
		writeCommandLinks(&b, c)
		b.WriteString("\n")
	} else {
		c.InitDefaultHelpFlag() // as in `--help`, which lists it
		fmt.Fprintf(&b, "## Flags\n\n```\n%s```\n\n", c.LocalFlags().FlagUsages())
	}
	fmt.Fprintf(&b, "See also: [%s](%s)", c.Parent().CommandPath(), parentPage(c))
	if c.Parent().HasParent() {
		fmt.Fprintf(&b, ", [all commands](%s)", referenceIndex)
	}
	b.WriteString(".\n")
	return b.Bytes()
}

// parentPage is the file of the page of c's parent command.
func parentPage(c *cobra.Command) string {
	if !c.Parent().HasParent() {
		return referenceIndex
	}
	return pageName(c.Parent())
}

// writeCommandLinks lists the runnable commands below c, each linked to
// its page, with its summary.
func writeCommandLinks(b *bytes.Buffer, c *cobra.Command) {
	for _, s := range leafCommands(c) {
		fmt.Fprintf(b, "- [%s](%s): %s\n", s.CommandPath(), pageName(s), s.Short)
	}
}
