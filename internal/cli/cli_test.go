package cli_test

import (
	"bytes"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fabvote/fabvote/internal/cli"
	"github.com/fabvote/fabvote/internal/cli/clitest"
	"github.com/fabvote/fabvote/internal/cli/internal/testtool"
)

// TestExecute checks the exit status and message of each kind of outcome.
func TestExecute(t *testing.T) {
	clitest.CheckExit(t, testtool.NewRootCommand, []clitest.Case{
		{Args: []string{"greet", "--name", "x"}, Code: 0, Want: "hello x"},
		{Args: []string{"greet", "-name", "x"}, Code: 0, Want: "hello x"},
		{Args: []string{"--help"}, Code: 0, Want: "usage: tool COMMAND [flags]"},
		{Args: []string{"help", "greet"}, Code: 0, Want: "usage: tool greet --name N"},
		{Args: []string{"group", "--help"}, Code: 0, Want: "  sub  a child"},
		{Args: []string{"fail"}, Code: 1, Want: "tool fail: it broke\n"},
		{Args: []string{"report"}, Code: 1, Want: ""},
		{Args: nil, Code: 2, Want: "usage: tool COMMAND"},
		{Args: []string{"nope"}, Code: 2, Want: "tool: unknown command \"nope\" (see `tool --help`)"},
		{Args: []string{"group"}, Code: 2, Want: "usage: tool group SUBCOMMAND"},
		{Args: []string{"group", "nope"}, Code: 2, Want: `tool group: unknown command "nope"`},
		{Args: []string{"greet"}, Code: 2, Want: "tool greet: --name is required (see `tool greet --help`)"},
		{Args: []string{"greet", "--nope"}, Code: 2, Want: "unknown flag: --nope"},
		{Args: []string{"greet", "stray"}, Code: 2, Want: `unexpected argument "stray"`},
		{Args: []string{"greet", "--count", "x"}, Code: 2, Want: `invalid argument "x" for "--count"`},
		{Args: []string{"completion", "tcsh"}, Code: 2, Want: "want one shell: bash, zsh, fish"},
	})
}

// TestHelpFormat: a command that only has subcommands lists them; a leaf
// lists its flags, without the deprecated alias; a command with both
// lists both.
func TestHelpFormat(t *testing.T) {
	var b bytes.Buffer
	root := testtool.NewRootCommand(&b)
	for _, tc := range []struct {
		args        []string
		want, avoid []string
	}{
		{[]string{"--help"}, []string{"commands:\n", "  greet       greet someone\n", "  group sub   a child\n", "  completion  "}, []string{"flags:"}},
		{[]string{"greet", "--help"}, []string{"flags:\n", "--name string", "--loud"}, []string{"commands:", "--who"}},
	} {
		b.Reset()
		if code := cli.Execute(root, tc.args, &b); code != 0 {
			t.Fatalf("%q: exit %d", tc.args, code)
		}
		for _, w := range tc.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%q: help does not say %q:\n%s", tc.args, w, b.String())
			}
		}
		for _, a := range tc.avoid {
			if strings.Contains(b.String(), a) {
				t.Errorf("%q: help says %q:\n%s", tc.args, a, b.String())
			}
		}
	}
	leafWithCommands := &cobra.Command{Use: "one --x X", Short: "one", Args: cli.NoArgs, RunE: func(*cobra.Command, []string) error { return nil }}
	leafWithCommands.Flags().String("x", "", "the x")
	cli.Configure(leafWithCommands, &b)
	b.Reset()
	cli.WriteHelp(&b, leafWithCommands)
	if !strings.Contains(b.String(), "flags:\n      --x string") || !strings.Contains(b.String(), "commands:\n  completion") {
		t.Errorf("a tool with flags and the completion command: help\n%s", b.String())
	}
}

// TestAlias: the old name sets the new name's variable and prints the
// deprecation notice; giving both names is a usage error.
func TestAlias(t *testing.T) {
	clitest.CheckExit(t, testtool.NewRootCommand, []clitest.Case{
		{Args: []string{"greet", "--who", "x"}, Code: 0, Want: "Flag --who has been deprecated, use --name instead\nhello x"},
		{Args: []string{"greet", "-who=x"}, Code: 0, Want: "hello x"},
		{Args: []string{"greet", "--name", "x", "--who", "y"}, Code: 2, Want: "give --who or --name, not both"},
		{Args: []string{"greet", "--who", "y", "--name", "x"}, Code: 2, Want: "give --name or --who, not both"},
	})
}

// TestAliasMarksBothChanged: either name marks both names changed, so a
// check by the new name (fs.Changed, cli.Required) sees the old one given;
// a name given twice is not "both".
func TestAliasMarksBothChanged(t *testing.T) {
	for _, args := range [][]string{{"--who", "x"}, {"--name", "x"}, {"--who", "x", "--who", "y"}} {
		cmd := &cobra.Command{Use: "x"}
		cmd.Flags().String("name", "", "the name")
		cli.Alias(cmd.Flags(), "name", "who")
		if err := cmd.Flags().Parse(args); err != nil {
			t.Errorf("%q: %v", args, err)
			continue
		}
		for _, n := range []string{"name", "who"} {
			if !cmd.Flags().Changed(n) {
				t.Errorf("%q: --%s not marked changed", args, n)
			}
		}
		if err := cli.Required(cmd.Flags(), "name"); err != nil {
			t.Errorf("%q: Required(name): %v", args, err)
		}
	}
}

