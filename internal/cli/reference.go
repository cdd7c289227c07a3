package cli

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// Reference is the Markdown reference of one tool, generated from its
// command tree: a page per command, TOOL_COMMAND_SUBCOMMAND.md, and the
// tool's index page, TOOL.md. The pages depend on nothing but the tree and
// the fields below: no date, no machine-dependent default. Tools share
// one directory, whose README.md lists them (see IndexPage).
type Reference struct {
	Root *cobra.Command
	// Source is the directory of the tool's main package, e.g.
	// cmd/fabvote, named in the note that heads every page.
	Source string
	// About is the index page's first paragraph: what the tool does, and
	// for whom.
	About string
	// Failures names what exit status 1 covers besides an error, e.g. "an
	// audit that FAILs" ("" for nothing more).
	Failures string
}

// generatedNote heads every page; it tells an editor where the page comes
// from.
func (r Reference) generatedNote() string {
	return "<!-- Generated from the command tree of " + r.Source + " by `make docs`; do not edit. -->\n\n"
}

// Pages returns the pages of the reference by file name.
func (r Reference) Pages() map[string][]byte {
	pages := map[string][]byte{pageName(r.Root): r.indexPage()}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, s := range c.Commands() {
			if !s.IsAvailableCommand() {
				continue
			}
			pages[pageName(s)] = r.commandPage(s)
			walk(s)
		}
	}
	walk(r.Root)
	return pages
}

// pageName is the file of c's page: its command path joined by "_".
func pageName(c *cobra.Command) string {
	return strings.ReplaceAll(c.CommandPath(), " ", "_") + ".md"
}

// indexPage is the tool's usage, what holds for all its commands, its own
// flags if it has any, and its commands. Its title, "# TOOL: SHORT", is
// what the directory's README.md lists.
func (r Reference) indexPage() []byte {
	root, name := r.Root, r.Root.Name()
	var b bytes.Buffer
	b.WriteString(r.generatedNote())
	fmt.Fprintf(&b, "# %s: %s\n\n%s\n\n", name, root.Short, r.About)
	fmt.Fprintf(&b, "```\n%s %s\n```\n\n", name, Synopsis(root))
	help := fmt.Sprintf("`%s --help` prints its flags", name)
	if !hasOwnFlags(root) {
		help = fmt.Sprintf("`%s COMMAND --help` prints a command's flags", name)
	}
	b.WriteString(help + ". A long flag may be written with one dash, " +
		"as Go's flag package allows (`-out x`, `-out=x`), or with two (`--out x`, `--out=x`).\n\n")
	failures := ""
	if r.Failures != "" {
		failures = ", including " + r.Failures
	}
	fmt.Fprintf(&b, "Exit status: 0 success; 1 failure%s; 2 bad usage.\n\n", failures)
	if hasOwnFlags(root) {
		fmt.Fprintf(&b, "## Flags\n\n```\n%s```\n\n", root.LocalFlags().FlagUsages())
	}
	b.WriteString("## Commands\n\n")
	writeCommandLinks(&b, root)
	fmt.Fprintf(&b, "\nSee also: [all tools](%s).\n", IndexFile)
	return b.Bytes()
}

// commandPage is c's usage and summary, then, as --help shows them, its
// flags unless it only has subcommands, and its subcommands.
func (r Reference) commandPage(c *cobra.Command) []byte {
	var b bytes.Buffer
	b.WriteString(r.generatedNote())
	fmt.Fprintf(&b, "# %s\n\n%s\n\n", c.CommandPath(), c.Short)
	// A second usage line is indented under the first's "usage: " in
	// --help; here the lines start at the margin.
	usage := strings.ReplaceAll(Synopsis(c), "\n       ", "\n")
	fmt.Fprintf(&b, "## Usage\n\n```\n%s %s\n```\n\n", c.CommandPath(), usage)
	if !c.HasAvailableSubCommands() || hasOwnFlags(c) {
		c.InitDefaultHelpFlag() // as in `--help`, which lists it
		fmt.Fprintf(&b, "## Flags\n\n```\n%s```\n\n", c.LocalFlags().FlagUsages())
	}
	if c.HasAvailableSubCommands() {
		b.WriteString("## Commands\n\n")
		writeCommandLinks(&b, c)
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "See also: [%s](%s)", c.Parent().CommandPath(), pageName(c.Parent()))
	if c.Parent().HasParent() {
		fmt.Fprintf(&b, ", [all commands](%s)", pageName(c.Root()))
	}
	b.WriteString(".\n")
	return b.Bytes()
}

// writeCommandLinks lists the runnable commands below c, each linked to
// its page, with its summary.
func writeCommandLinks(b *bytes.Buffer, c *cobra.Command) {
	for _, s := range LeafCommands(c) {
		fmt.Fprintf(b, "- [%s](%s): %s\n", s.CommandPath(), pageName(s), s.Short)
	}
}
