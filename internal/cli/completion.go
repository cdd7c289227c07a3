package cli

import (
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
)

// shells are the shells `TOOL completion` writes a script for.
var shells = []string{"bash", "zsh", "fish"}

// completionCommand is the completion command of the tool named tool.
func completionCommand(tool string) *cobra.Command {
	return &cobra.Command{
		Use:       "completion bash|zsh|fish",
		Short:     "print the shell completion script, e.g. source <(" + tool + " completion bash)",
		ValidArgs: shells,
		Args:      oneShell,
		RunE:      writeCompletion,
	}
}

func oneShell(_ *cobra.Command, args []string) error {
	if len(args) != 1 || !slices.Contains(shells, args[0]) {
		return Usagef("want one shell: %s", strings.Join(shells, ", "))
	}
	return nil
}

// writeCompletion prints cobra's completion script for the shell args[0]
// on standard output (os.Stdout: cobra's out writer is stderr, see
// Configure).
func writeCompletion(c *cobra.Command, args []string) error {
	root, w := c.Root(), os.Stdout
	switch args[0] {
	case "bash":
		return root.GenBashCompletionV2(w, true)
	case "zsh":
		return root.GenZshCompletion(w)
	default:
		return root.GenFishCompletion(w, true)
	}
}