// TestAliasHelpDefault: an aliased flag's help prints its default as the
// flag's would, and no zero default.
func TestAliasHelpDefault(t *testing.T) {
	cmd := &cobra.Command{Use: "x"}
	cmd.Flags().Int("count", 0, "how many")
	cmd.Flags().Int("rate", 5, "how fast")
	cmd.Flags().Bool("loud", false, "shout")
	for _, a := range [][2]string{{"count", "limit"}, {"rate", "speed"}, {"loud", "shout"}} {
		cli.Alias(cmd.Flags(), a[0], a[1])
	}
	help := cmd.Flags().FlagUsages()
	for _, want := range []string{"how many\n", "how fast (default 5)\n", "shout\n"} {
		if !strings.Contains(help, want) {
			t.Errorf("help does not say %q:\n%s", want, help)
		}
	}
}

// TestAliasBool: a boolean alias takes no value, as its flag.
func TestAliasBool(t *testing.T) {
	cmd := &cobra.Command{Use: "x"}
	loud := cmd.Flags().Bool("loud", false, "shout")
	cli.Alias(cmd.Flags(), "loud", "shout")
	if err := cmd.Flags().Parse([]string{"--shout"}); err != nil || !*loud {
		t.Fatalf("--shout: err %v, loud %v", err, *loud)
	}
}

// TestDoubleDashLongFlags checks the rewriting of single-dash long flags,
// which Go's flag package took and pflag does not: only a long flag of the
// command run is rewritten, never a flag's value, a one-letter shorthand,
// an unknown flag or anything after "--".
func TestDoubleDashLongFlags(t *testing.T) {
	tests := []struct {
		args, want []string
	}{
		{[]string{"greet", "-name", "3", "-count=2"}, []string{"greet", "--name", "3", "--count=2"}},
		{[]string{"greet", "--name", "3"}, []string{"greet", "--name", "3"}},
		{[]string{"greet", "-loud", "-count", "2"}, []string{"greet", "--loud", "--count", "2"}},
		{[]string{"greet", "-loud=false"}, []string{"greet", "--loud=false"}},
		{[]string{"greet", "--name", "-count", "-count", "x"}, []string{"greet", "--name", "-count", "--count", "x"}},
		{[]string{"greet", "-h"}, []string{"greet", "-h"}},
		{[]string{"greet", "-help"}, []string{"greet", "--help"}},
		{[]string{"greet", "-nope", "-loud"}, []string{"greet", "-nope", "--loud"}},
		{[]string{"greet", "--", "-loud"}, []string{"greet", "--", "-loud"}},
		{[]string{"group", "sub", "-help"}, []string{"group", "sub", "--help"}},
		{[]string{"-help"}, []string{"--help"}},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			got := cli.DoubleDashLongFlags(testtool.NewRootCommand(io.Discard), tc.args)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestCompletion: `tool completion SHELL` prints cobra's script for SHELL
// on standard output.
func TestCompletion(t *testing.T) {
	for shell, want := range map[string]string{"bash": "# bash completion V2 for tool", "zsh": "#compdef tool", "fish": "# fish completion for tool"} {
		var code int
		out := clitest.Capture(t, &os.Stdout, func() {
			code = cli.Execute(testtool.NewRootCommand(io.Discard), []string{"completion", shell}, io.Discard)
		})
		if code != 0 || !strings.HasPrefix(out, want) {
			t.Errorf("completion %s: exit %d, output starts %q, want %q", shell, code, out[:min(len(out), 40)], want)
		}
	}
}

// TestRequired: a flag is missing when it is undefined, an empty string,
// or a number left at its zero default; a zero given on purpose is not.
func TestRequired(t *testing.T) {
	tests := []struct {
		args []string
		want string // "" for no error
	}{
		{[]string{"--s", "x", "--n", "2"}, ""},
		{[]string{"--s", "x", "--n", "0"}, ""},
		{[]string{"--n", "2"}, "--s is required"},
		{[]string{"--s", "", "--n", "2"}, "--s is required"},
		{[]string{"--s", "x"}, "--n is required"},
	}
	for _, tc := range tests {
		cmd := &cobra.Command{Use: "x"}
		cmd.Flags().String("s", "", "")
		cmd.Flags().Int("n", 0, "")
		if err := cmd.Flags().Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		err := cli.Required(cmd.Flags(), "s", "n")
		if (tc.want == "") != (err == nil) || (err != nil && (!cli.IsUsage(err) || err.Error() != tc.want)) {
			t.Errorf("%q: error %v, want %q", tc.args, err, tc.want)
		}
	}
	if err := cli.Required(pflagSet(), "undefined"); err == nil || err.Error() != "--undefined is required" {
		t.Errorf("an undefined flag: error %v", err)
	}
}

func pflagSet() *pflag.FlagSet { return pflag.NewFlagSet("x", pflag.ContinueOnError) }
